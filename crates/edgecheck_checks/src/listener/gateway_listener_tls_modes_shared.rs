use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// One Gateway port shared by a TLS `Passthrough` listener and a terminating listener (HTTPS, or
    /// TLS `Terminate`) where it cannot be known whether the implementation supports it (the
    /// `TLSRouteModeMixed` feature): no GatewayClass `status.supportedFeatures` in the inputs, and an
    /// implementation edgecheck's table of implementations does not settle (unknown, or
    /// version-dependent as Cilium). Where support is known the model decides: no finding when it is
    /// supported, `Accepted=False ProtocolConflict` on both listeners (LSN001, an error) when not.
    ///
    /// ## Why it matters
    /// The spec lets HTTPS and TLS listeners share a port when their hostnames differ (the data plane
    /// splits by SNI), but an implementation without `TLSRouteModeMixed` must refuse both listeners
    /// (`ProtocolConflict`, the conformance test `TLSRouteListenerMixedTerminationNotSupported`), and
    /// Cilium releases before 1.20 program one of them and report the other not programmed: the
    /// passthrough entry (TLSRoute to a server doing its own TLS, such as Argo CD for native gRPC)
    /// never answers. A warning: it depends on the controller and its version.
    ///
    /// ## Example
    /// Gateway `edge/public` with `https` (HTTPS, 443) and `argo-tls` (TLS, 443, `mode: Passthrough`).
    ///
    /// ## How to fix
    /// Give the passthrough listener its own Gateway (and so its own address), or its own port.
    pub(crate) struct GatewayListenerTlsModesShared {
        code: "LSN002", name: "gateway-listener-tls-modes-shared", layer: Layer::Listener, severity: Severity::Warning,
    }
}

impl GatewayListenerTlsModesShared {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for s in &cx.model.gateway.shared_tls_ports {
            let obj = cx.graph.obj(s.gateway);
            let first = cx
                .graph
                .view::<edgecheck_core::views::Gateway>(s.gateway)
                .and_then(|g| g.spec.listeners.iter().position(|l| s.passthrough.contains(&l.name)))
                .map(|i| format!("spec.listeners[{i}]"))
                .unwrap_or_default();
            out.at(obj, &first)
                .message(format!(
                    "{} serves TLS Passthrough ({}) and TLS termination ({}) on port {}; many implementations cannot split one port between them",
                    obj.to_ref(),
                    s.passthrough.join(", "),
                    s.terminate.join(", "),
                    s.port
                ))
                .evidence(format!("port {}: Passthrough listeners {}", s.port, s.passthrough.join(", ")))
                .evidence(format!("port {}: Terminate listeners {}", s.port, s.terminate.join(", ")))
                .fix("move the Passthrough listener to its own Gateway (its own address) or its own port")
                .emit();
        }
    }
}
