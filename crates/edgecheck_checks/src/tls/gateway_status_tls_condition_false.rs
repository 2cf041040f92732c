use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A live Gateway API condition that is `False` with a reason that puts the fault at the TLS layer:
    /// `InvalidCertificateRef`, `InvalidCACertificateRef`, ... (listener `ResolvedRefs`, BackendTLSPolicy).
    /// Dumps and clusters only.
    ///
    /// ## Why it matters
    /// The listener has no usable certificate: handshakes fail or get a default certificate.
    ///
    /// ## Example
    /// Listener `https` `ResolvedRefs=False InvalidCertificateRef`: Secret `edge/web-tls` not found.
    ///
    /// ## How to fix
    /// Create the Secret (or its Certificate) or fix the reference.
    pub(crate) struct GatewayStatusTlsConditionFalse {
        code: "TLS091", name: "gateway-status-tls-condition-false", layer: Layer::Tls, severity: Severity::Error,
    }
}

impl GatewayStatusTlsConditionFalse {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, c) in cx.model.live.faults(Layer::Tls) {
            crate::gateway_api::live_fault(cx, out, id, c)
                .fix("point certificateRefs at a kubernetes.io/tls Secret with tls.crt and tls.key that exists (or that cert-manager issues)")
                .emit();
        }
    }
}
