use edgecheck_core::{Findings, Layer, Severity};

use crate::app::endpoint_proxy_reply::identify;
use crate::framework::{declare_check, CheckContext};
use crate::observed::report;

declare_check! {
    /// ## What it checks
    /// A probed endpoint whose host an object claims answered 404 with a page no proxy writes: the
    /// request crossed the proxy and the route, and the application itself has nothing at that path.
    ///
    /// ## Why it matters
    /// A 404 looks the same in a browser whether the proxy or the application sent it; they need
    /// opposite fixes. This one is the application's: a wrong path prefix (a route that does not
    /// strip or rewrite it), a base URL setting, or simply no page there.
    ///
    /// ## Example
    /// `GET https://shop.example.com/api/` → 404 `{"detail":"Not Found"}` from the application
    /// behind Ingress `shop/shop`.
    ///
    /// ## How to fix
    /// Check the application's base path against the route's path (rewrite or strip the prefix, or
    /// set the application's base URL), or probe a path the application serves.
    pub(crate) struct EndpointAppNotFound {
        code: "APP005", name: "endpoint-app-not-found", layer: Layer::App, severity: Severity::Warning,
    }
}

impl EndpointAppNotFound {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (s, o, h) in crate::observed::not_found(cx) {
            if identify(h).is_some() || h.envoy_no_route() {
                continue;
            }
            let Some(route) = s.route else { continue };
            let r = cx.graph.obj(route);
            report(out, o)
                .message(format!("the application behind {} answers 404 for {}", r.to_ref(), if o.path.is_empty() { "/" } else { &o.path }))
                .evidence(format!(
                    "GET {} over {}: 404 with {} bytes: {:?}",
                    h.url,
                    h.protocol,
                    h.body_len,
                    h.body_prefix.chars().take(120).collect::<String>()
                ))
                .related(r.to_ref())
                .fix("check the application's base path against the route's path (rewrite or strip the prefix), or probe a path it serves")
                .emit();
        }
    }
}
