use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A live Gateway API condition that is `False` with a reason that puts the fault at the backend layer:
    /// `BackendNotFound`, `InvalidKind` (route `ResolvedRefs`), `UnsupportedProtocol` (ResolvedRefs).
    /// Dumps and clusters only.
    ///
    /// ## Why it matters
    /// Requests for the rule fail (500 for HTTPRoute): there is nothing to send them to.
    ///
    /// ## Example
    /// HTTPRoute `shop/web` `ResolvedRefs=False BackendNotFound`: Service `shop/web-v2` not found.
    ///
    /// ## How to fix
    /// Create the Service (find what should have made it: a failed Job, a failed sync) or fix the name.
    pub(crate) struct RouteStatusBackendConditionFalse {
        code: "BKD091", name: "route-status-backend-condition-false", layer: Layer::Backend, severity: Severity::Error,
    }
}

impl RouteStatusBackendConditionFalse {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, c) in cx.model.live.faults(Layer::Backend) {
            crate::gateway_api::live_fault(cx, out, id, c)
                .fix("create the Service (or fix the backendRef), or use a backend kind and protocol the implementation supports")
                .emit();
        }
    }
}
