use edgecheck_core::reasons::is_dns_failure;
use edgecheck_core::views::Application;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An Argo CD `Application` (live object or dump) whose last sync failed: `status.operationState.phase`
    /// is `Failed` or `Error`, or a `SyncError` condition is set. The operation's message is quoted.
    /// A failure whose message is a failed DNS lookup is reported by the dns layer (DNS020) instead.
    ///
    /// ## Why it matters
    /// Git's desired state did not reach the cluster: some objects were not applied (a rejected
    /// manifest, a failed hook Job, a missing CRD) and what depends on them — a Service a route needs,
    /// a Secret a pod reads — is missing or old.
    ///
    /// ## Example
    /// `operationState: {phase: Failed, message: "one or more objects failed to apply, reason: ..."}`.
    ///
    /// ## How to fix
    /// Read the message and the failed resources (`argocd app get NAME`), fix the manifest or the hook,
    /// and sync again.
    pub(crate) struct ApplicationSyncFailed {
        code: "GIT020", name: "application-sync-failed", layer: Layer::Gitops, severity: Severity::Error,
    }
}

impl ApplicationSyncFailed {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (_, obj, app) in cx.graph.each::<Application>() {
            let st = &app.status;
            let op = st.operation_state.as_ref().filter(|o| matches!(o.phase.as_deref(), Some("Failed" | "Error")));
            let sync_err = st.conditions.iter().enumerate().find(|(_, c)| c.type_ == "SyncError");
            let (field, what, msg) = match (op, sync_err) {
                (Some(o), _) => (
                    "status.operationState.phase".to_string(),
                    format!("operationState phase {}", o.phase.as_deref().unwrap_or("")),
                    o.message.clone().unwrap_or_default(),
                ),
                (None, Some((i, c))) => (
                    format!("status.conditions[{i}]"),
                    "condition SyncError".to_string(),
                    c.message.clone().unwrap_or_default(),
                ),
                (None, None) => continue,
            };
            if is_dns_failure(&msg) {
                continue;
            }
            let mut f = out
                .at(obj, &field)
                .message(format!("{} failed to sync: what Git declares is not (all) applied", obj.to_ref()))
                .evidence(format!("{what}: {}", if msg.is_empty() { "no message" } else { &msg }));
            if let Some(s) = st.sync.status.as_deref() {
                f = f.evidence(format!("sync status: {s}"));
            }
            for r in st.resources.iter().filter(|r| r.status.as_deref() == Some("OutOfSync")).take(5) {
                let ns = r.namespace.as_deref().map(|n| format!("{n}/")).unwrap_or_default();
                f = f.evidence(format!("not synced: {} `{ns}{}`", r.kind, r.name));
            }
            f.fix("fix what the sync message names, then sync again (`argocd app sync` or a new commit)").emit();
        }
    }
}
