use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A live Gateway API condition that is `False` with a reason that puts the fault at the route layer:
    /// `NoMatchingParent`, `NotAllowedByListeners`, `NoMatchingListenerHostname`, `RefNotPermitted`,
    /// `UnsupportedRouteKind`. Dumps and clusters only.
    ///
    /// ## Why it matters
    /// The route is not attached there (or a reference is refused): its hosts are not served.
    ///
    /// ## Example
    /// HTTPRoute `shop/web` parent `public` `Accepted=False NotAllowedByListeners`.
    ///
    /// ## How to fix
    /// Fix the parentRef, allow the namespace or kind on the listener, align hostnames.
    pub(crate) struct RouteStatusConditionFalse {
        code: "RTE003", name: "route-status-condition-false", layer: Layer::Route, severity: Severity::Error,
    }
}

impl RouteStatusConditionFalse {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, c) in cx.model.live.faults(Layer::Route) {
            crate::gateway_api::live_fault(cx, out, id, c)
                .fix("fix the parentRef, the listener's allowedRoutes or the hostnames; add a ReferenceGrant for cross-namespace references")
                .emit();
        }
    }
}
