use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// Two BackendTLSPolicies that target the same Service (the same port, by `sectionName`, or both the
    /// whole Service): the older one applies (creation time when known — a dump, a cluster — else
    /// namespace/name), the other is `Accepted=False Conflicted`, as the conformance test
    /// `BackendTLSPolicyConflictResolution` asserts. A policy for one port beside one for the whole
    /// Service is no conflict (the more specific applies to its port).
    ///
    /// ## Why it matters
    /// The newer policy's CA, hostname and SANs are ignored: the Gateway validates the backend with the
    /// other policy's settings, which may name another host or CA. A warning: which policy was meant
    /// is a guess.
    ///
    /// ## Example
    /// BackendTLSPolicies `shop/api-tls` and `shop/api-tls-v2`, both with `targetRefs: [{kind: Service,
    /// name: api}]`.
    ///
    /// ## How to fix
    /// Keep one policy per Service port: delete the stale one, or give each a distinct `sectionName`.
    pub(crate) struct BackendTlsPolicyConflicted {
        code: "TLS025", name: "backend-tls-policy-conflicted", layer: Layer::Tls, severity: Severity::Warning,
    }
}

impl BackendTlsPolicyConflicted {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (loser, winner) in &cx.model.gateway.policy_conflicts {
            let obj = cx.graph.obj(*loser);
            let won = cx.graph.obj(*winner).to_ref();
            let Some(c) =
                cx.model.gateway.of(*loser).iter().find(|c| c.reason == crate::model::condition::Reason::Conflicted)
            else {
                continue;
            };
            out.at(obj, "spec.targetRefs")
                .message(format!(
                    "{}: Accepted=False Conflicted: {}; its validation settings are ignored",
                    obj.to_ref(),
                    c.message
                ))
                .evidence(format!("expected condition {}", c.describe()))
                .related(won)
                .fix(
                    "keep one BackendTLSPolicy per Service port: delete the stale one, or target distinct sectionNames",
                )
                .emit();
        }
    }
}
