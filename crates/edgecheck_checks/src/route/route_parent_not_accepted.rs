use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, Check as _, CheckContext};
use crate::model::condition::{ConditionType, Reason};

declare_check! {
    /// ## What it checks
    /// A route parentRef the computed model does not accept (`Accepted=False`): `NoMatchingParent`
    /// (the Gateway is missing under the absence rule, or no listener has that `sectionName`/`port`),
    /// `NotAllowedByListeners` (the listener's protocol, TLS mode or `allowedRoutes.kinds` does not
    /// take the route's kind, e.g. a TLSRoute on an HTTPS listener (a TLSRoute on a TLS Terminate
    /// listener is RTE006's); or
    /// `allowedRoutes.namespaces` (Same, Selector against Namespace labels) excludes its namespace —
    /// a selector whose Namespace is not in the inventory is not guessed), or
    /// `NoMatchingListenerHostname` (no route hostname intersects the listener hostname).
    ///
    /// ## Why it matters
    /// The route is not attached to that parent: its hosts are not served there.
    ///
    /// ## Example
    /// An HTTPRoute in `shop` on a listener with `allowedRoutes.namespaces.from: Same` of a Gateway in
    /// `edge`.
    ///
    /// ## How to fix
    /// Fix the parentRef, allow the namespace or kind on the listener, or align the hostnames.
    pub(crate) struct RouteParentNotAccepted {
        code: "RTE001", name: "route-parent-not-accepted", layer: Layer::Route, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl RouteParentNotAccepted {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for f in cx.model.gateway.faults(cx.graph) {
            if !(f.cond.parent.is_some() && f.cond.condition_type == ConditionType::Accepted) {
                continue;
            }

            let fix = match f.cond.reason {
                Reason::NoMatchingParent => "point parentRefs at an existing Gateway and listener (sectionName, port)",
                Reason::NoMatchingListenerHostname => "use a route hostname inside the listener hostname (a wildcard covers one or more labels in front)",
                _ => "allow the route on the listener (allowedRoutes.namespaces / kinds) or attach it to a listener of the right protocol and TLS mode",
            };
            crate::gateway_api::predicted(cx, out, &f, self.meta().severity).fix(fix).emit();
        }
    }
}
