use edgecheck_core::graph::repo_for_source;
use edgecheck_core::views::Application;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A linted directory that is not a git checkout (no `.git` in it or above it) and that no `repo-urls`
    /// entry of the configuration names, holding Argo CD Applications whose source paths are directories
    /// of it. Argo CD reads a source's `path` from the repository its `repoURL` names; without a checkout
    /// edgecheck cannot tell whether this directory is that repository, so it assumes it is for every
    /// path the directory has: the Applications' builds are rendered from it and their destination
    /// namespaces apply to its files. A path the directory does not have is never reported missing
    /// (GIT001 needs a real checkout). One finding per such directory, at the first Application.
    ///
    /// ## Why it matters
    /// The result rests on an assumption the operator should know of: a copy of another repository, or an
    /// Application of another repository whose path happens to exist here, would be read from the wrong
    /// files.
    ///
    /// ## Example
    /// `edgecheck lint ./export` where `export/` is a copy of the GitOps repository without `.git`, and
    /// `export/apps/shop.yaml` is an Application with `path: apps/shop`.
    ///
    /// ## How to fix
    /// Lint a git checkout, or say which repository the directory is: `repo-urls = ["https://…"]` in an
    /// `.edgecheck.toml` at its root.
    pub(crate) struct CheckoutAssumed {
        code: "LOD012", name: "checkout-assumed", layer: Layer::Input, severity: Severity::Info,
    }
}

impl CheckoutAssumed {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let repos = &cx.graph.repos;
        for (ri, _) in repos.iter().enumerate().filter(|(_, r)| r.assumed) {
            // Applications and the first of their sources read from this directory.
            let mut apps = Vec::new();
            for (_, obj, app) in cx.graph.each::<Application>() {
                let hit = app.spec.all_sources().into_iter().find(|(_, src)| {
                    src.chart.is_none() && repo_for_source(repos, &src.repo_url, src.path.as_deref()) == Some(ri)
                });
                if let Some((field, src)) = hit {
                    apps.push((obj, field, src));
                }
            }
            let Some((obj, field, src)) = apps.first() else { continue };
            // The directory as the user spelled it: the Application's file less its path in the directory.
            let root = repos[ri].root.display().to_string();
            let dir = match (obj.source.file(), obj.source.repo_path()) {
                (Some(file), Some((_, rel))) => file.strip_suffix(rel).map(|d| d.trim_end_matches('/')),
                _ => None,
            };
            let dir = match dir {
                Some("") => ".",
                Some(d) => d,
                None => root.as_str(),
            };
            let names: Vec<String> = apps.iter().take(5).map(|(o, _, _)| o.to_ref().to_string()).collect();
            let more = apps.len().saturating_sub(names.len());
            let mut f = out
                .at(obj, &format!("{field}.repoURL"))
                .message(format!(
                    "`{dir}` is not a git checkout and no `repo-urls` names it: the source paths of {} Application{} are read from it, as if it were {}",
                    apps.len(),
                    if apps.len() == 1 { "" } else { "s" },
                    src.repo_url
                ))
                .evidence(format!("{field}.path: {}", src.path.as_deref().unwrap_or("")))
                .evidence(format!(
                    "read from `{dir}`: {}{}",
                    names.join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                ));
            f = f.evidence("a path the directory does not have is not judged (GIT001 needs a checkout)");
            f.fix(format!(
                "lint a git checkout, or set `repo-urls = [\"{}\"]` in `{dir}/.edgecheck.toml`",
                src.repo_url
            ))
            .emit();
        }
    }
}
