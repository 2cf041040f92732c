use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A live condition of a GatewayClass, Gateway (or listener), ListenerSet or BackendTLSPolicy whose
    /// status differs from the one computed from the manifests (the `expected_conditions`). Dumps and
    /// clusters only.
    ///
    /// ## Why it matters
    /// Either the status is stale, or the controller lacks a feature (or reads the spec differently):
    /// what the manifests promise is not what runs.
    ///
    /// ## Example
    /// Listener `https` `Programmed=True` although its certificate Secret is missing from a full dump.
    ///
    /// ## How to fix
    /// Let the controller reconcile; if it persists, check the implementation's conformance report.
    pub(crate) struct GatewayStatusUnexpected {
        code: "LSN008", name: "gateway-status-unexpected", layer: Layer::Listener, severity: Severity::Warning,
    }
}

impl GatewayStatusUnexpected {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for d in cx.model.live.disagreements.iter().filter(|d| !d.route) {
            crate::gateway_api::disagreement(cx, out, d)
                .fix("if the status is stale, let the controller reconcile; otherwise the controller lacks a feature or behaves differently from the spec: check its conformance report")
                .emit();
        }
    }
}
