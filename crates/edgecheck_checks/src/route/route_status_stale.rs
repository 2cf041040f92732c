use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A route whose parent conditions' `observedGeneration` is behind `metadata.generation`. Dumps
    /// and clusters only.
    ///
    /// ## Why it matters
    /// The controller has not processed the current rules: what is served is an older version, and
    /// the conditions may hide the current fault.
    ///
    /// ## Example
    /// HTTPRoute `shop/web` at generation 7 with `Accepted` observed at generation 5.
    ///
    /// ## How to fix
    /// Check that the Gateway's controller runs and reconciles.
    pub(crate) struct RouteStatusStale {
        code: "RTE004", name: "route-status-stale", layer: Layer::Route, severity: Severity::Warning,
    }
}

impl RouteStatusStale {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for st in cx.model.live.stale.iter().filter(|st| st.route) {
            crate::gateway_api::stale(cx, out, st, "the controller has not reconciled the route since it changed, so its Accepted and ResolvedRefs conditions may be out of date")
                .fix("check that the controller of the parent Gateway runs and reconciles (its logs, its leader election); the route\'s conditions are stale until it does").emit();
        }
    }
}
