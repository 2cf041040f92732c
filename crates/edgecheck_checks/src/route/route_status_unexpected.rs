use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A live route parent condition whose status differs from the one computed from the manifests
    /// (same parentRef and type). Dumps and clusters only.
    ///
    /// ## Why it matters
    /// Either the status is stale or the controller lacks a feature (e.g. it accepts a route the spec
    /// rejects, or rejects a ReferenceGrant-backed reference): behaviour will change with the controller.
    ///
    /// ## Example
    /// HTTPRoute `shop/web` `Accepted=True` on a listener whose `allowedRoutes.namespaces.from` is Same.
    ///
    /// ## How to fix
    /// Let the controller reconcile; if it persists, check the implementation's conformance report.
    pub(crate) struct RouteStatusUnexpected {
        code: "RTE005", name: "route-status-unexpected", layer: Layer::Route, severity: Severity::Warning,
    }
}

impl RouteStatusUnexpected {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for d in cx.model.live.disagreements.iter().filter(|d| d.route) {
            crate::gateway_api::disagreement(cx, out, d)
                .fix("if the status is stale, let the controller reconcile; otherwise the controller lacks a feature or behaves differently from the spec: check its conformance report")
                .emit();
        }
    }
}
