use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A live Gateway or ListenerSet listener whose status says `attachedRoutes: 0` while routes in the
    /// inventory attach to it by the computed model (parentRef, sectionName/port, kind, namespace,
    /// hostname all fit). Dumps and clusters only.
    ///
    /// ## Why it matters
    /// The controller serves nothing on that listener: the routes were not applied, are rejected for a
    /// reason the manifests do not show, or the controller has not reconciled them.
    ///
    /// ## Example
    /// Listener `https` of Gateway `edge/public` with `attachedRoutes: 0` and HTTPRoute `shop/web`
    /// attached to it in the dump.
    ///
    /// ## How to fix
    /// Check the routes' `status.parents` and the controller's logs; sync the routes.
    pub(crate) struct GatewayListenerRoutesUnattached {
        code: "LSN007", name: "gateway-listener-routes-unattached", layer: Layer::Listener, severity: Severity::Warning,
    }
}

impl GatewayListenerRoutesUnattached {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        crate::model::gateway_live::report_unattached(cx, out);
    }
}
