use edgecheck_core::reasons::is_dns_failure;
use edgecheck_core::views::Application;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An Argo CD `Application` (live object or dump) with a `ComparisonError` or `InvalidSpecError`
    /// condition: Argo CD could not render the source or compare it with the cluster, and the
    /// Application shows `Unknown`. The condition's message is quoted. A ComparisonError that is a
    /// failed DNS lookup of the Git or Helm host is reported by the dns layer (DNS020) instead.
    ///
    /// ## Why it matters
    /// While the comparison fails Argo CD neither syncs nor reports drift or health: every later
    /// commit is ignored and the UI cannot be trusted for that Application.
    ///
    /// ## Example
    /// `conditions: [{type: ComparisonError, message: "rpc error: ... app path does not exist"}]`.
    ///
    /// ## How to fix
    /// Fix what the message names: the source path or revision, repository credentials or known hosts,
    /// a Helm/kustomize rendering error, or the project's allowed destinations.
    pub(crate) struct ApplicationComparisonError {
        code: "GIT021", name: "application-comparison-error", layer: Layer::Gitops, severity: Severity::Error,
    }
}

impl ApplicationComparisonError {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (_, obj, app) in cx.graph.each::<Application>() {
            for (i, c) in app.status.conditions.iter().enumerate() {
                if !matches!(c.type_.as_str(), "ComparisonError" | "InvalidSpecError") {
                    continue;
                }
                let msg = c.message.as_deref().unwrap_or("");
                if is_dns_failure(msg) {
                    continue;
                }
                let mut f = out
                    .at(obj, &format!("status.conditions[{i}]"))
                    .message(format!(
                        "{} has a {} condition: Argo CD cannot render or compare it, so it neither syncs nor reports drift",
                        obj.to_ref(),
                        c.type_
                    ))
                    .evidence(format!("condition {}: {msg}", c.type_));
                if let Some(s) = app.status.sync.status.as_deref() {
                    f = f.evidence(format!("sync status: {s}"));
                }
                let fix = if msg.contains("knownhosts") || msg.contains("known_hosts") || msg.contains("host key") {
                    "add the Git server's host key to argocd-ssh-known-hosts-cm (verify its fingerprint first)"
                } else if msg.contains("permission denied") || msg.contains("authentication required") {
                    "give the repository Secret a deploy key or token the Git server accepts for this repository"
                } else if msg.contains("path does not exist") {
                    "set the source path to a directory that exists at the target revision"
                } else {
                    "fix what the condition message names, then refresh the Application"
                };
                f.fix(fix).emit();
            }
        }
    }
}
