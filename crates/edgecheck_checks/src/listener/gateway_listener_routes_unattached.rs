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
        for u in &cx.model.live.unattached {
            let obj = cx.graph.obj(u.id);
            out.at(obj, &format!("status.listeners[{}].attachedRoutes", u.index))
                .message(format!(
                    "{} listener `{}` reports attachedRoutes 0, but {} route(s) in the inventory attach to it",
                    obj.to_ref(),
                    u.listener,
                    u.computed
                ))
                .evidence(format!("status.listeners[{}].attachedRoutes: 0", u.index))
                .evidence(format!("computed attachedRoutes: {}", u.computed))
                .fix("apply the routes (are they synced?) and check their parent status; a controller that has not reconciled them reports 0")
                .emit();
        }
    }
}
