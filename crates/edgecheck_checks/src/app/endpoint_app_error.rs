use edgecheck_core::observation::HttpOutcome;
use edgecheck_core::{Findings, Layer, Severity};

use crate::app::endpoint_proxy_reply::identify;
use crate::framework::{declare_check, CheckContext};
use crate::observed::{report, transport_ok};

declare_check! {
    /// ## What it checks
    /// An endpoint whose last answer (after redirects) is an HTTP 5xx that no proxy wrote: not a
    /// default page of nginx, Envoy, Traefik or a cloud load balancer (those are
    /// `endpoint-proxy-reply`). The request crossed every layer and the application itself failed.
    ///
    /// ## Why it matters
    /// DNS, the listener, TLS, the route and the backend all worked: the fault is in the
    /// application (a crash, a dependency down, a bad configuration), so the network is not where
    /// to look.
    ///
    /// ## Example
    /// `GET https://shop.example.com/ over HTTP/2: 500 with 31 bytes: {"error":"database unavailable"}`.
    ///
    /// ## How to fix
    /// Read the application's logs for that request; check the dependencies and configuration it
    /// reports.
    pub(crate) struct EndpointAppError {
        code: "APP010", name: "endpoint-app-error", layer: Layer::App, severity: Severity::Error,
    }
}

impl EndpointAppError {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for o in cx.observations.iter().filter(|o| transport_ok(o)) {
            let Some(h) = o.http.last().filter(|h| h.outcome == HttpOutcome::Response) else { continue };
            let Some(status) = h.status.filter(|s| (500..600).contains(s)) else { continue };
            if o.http.iter().any(|h| identify(h).is_some()) {
                continue;
            }
            let mut b = report(out, o).message(format!("the application answers {status}")).evidence(format!(
                "GET {} over {}: {status} with {} bytes: {:?}",
                h.url,
                h.protocol,
                h.body_len,
                h.body_prefix.chars().take(120).collect::<String>()
            ));
            if let Some(s) = h.header("server") {
                b = b.evidence(format!("server: {s}"));
            }
            b.fix("read the application's logs for this request; the path to it works").emit();
        }
    }
}
