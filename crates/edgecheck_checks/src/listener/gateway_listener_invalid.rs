use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, Check as _, CheckContext};
use crate::model::condition::{ConditionType, Reason};

declare_check! {
    /// ## What it checks
    /// A listener the computed model does not accept: `Accepted=False` with `UnsupportedProtocol`
    /// (a protocol that is neither core nor domain-prefixed), `UnsupportedValue` (a TLS mode the
    /// protocol does not allow: HTTPS with `Passthrough`, `tls` on HTTP/TCP/UDP, TLS `Terminate` where
    /// the implementation is known not to support `TLSRouteModeTerminate`) or `Invalid` (a duplicate
    /// listener name; an HTTPS or TLS listener without `tls`, which the API server refuses), and
    /// `ResolvedRefs=False InvalidRouteKinds` (an `allowedRoutes.kinds` entry the protocol cannot
    /// carry, e.g. HTTPRoute on a TLS listener, TLSRoute on HTTPS). A conflicted listener (LSN001) and
    /// one whose client certificate validation has no usable CA (TLS023) are not accepted either; those
    /// checks report them.
    ///
    /// ## Why it matters
    /// The listener is not programmed, or the kinds it was meant for never attach.
    ///
    /// ## Example
    /// `protocol: HTTPS` with `tls.mode: Passthrough`; `allowedRoutes.kinds: [{kind: HTTPRoute}]` on a
    /// `protocol: TLS` listener.
    ///
    /// ## How to fix
    /// Use protocol TLS with mode Passthrough for TLSRoutes; list only kinds the protocol carries.
    pub(crate) struct GatewayListenerInvalid {
        code: "LSN003", name: "gateway-listener-invalid", layer: Layer::Listener, severity: Severity::Error,
    }
}

impl GatewayListenerInvalid {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for f in cx.model.gateway.faults(cx.graph) {
            let elsewhere = matches!(
                f.cond.reason,
                Reason::ProtocolConflict | Reason::HostnameConflict | Reason::NoValidCACertificate
            );
            if elsewhere
                || !(f.cond.listener.is_some()
                    && (f.cond.condition_type == ConditionType::Accepted
                        || (f.cond.condition_type == ConditionType::ResolvedRefs
                            && f.cond.reason == Reason::InvalidRouteKinds)))
            {
                continue;
            }

            let fix = match f.cond.reason {
                Reason::UnsupportedProtocol => "use HTTP, HTTPS, TLS, TCP or UDP (or a domain-prefixed protocol your implementation documents)",
                Reason::UnsupportedValue => "use tls.mode Passthrough only with protocol TLS; drop tls from HTTP/TCP/UDP listeners",
                Reason::InvalidRouteKinds => "list only route kinds the protocol carries: HTTPRoute/GRPCRoute on HTTP(S), TLSRoute on TLS, TCPRoute on TCP/TLS Terminate, UDPRoute on UDP",
                _ if f.cond.message.contains("requires tls") || f.cond.message.contains("without tls") => {
                    "add tls with certificateRefs (HTTPS, TLS Terminate) or tls.mode: Passthrough (TLS)"
                }
                _ => "give every listener a unique name",
            };
            crate::gateway_api::predicted(cx, out, &f, self.meta().severity).fix(fix).emit();
        }
    }
}
