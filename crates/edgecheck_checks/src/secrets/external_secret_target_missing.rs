use edgecheck_core::views::ExternalSecret;
use edgecheck_core::{EdgeKind, Findings, Layer, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// On a full cluster dump, an `ExternalSecret` whose `Ready` condition is `True` (it claims the Secret is
    /// synced) while its target Secret (`spec.target.name`, default the ExternalSecret's name) is not in the
    /// dump. `creationPolicy: None` and `Orphan`/`Merge` targets are left alone where the Secret may be
    /// managed by something else.
    ///
    /// ## Why it matters
    /// ExternalSecret exists ≠ target Secret exists: the Secret was deleted after the last sync, or the
    /// controller writes elsewhere. Pods reading it fail with `secret not found` although every
    /// ExternalSecret shows green.
    ///
    /// ## Example
    /// ExternalSecret `example-api/env` is `Ready=True SecretSynced`; Secret `example-api/example-api-env-file`
    /// is not in the cluster.
    ///
    /// ## How to fix
    /// Force a refresh (annotate `force-sync=$(date +%s)`) so the controller recreates it, and find what
    /// deleted it (a prune by another Application, `deletionPolicy`).
    pub(crate) struct ExternalSecretTargetMissing {
        code: "SEC005", name: "external-secret-target-missing", layer: Layer::Secrets, severity: Severity::Error,
    }
}

impl ExternalSecretTargetMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        if !cx.graph.complete {
            return;
        }
        for (id, obj, es) in cx.graph.each::<ExternalSecret>() {
            let ready = es.status.condition("Ready").is_some_and(|c| c.status == "True");
            let policy = es.spec.target.creation_policy.as_deref().unwrap_or("Owner");
            if !ready || matches!(policy, "None" | "Orphan" | "Merge") {
                continue;
            }
            for e in cx.graph.edges_from_kind(id, EdgeKind::SecretTarget) {
                let Target::Missing(r) = &e.to else { continue };
                let mut f = out
                    .at(obj, "spec.target")
                    .message(format!("{} reports Ready but {} is not in the cluster", obj.to_ref(), r))
                    .evidence("Ready=True in the ExternalSecret's status")
                    .evidence(format!("target: {r} (creationPolicy {policy})"));
                if let Some(t) = es.status.refresh_time.as_deref() {
                    f = f.evidence(format!("last refresh: {t}"));
                }
                f.fix("force a refresh of the ExternalSecret so the controller recreates the Secret, and find what deleted it")
                    .emit();
            }
        }
    }
}
