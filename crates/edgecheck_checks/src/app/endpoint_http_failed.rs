use edgecheck_core::observation::HttpOutcome;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::{report, transport_ok};

declare_check! {
    /// ## What it checks
    /// An endpoint whose transport worked (TCP, and TLS for TLS targets) but whose HTTP request got no
    /// usable response: a timeout, a malformed reply (giant or broken headers), a dropped connection,
    /// or a status whose body stalled or broke off short of its Content-Length. The first exchange
    /// of the redirect chain that failed is reported (a redirect to a dead URL included).
    ///
    /// ## Why it matters
    /// The proxy accepted the connection but nothing answers behind it, or something that is not HTTP
    /// listens on the port.
    ///
    /// ## Example
    /// `GET https://shop.example.com/ over HTTP/2: Timeout (no response within 5000 ms)`.
    ///
    /// ## How to fix
    /// Check the proxy's logs and the backend it routes to; make sure the port speaks HTTP.
    pub(crate) struct EndpointHttpFailed {
        code: "APP004", name: "endpoint-http-failed", layer: Layer::App, severity: Severity::Error,
    }
}

impl EndpointHttpFailed {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for o in cx.observations.iter().filter(|o| transport_ok(o)) {
            let Some((i, h)) = o.http.iter().enumerate().find(|(_, h)| h.outcome != HttpOutcome::Response) else {
                continue;
            };
            let what = match (h.status, h.outcome) {
                (Some(s), HttpOutcome::Timeout) => format!("a {s} response whose body stalled"),
                (Some(s), _) => format!("a {s} response whose body broke off"),
                (None, HttpOutcome::Timeout) => "no HTTP response in time".into(),
                (None, HttpOutcome::Malformed) => "a malformed HTTP response".into(),
                (None, _) => "no HTTP response".into(),
            };
            let message = if i == 0 {
                format!("the endpoint gave {what}")
            } else {
                format!("the redirect to {} gave {what}", h.url)
            };
            report(out, o)
                .message(message)
                .evidence(format!(
                    "GET {} over {}: {:?} ({})",
                    h.url,
                    h.protocol,
                    h.outcome,
                    h.detail.as_deref().unwrap_or("-")
                ))
                .fix("check the proxy logs and the backend behind it")
                .emit();
        }
    }
}
