use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, Check as _, CheckContext};
use crate::model::condition::{ConditionType, Reason};

declare_check! {
    /// ## What it checks
    /// A terminating Gateway listener whose certificate the computed model cannot resolve
    /// (`ResolvedRefs=False`): `InvalidCertificateRef` (no certificateRefs, a ref that is not a core
    /// Secret, a Secret missing under the absence rule, of a type other than `kubernetes.io/tls`, or
    /// without `tls.crt`/`tls.key`) or `RefNotPermitted` (a Secret in another namespace without a
    /// ReferenceGrant), or a `tls.crt`/`tls.key` that does not parse. A Secret that cert-manager,
    /// External Secrets, a SealedSecret, a secrets operator or cert-manager's gateway-shim (an issuer
    /// annotation on the Gateway) will create is not missing; one nothing creates is missing under the
    /// absence rule, which holds the area managed when the Gateway's GatewayClass is in the inventory
    /// (a warning). The Gateway's client certificate validation is TLS023's.
    ///
    /// ## Why it matters
    /// The listener has no certificate to serve: clients fail the handshake or get a default one.
    ///
    /// ## Example
    /// `certificateRefs: [{name: wild, namespace: certs}]` on Gateway `edge/public` and no
    /// ReferenceGrant in `certs`.
    ///
    /// ## How to fix
    /// Add the ReferenceGrant, or create the Secret (a Certificate with that secretName).
    pub(crate) struct GatewayListenerCertUnresolved {
        code: "TLS090", name: "gateway-listener-cert-unresolved", layer: Layer::Tls, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl GatewayListenerCertUnresolved {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for f in cx.model.gateway.faults(cx.graph) {
            if !(f.cond.listener.is_some()
                && f.cond.condition_type == ConditionType::ResolvedRefs
                && matches!(f.cond.reason, Reason::InvalidCertificateRef | Reason::RefNotPermitted)
                && !f.field.starts_with("spec.tls."))
            {
                continue;
            }

            let fix = if f.cond.reason == Reason::RefNotPermitted {
                "add a ReferenceGrant in the Secret's namespace from Gateway in the Gateway's namespace to Secret, or move the Secret"
            } else {
                "point certificateRefs at a kubernetes.io/tls Secret with tls.crt and tls.key (or a cert-manager Certificate's secretName)"
            };
            crate::gateway_api::predicted(cx, out, &f, self.meta().severity).fix(fix).emit();
        }
    }
}
