use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A GatewayClass, Gateway, ListenerSet or BackendTLSPolicy whose `status.observedGeneration` or a
    /// condition's `observedGeneration` is behind `metadata.generation`. Dumps and clusters only.
    ///
    /// ## Why it matters
    /// The controller has not reconciled the current spec (it is down, lagging, or does not own the
    /// class): the conditions describe an older spec and may hide the current fault.
    ///
    /// ## Example
    /// Gateway `edge/public` at generation 4 with `Programmed` observed at generation 2.
    ///
    /// ## How to fix
    /// Check that the class's controller runs and reconciles.
    pub(crate) struct GatewayStatusStale {
        code: "LSN006", name: "gateway-status-stale", layer: Layer::Listener, severity: Severity::Warning,
    }
}

impl GatewayStatusStale {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for st in cx.model.live.stale.iter().filter(|st| !st.route) {
            crate::gateway_api::stale(cx, out, st, "the controller has not reconciled the current spec")
                .fix("check that the controller for this class runs and reconciles (its logs, its leader election); status conditions are stale until it does").emit();
        }
    }
}
