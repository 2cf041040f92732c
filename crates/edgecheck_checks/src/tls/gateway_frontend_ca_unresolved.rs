use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, Check as _, CheckContext};
use crate::model::condition::ConditionType;

declare_check! {
    /// ## What it checks
    /// An HTTPS listener whose client certificate validation (the Gateway's `spec.tls.frontend`: the
    /// `perPort` entry of its port, else `default`) names a CA the computed model cannot use
    /// (`ResolvedRefs=False`): `InvalidCACertificateKind` (a kind other than a core ConfigMap or
    /// Secret), `RefNotPermitted` (another namespace without a ReferenceGrant to the Gateway),
    /// `InvalidCACertificateRef` (missing under the absence rule, or without `ca.crt`). The listener is
    /// then `Accepted=False NoValidCACertificate` and not programmed.
    ///
    /// ## Why it matters
    /// A listener that cannot validate client certificates must not serve without validating them: the
    /// implementation refuses the listener, and every HTTPS request on that port fails, while HTTP
    /// listeners of the same Gateway keep working (the conformance tests
    /// `GatewayInvalidFrontendClientCertificateValidation`,
    /// `GatewayFrontendInvalidDefaultClientCertificateValidation`).
    ///
    /// ## Example
    /// `spec.tls.frontend.perPort: [{port: 8443, tls: {validation: {caCertificateRefs: [{kind: Service,
    /// group: "", name: ca}]}}}]` with an HTTPS listener on 8443.
    ///
    /// ## How to fix
    /// Point `caCertificateRefs` at a ConfigMap with `ca.crt` in the Gateway's namespace (or add a
    /// ReferenceGrant from Gateway in the CA's namespace).
    pub(crate) struct GatewayFrontendCaUnresolved {
        code: "TLS023", name: "gateway-frontend-ca-unresolved", layer: Layer::Tls, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl GatewayFrontendCaUnresolved {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for f in cx.model.gateway.faults(cx.graph) {
            if !(f.cond.listener.is_some()
                && f.cond.condition_type == ConditionType::ResolvedRefs
                && f.field.starts_with("spec.tls.frontend"))
            {
                continue;
            }
            crate::gateway_api::predicted(cx, out, &f, self.meta().severity)
                .fix("point caCertificateRefs at a ConfigMap holding ca.crt in the Gateway's namespace, or add a ReferenceGrant from Gateway in the CA's namespace")
                .emit();
        }
    }
}
