use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A live Gateway API condition (GatewayClass, Gateway, its listeners, ListenerSet, a route's
    /// parent status, a policy) that is `False` (or `Conflicted=True`) with a reason that puts the
    /// fault at the listener layer: `AddressNotAssigned`,
    /// `ListenersNotValid`, `ProtocolConflict`, `HostnameConflict`, `UnsupportedProtocol`,
    /// `InvalidParameters`, `Pending`, ... Dumps and clusters only.
    ///
    /// ## Why it matters
    /// The controller says the entry is not programmed: nothing behind it is served.
    ///
    /// ## Example
    /// Gateway `edge/public` `Programmed=False AddressNotAssigned` (no LoadBalancer IP pool).
    ///
    /// ## How to fix
    /// Fix what the reason names: add an IP pool, separate conflicting listeners, fix the class.
    pub(crate) struct GatewayStatusConditionFalse {
        code: "LSN005", name: "gateway-status-condition-false", layer: Layer::Listener, severity: Severity::Error,
    }
}

impl GatewayStatusConditionFalse {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, c) in cx.model.live.faults(Layer::Listener) {
            crate::gateway_api::live_fault(cx, out, id, c)
                .fix("fix what the condition's reason names (a missing address pool, a conflicting or invalid listener, the class's parameters)")
                .emit();
        }
    }
}
