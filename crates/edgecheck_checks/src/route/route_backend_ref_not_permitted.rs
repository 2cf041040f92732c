use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, Check as _, CheckContext};
use crate::model::condition::{ConditionType, Reason};

declare_check! {
    /// ## What it checks
    /// A route backendRef to another namespace with no ReferenceGrant there that allows it
    /// (`ResolvedRefs=False RefNotPermitted`, computed; reported once per route, on its first parent).
    ///
    /// ## Why it matters
    /// The implementation refuses the reference: requests to that rule fail (500 for HTTPRoute).
    ///
    /// ## Example
    /// HTTPRoute `shop/web` with `backendRefs: [{name: api, namespace: edge}]` and no ReferenceGrant in
    /// `edge` from HTTPRoute in `shop`.
    ///
    /// ## How to fix
    /// Add a ReferenceGrant in the backend's namespace, or move the route.
    pub(crate) struct RouteBackendRefNotPermitted {
        code: "RTE002", name: "route-backend-ref-not-permitted", layer: Layer::Route, severity: Severity::Error,
    }
}

impl RouteBackendRefNotPermitted {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let mut seen = std::collections::BTreeSet::new();
        for f in cx.model.gateway.faults(cx.graph) {
            if !(f.cond.parent.is_some()
                && f.cond.condition_type == ConditionType::ResolvedRefs
                && f.cond.reason == Reason::RefNotPermitted)
            {
                continue;
            }
            if !seen.insert(f.id) {
                continue;
            }
            let fix = "add a ReferenceGrant in the backend's namespace from this route kind in the route's namespace to Service";
            crate::gateway_api::predicted(cx, out, &f, self.meta().severity).fix(fix).emit();
        }
    }
}
