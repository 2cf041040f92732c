use edgecheck_core::{Findings, Layer, Severity};

use crate::app::endpoint_proxy_reply::identify;
use crate::framework::{declare_check, CheckContext};
use crate::observed::report;

declare_check! {
    /// ## What it checks
    /// A probed endpoint answered with the proxy's own 404 page (Traefik's `404 page not found`,
    /// nginx's default 404, an Envoy 404 with no body) although an object in the inventory claims
    /// the host and path.
    ///
    /// ## Why it matters
    /// The proxy has no route for the request: the claiming object never reached it. The usual
    /// reasons are an object of another class (another controller owns it), a route the Gateway did
    /// not accept, a Traefik router on another entry point, or a controller that cannot read the
    /// object (RBAC, CRD version). The application is never asked, so its logs show nothing.
    ///
    /// ## Example
    /// `GET https://shop.example.com/` → `404 page not found` (Traefik), while Ingress `shop/shop`
    /// (class `nginx`) claims shop.example.com.
    ///
    /// ## How to fix
    /// Make the controller that serves this address own the object (class, parentRefs, entry
    /// points), and check the object's status and the controller's logs for why it was not taken.
    pub(crate) struct RouteProxyNotFound {
        code: "RTE100", name: "route-proxy-not-found", layer: Layer::Route, severity: Severity::Error,
    }
}

impl RouteProxyNotFound {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (s, o, h) in crate::observed::not_found(cx) {
            let proxy = identify(h)
                .map(|(w, _)| w.to_string())
                .or_else(|| h.envoy_no_route().then(|| "Envoy's empty 404: no route matched".to_string()));
            let Some(what) = proxy else { continue };
            let Some(route) = s.route else { continue };
            let r = cx.graph.obj(route);
            report(out, o)
                .message(format!("the proxy has no route for {}{} although {} claims it", o.host, o.path, r.to_ref()))
                .evidence(format!("GET {} over {}: 404 — {what}", h.url, h.protocol))
                .evidence(format!("{} claims {}", r.to_ref(), o.host))
                .related(r.to_ref())
                .fix("make the controller that serves this address own the object (class, parentRefs, entry points); check its status and the controller's logs")
                .emit();
        }
    }
}
