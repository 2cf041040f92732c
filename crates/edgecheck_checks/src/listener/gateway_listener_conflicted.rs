use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, Check as _, CheckContext};
use crate::model::condition::{ConditionType, Reason};

declare_check! {
    /// ## What it checks
    /// Listeners of one Gateway (with its accepted ListenerSets) that conflict on a port, as the
    /// computed `Conflicted=True` condition says: `ProtocolConflict` (HTTP next to HTTPS/TLS, TCP next
    /// to anything on the same transport; TLS Passthrough next to a terminating listener where the
    /// implementation is known not to support `TLSRouteModeMixed`: its GatewayClass's
    /// `status.supportedFeatures`, else its conformance report) or `HostnameConflict` (same port,
    /// compatible protocols, same hostname or both without one). A ListenerSet's listener loses to the
    /// Gateway's own and to older ListenerSets'; creation times are known in dumps and clusters, in Git
    /// the order is by name (the message says so).
    ///
    /// ## Why it matters
    /// A conflicted listener is not accepted and not programmed (`Accepted=False`, `Programmed=False`):
    /// the routes meant for it serve nothing, or one of the two wins depending on the controller.
    ///
    /// ## Example
    /// Listener `web` (HTTP, 443) and `websecure` (HTTPS, 443) on Gateway `edge/public`.
    ///
    /// ## How to fix
    /// Put each protocol on its own port, or give the listeners distinct hostnames.
    pub(crate) struct GatewayListenerConflicted {
        code: "LSN001", name: "gateway-listener-conflicted", layer: Layer::Listener, severity: Severity::Error,
    }
}

impl GatewayListenerConflicted {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for f in cx.model.gateway.faults(cx.graph) {
            if !(f.cond.listener.is_some() && f.cond.condition_type == ConditionType::Conflicted) {
                continue;
            }

            let fix = match f.cond.reason {
                Reason::ProtocolConflict if f.cond.message.contains("TLSRouteModeMixed") => {
                    "give the Passthrough listener its own port, or its own Gateway (its own address)"
                }
                Reason::ProtocolConflict => {
                    "move one listener to another port, or (HTTP next to HTTPS/TLS) to its own Gateway"
                }
                _ => "give each listener on the port a distinct hostname, or move one to another port",
            };
            crate::gateway_api::predicted(cx, out, &f, self.meta().severity).fix(fix).emit();
        }
    }
}
