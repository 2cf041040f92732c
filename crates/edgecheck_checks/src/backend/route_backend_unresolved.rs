use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, Check as _, CheckContext};
use crate::model::condition::{ConditionType, Reason};

declare_check! {
    /// ## What it checks
    /// A route backendRef the computed model cannot resolve (`ResolvedRefs=False`): `BackendNotFound`
    /// (the Service is not in the inventory, under the absence rule) or `InvalidKind`: a kind no
    /// implementation routes to, or a kind one implementation defines for itself (Traefik's
    /// `TraefikService`, Envoy Gateway's `Backend`, Istio's `Hostname`) on a parent whose GatewayClass
    /// names another implementation (the table of implementations in docs/design.md). When the parent's
    /// implementation is unknown, every implementation's kinds are accepted. Reported once per route,
    /// on its first parent that rejects it.
    ///
    /// ## Why it matters
    /// Requests for that rule get a 500 (HTTPRoute) or a reset; often the Service is missing because
    /// the chart or Job that creates it failed earlier.
    ///
    /// ## Example
    /// HTTPRoute `shop/web` with `backendRefs: [{name: web-v2}]` and no Service `shop/web-v2`, in a
    /// namespace whose other Services are in the repository.
    ///
    /// ## How to fix
    /// Create the Service, or fix the name.
    pub(crate) struct RouteBackendUnresolved {
        code: "BKD090", name: "route-backend-unresolved", layer: Layer::Backend, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl RouteBackendUnresolved {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let mut seen = std::collections::BTreeSet::new();
        for f in cx.model.gateway.faults(cx.graph) {
            if !(f.cond.parent.is_some()
                && f.cond.condition_type == ConditionType::ResolvedRefs
                && matches!(f.cond.reason, Reason::BackendNotFound | Reason::InvalidKind | Reason::UnsupportedProtocol))
            {
                continue;
            }
            if !seen.insert(f.id) {
                continue;
            }
            let fix = if f.cond.reason == Reason::InvalidKind {
                "point the backendRef at a Service (or a kind your implementation documents)"
            } else {
                "create the Service, or fix the backendRef name and namespace"
            };
            crate::gateway_api::predicted(cx, out, &f, self.meta().severity).fix(fix).emit();
        }
    }
}
