use edgecheck_core::views::{ExternalSecret, SecretStore};
use edgecheck_core::{EdgeKind, Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A `SecretStore` or `ClusterSecretStore` (live object or dump) whose `Ready` condition is `False`,
    /// with its reason and message (`InvalidProviderConfig`, `ValidationFailed`: a Vault role or policy that
    /// does not allow the login, an expired token, a wrong server URL), and the ExternalSecrets in the
    /// inventory that read from it.
    ///
    /// ## Why it matters
    /// Every ExternalSecret using the store stops refreshing: new Secrets are never written, rotated values
    /// never arrive, and pods fail or keep old credentials. The ExternalSecrets report the symptom; the store
    /// is the cause.
    ///
    /// ## Example
    /// `Ready=False InvalidProviderConfig: unable to log in to auth method: ... permission denied`.
    ///
    /// ## How to fix
    /// Fix the provider auth the message names: for Vault, the Kubernetes auth role (bound service account
    /// and namespace) and the policy that grants read on the paths; then the store turns Ready.
    pub(crate) struct SecretStoreNotReady {
        code: "SEC004", name: "secret-store-not-ready", layer: Layer::Secrets, severity: Severity::Error,
    }
}

impl SecretStoreNotReady {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, obj, store) in cx.graph.each::<SecretStore>() {
            let Some((i, c)) =
                store.status.conditions.iter().enumerate().find(|(_, c)| c.type_ == "Ready" && c.status == "False")
            else {
                continue;
            };
            let users: Vec<_> = cx
                .graph
                .edges_to_kind(id, EdgeKind::SecretStore)
                .map(|e| e.from)
                .filter(|u| cx.graph.view::<ExternalSecret>(*u).is_some())
                .collect();
            let mut f = out
                .at(obj, &format!("status.conditions[{i}]"))
                .message(format!(
                    "{} is not Ready ({}): ExternalSecrets using it are not refreshed",
                    obj.to_ref(),
                    c.reason.as_deref().unwrap_or("no reason")
                ))
                .evidence(format!(
                    "Ready=False {}: {}",
                    c.reason.as_deref().unwrap_or(""),
                    c.message.as_deref().unwrap_or("")
                ));
            if !users.is_empty() {
                f = f.evidence(format!("used by {} ExternalSecret(s) in the inventory", users.len()));
            }
            for u in users.iter().take(5) {
                f = f.related(cx.graph.obj(*u).to_ref());
            }
            f.fix("fix the provider authentication the message names (Vault role, policy, token), then the store turns Ready")
                .emit();
        }
    }
}
