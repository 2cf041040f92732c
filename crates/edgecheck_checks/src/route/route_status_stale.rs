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
        crate::model::gateway_live::report_stale(cx, out, true);
    }
}
