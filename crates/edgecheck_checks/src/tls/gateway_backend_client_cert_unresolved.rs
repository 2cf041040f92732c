use edgecheck_core::kind::K;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, Check as _, CheckContext};
use crate::model::condition::ConditionType;

declare_check! {
    /// ## What it checks
    /// A Gateway whose client certificate for backends (`spec.tls.backend.clientCertificateRef`) the
    /// computed model cannot resolve (the Gateway's `ResolvedRefs=False`):
    /// `InvalidClientCertificateRef` (not a core Secret, a Secret missing under the absence rule, not
    /// `kubernetes.io/tls`, or whose `tls.crt`/`tls.key` is missing or does not parse) or
    /// `RefNotPermitted` (another namespace without a ReferenceGrant to the Gateway). A Secret that
    /// something in the inventory creates is not missing.
    ///
    /// ## Why it matters
    /// The Gateway stays accepted, but backends that require a client certificate (BackendTLSPolicy
    /// with mutual TLS) refuse its connections: requests fail at the backend with a handshake error.
    ///
    /// ## Example
    /// `spec.tls.backend.clientCertificateRef: {name: client, namespace: certs}` with no ReferenceGrant
    /// in `certs`.
    ///
    /// ## How to fix
    /// Point the reference at a `kubernetes.io/tls` Secret in the Gateway's namespace, or add a
    /// ReferenceGrant from Gateway in the Secret's namespace.
    pub(crate) struct GatewayBackendClientCertUnresolved {
        code: "TLS024", name: "gateway-backend-client-cert-unresolved", layer: Layer::Tls, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl GatewayBackendClientCertUnresolved {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for f in cx.model.gateway.faults(cx.graph) {
            if !(f.cond.listener.is_none()
                && f.cond.parent.is_none()
                && f.cond.condition_type == ConditionType::ResolvedRefs
                && cx.graph.obj(f.id).is(K::GATEWAY))
            {
                continue;
            }
            crate::gateway_api::predicted(cx, out, &f, self.meta().severity)
                .fix("point clientCertificateRef at a kubernetes.io/tls Secret with tls.crt and tls.key, or add a ReferenceGrant from Gateway in its namespace")
                .emit();
        }
    }
}
