use edgecheck_core::views::Application;
use edgecheck_core::{Findings, Layer, ObjectRef, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An Argo CD `Application` (live object or dump) whose `status.sync.status` is `OutOfSync` while no
    /// sync failed and no comparison error is set (those are GIT020 and GIT021), naming the resources of
    /// `status.resources` that differ. When they are ExternalSecrets, the likely cause is fields the
    /// controller defaults (see GIT002).
    ///
    /// ## Why it matters
    /// The cluster does not run what Git declares: either a change waits for a sync (manual sync policy), or
    /// the difference cannot be synced away (defaulted fields, a mutating webhook, a live patch) and the
    /// Application stays OutOfSync forever, hiding the next real drift. A live patch not written back to Git
    /// comes back as the next incident.
    ///
    /// ## Example
    /// Application `personal-services` is OutOfSync; its only OutOfSync resource is ExternalSecret
    /// `personal/app-env`.
    ///
    /// ## How to fix
    /// Look at the diff (`argocd app diff NAME`). Sync when Git is right; write a live change back to Git;
    /// for controller-defaulted fields write them in Git or add `ignoreDifferences` with
    /// `RespectIgnoreDifferences=true`.
    pub(crate) struct ApplicationOutOfSync {
        code: "GIT023", name: "application-out-of-sync", layer: Layer::Gitops, severity: Severity::Warning,
    }
}

impl ApplicationOutOfSync {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (_, obj, app) in cx.graph.each::<Application>() {
            let st = &app.status;
            if st.sync.status.as_deref() != Some("OutOfSync") {
                continue;
            }
            let failed =
                st.operation_state.as_ref().is_some_and(|o| matches!(o.phase.as_deref(), Some("Failed" | "Error")));
            let errors = st
                .conditions
                .iter()
                .any(|c| matches!(c.type_.as_str(), "ComparisonError" | "InvalidSpecError" | "SyncError"));
            if failed || errors {
                continue;
            }
            let diff: Vec<_> = st.resources.iter().filter(|r| r.status.as_deref() == Some("OutOfSync")).collect();
            let mut f = out.at(obj, "status.sync.status").message(format!(
                "{} is OutOfSync: {} resource(s) in the cluster differ from Git",
                obj.to_ref(),
                diff.len()
            ));
            if let Some(rev) = st.sync.revision.as_deref() {
                f = f.evidence(format!("compared with revision {rev}"));
            }
            for r in diff.iter().take(8) {
                let q = match r.namespace.as_deref().filter(|n| !n.is_empty()) {
                    Some(n) => format!("{n}/{}", r.name),
                    None => r.name.to_string(),
                };
                f = f.evidence(format!("OutOfSync: {} `{q}`", r.kind)).related(ObjectRef {
                    api_version: r.group.as_ref().filter(|g| !g.is_empty()).map_or_else(
                        || r.version.as_deref().map(str::to_string),
                        |g| r.version.as_ref().map(|v| format!("{g}/{v}")),
                    ),
                    kind: r.kind.to_string(),
                    namespace: r.namespace.as_deref().map(str::to_string),
                    name: r.name.to_string(),
                });
            }
            if diff.len() > 8 {
                f = f.evidence(format!("and {} more", diff.len() - 8));
            }
            let only_eso = !diff.is_empty() && diff.iter().all(|r| r.kind == "ExternalSecret");
            let fix = if only_eso {
                "write the fields External Secrets defaults in Git (deletionPolicy, conversionStrategy, decodingStrategy, \
                 metadataPolicy, template engineVersion/mergePolicy) or ignore them with RespectIgnoreDifferences=true"
            } else if app.spec.sync_policy.as_ref().and_then(|p| p.automated).is_some_and(|a| a.on()) {
                "read `argocd app diff`: write live changes back to Git, or ignore fields a controller or webhook sets"
            } else {
                "read `argocd app diff`, then sync (the Application has no automated sync) or write live changes back to Git"
            };
            f.fix(fix).emit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fix follows the sync policy: automated sync on (`{}`) asks to write live changes back;
    /// `automated: {enabled: false}` (Argo CD 3.x) and no `automated` ask for a sync.
    #[test]
    fn the_fix_reads_whether_automated_sync_is_on() {
        let fix = |policy: &str| {
            let text = format!(
                "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: a, namespace: argocd}}\n\
                 spec: {{syncPolicy: {policy}, destination: {{namespace: shop}}}}\n\
                 status: {{sync: {{status: OutOfSync}}, resources: [{{version: v1, kind: Service, namespace: shop, name: web, status: OutOfSync}}]}}\n\
                 # options: live\n"
            );
            let (g, o) = crate::test_support::graph_from_text("t.yaml", &text);
            let found = crate::test_support::run_check(&ApplicationOutOfSync, &g, &o);
            assert_eq!(found.len(), 1, "{policy}: {found:?}");
            found[0].fix.clone().unwrap_or_default()
        };
        assert!(fix("{automated: {}}").contains("write live changes back"), "{}", fix("{automated: {}}"));
        for off in ["{automated: {enabled: false}}", "{syncOptions: [CreateNamespace=true]}"] {
            assert!(fix(off).contains("has no automated sync"), "{off}: {}", fix(off));
        }
    }
}
