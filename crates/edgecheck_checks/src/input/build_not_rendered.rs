use edgecheck_core::inventory::{BuildState, NotRendered};
use edgecheck_core::{Findings, Layer, ObjectRef, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// The builds of the repository (Argo CD Applications, Flux Kustomizations and HelmReleases, plain
    /// kustomize roots) that edgecheck could not render, so their objects were not checked as the cluster
    /// runs them:
    /// - a template error (`helm template` or `kustomize build` failed): an **error** per build, with the
    ///   tool's own message — the controller fails the same way;
    /// - a tool that is not installed, a remote chart or resource (not fetched, not vendored), or plain
    ///   kustomizations (no controller points at them) that do not build: one **warning** per reason,
    ///   naming every build it stops;
    /// - a source that is not in the linted checkouts, a value source the inputs do not hold, a kustomize
    ///   plugin: one **info** per reason;
    /// - `--render never`: one **info** in all;
    /// - in a repository where Applications or Flux objects say what is applied, plain kustomizations and
    ///   charts none of them points at that are not rendered (for any reason): one **info** in all.
    ///
    /// ## Why it matters
    /// What a build renders is what the cluster runs: an Ingress a chart template writes is invisible to a
    /// lint of the chart's files. A build that is not rendered leaves its namespace unchecked (objects
    /// missing there are not reported, as they may be among its output).
    ///
    /// ## Example
    /// `helm template` fails with `template: web/templates/ingress.yaml:12: unexpected EOF`.
    ///
    /// ## How to fix
    /// Fix the template error; install the tool (or give `--helm`/`--kustomize`); vendor the chart's
    /// dependencies (`helm dependency build`) or pass `--fetch`.
    pub(crate) struct BuildNotRendered {
        code: "LOD010", name: "build-not-rendered", layer: Layer::Input, severity: Severity::Warning,
        also: [Severity::Error, Severity::Info],
    }
}

/// The most builds a grouped finding names in its evidence.
const NAMED: usize = 20;

impl BuildNotRendered {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let mut groups: std::collections::BTreeMap<(u8, String), Vec<&edgecheck_core::inventory::BuildRecord>> =
            Default::default();
        // In a repository where controllers (Applications, Flux objects) say what is applied, a kustomization
        // or chart none of them points at is probably not applied as it is (a generator's input, a
        // developer's scratch): that it does not render is worth knowing, not a warning.
        let controlled = cx.graph.rendered.iter().any(|r| r.origin.is_some());
        for r in &cx.graph.rendered {
            let BuildState::NotRendered(why) = &r.state else { continue };
            let object = r.origin.clone().unwrap_or_else(|| file_ref(r.file.as_deref().unwrap_or(&r.path)));
            if controlled && r.origin.is_none() && !matches!(why, NotRendered::Disabled) {
                groups
                    .entry((5, "kustomizations and charts no controller points at are not rendered".into()))
                    .or_default()
                    .push(r);
                continue;
            }
            match why {
                // A kustomization no controller points at: nobody said it is applied as it is.
                NotRendered::Failed(_) if r.origin.is_none() => groups
                    .entry((4, "kustomizations and charts no controller points at do not build".into()))
                    .or_default()
                    .push(r),
                NotRendered::Failed(m) => {
                    out.about(object, r.file.clone(), r.line)
                        .severity(Severity::Error)
                        .message(format!("{} ({} {}) does not render: {m}", r.name, r.kind, r.path))
                        .evidence(format!("tool: {}", r.tool.as_deref().unwrap_or(r.kind)))
                        .fix("fix the template or kustomization; the controller fails on it the same way")
                        .emit();
                }
                NotRendered::Disabled => {
                    groups.entry((3, "rendering is off (--render never)".into())).or_default().push(r)
                }
                NotRendered::ToolMissing(t) => {
                    groups.entry((0, format!("`{t}` is not installed"))).or_default().push(r)
                }
                NotRendered::Remote(_) => groups.entry((1, "remote charts or resources".into())).or_default().push(r),
                NotRendered::Other(_) => {
                    groups.entry((2, "sources edgecheck does not read".into())).or_default().push(r)
                }
            }
        }
        for ((class, what), records) in groups {
            let n = records.len();
            let first = records[0];
            let (severity, fix) = match class {
                0 => (Severity::Warning, "install it (helm 3, kustomize v5 or kubectl), or give its path with --helm / --kustomize"),
                1 => (Severity::Warning, "pass --fetch to let helm pull remote charts, or vendor what the builds fetch (`helm dependency build` into charts/, a local copy of a remote kustomize resource)"),
                3 => (Severity::Info, "run with --render auto to check what the builds render"),
                4 => (Severity::Warning, "fix the kustomization if it is applied with `kubectl apply -k`, or point the controller that builds it at it"),
                5 => (Severity::Info, "nothing to do if they are not applied as they are; if one is (`kubectl apply -k`), fix what the evidence says"),
                _ => (Severity::Info, "lint what they render (`argocd app manifests`, `flux build kustomization`) or the repository that holds them; set repo-urls in .edgecheck.toml if a source is this checkout"),
            };
            let mut f = out
                .about(
                    first.origin.clone().unwrap_or_else(|| file_ref(first.file.as_deref().unwrap_or(&first.path))),
                    first.file.clone(),
                    first.line,
                )
                .severity(severity)
                .message(format!(
                    "{n} build{} not rendered: {what}; {} objects are not checked",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "its" } else { "their" }
                ));
            for r in records.iter().take(NAMED) {
                let why = match &r.state {
                    BuildState::NotRendered(w) => w.reason(),
                    _ => String::new(),
                };
                f = f.evidence(format!("{} ({}): {why}", r.name, r.path));
            }
            if n > NAMED {
                f = f.evidence(format!("... and {} more (lint --show-builds lists them)", n - NAMED));
            }
            f.fix(fix).emit();
        }
    }
}

fn file_ref(path: &str) -> ObjectRef {
    ObjectRef { api_version: None, kind: "File".into(), namespace: None, name: path.to_string() }
}
