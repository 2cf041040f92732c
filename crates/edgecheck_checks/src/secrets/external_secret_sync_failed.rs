use edgecheck_core::kind::K;
use edgecheck_core::views::{ExternalSecret, SecretStore};
use edgecheck_core::{EdgeKind, Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An `ExternalSecret` (live object or dump) whose `Ready` condition is `False` (`SecretSyncedError`,
    /// `SecretDeleted`, ...), quoting the reason and message. When its SecretStore or ClusterSecretStore is
    /// in the inventory and not Ready either, that store's condition is quoted too (Vault role or policy,
    /// provider credentials).
    ///
    /// ## Why it matters
    /// The target Secret is not written or not refreshed: pods that read it fail to start
    /// (`CreateContainerConfigError`), or keep running with an old value. An ExternalSecret that exists
    /// is not a Secret that exists.
    ///
    /// ## Example
    /// `Ready=False SecretSyncedError: could not get secret data from provider`.
    ///
    /// ## How to fix
    /// Fix the store first (auth role, policy, token) if it is not Ready; else check that the remote key
    /// and property exist at the provider, then wait for the next refresh or annotate the ExternalSecret
    /// with `force-sync`.
    pub(crate) struct ExternalSecretSyncFailed {
        code: "SEC001", name: "external-secret-sync-failed", layer: Layer::Secrets, severity: Severity::Error,
    }
}

impl ExternalSecretSyncFailed {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, obj, es) in cx.graph.each::<ExternalSecret>() {
            let Some((i, c)) =
                es.status.conditions.iter().enumerate().find(|(_, c)| c.type_ == "Ready" && c.status == "False")
            else {
                continue;
            };
            let reason = c.reason.as_deref().unwrap_or("");
            let msg = c.message.as_deref().unwrap_or("");
            let target = es.spec.target.name.as_deref().unwrap_or(&obj.name);
            let mut f = out
                .at(obj, &format!("status.conditions[{i}]"))
                .message(format!(
                    "{} is not Ready ({reason}): Secret `{}/{target}` is not written or not refreshed",
                    obj.to_ref(),
                    obj.namespace.as_deref().unwrap_or("")
                ))
                .evidence(format!("Ready=False {reason}: {msg}"));
            let mut store_down = false;
            for e in cx.graph.edges_from_kind(id, EdgeKind::SecretStore) {
                let Some(sid) = e.to.found() else { continue };
                let so = cx.graph.obj(sid);
                f = f.related(so.to_ref());
                if let Some(sc) = cx.graph.view::<SecretStore>(sid).and_then(|s| s.status.condition("Ready")) {
                    if sc.status == "False" {
                        store_down = true;
                        f = f.evidence(format!(
                            "{} Ready=False {}: {}",
                            so.to_ref(),
                            sc.reason.as_deref().unwrap_or(""),
                            sc.message.as_deref().unwrap_or("")
                        ));
                    }
                }
            }
            if let Some(sid) = cx.graph.find(K::SECRET, obj.namespace.as_deref(), target) {
                f = f
                    .related(cx.graph.obj(sid).to_ref())
                    .evidence(format!("Secret `{target}` exists but may hold an old value"));
            }
            let fix = if store_down {
                "make the store Ready first (provider auth role, policy, token), then let the ExternalSecret refresh"
            } else {
                "check that the remote key and property exist at the provider and the store may read them, then force a refresh"
            };
            f.fix(fix).emit();
        }
    }
}
