use edgecheck_core::observation::{HttpObservation, HttpOutcome};
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::{report, transport_ok};

declare_check! {
    /// ## What it checks
    /// A response that comes from a proxy, not from the application: Traefik's `404 page not found`
    /// (no router matched) and its 21-byte `Internal Server Error` 500 (the backend could not be
    /// reached, e.g. h2c to an HTTP/1.1 backend), nginx's default error pages, Envoy's
    /// `no healthy upstream`, cloud load balancer 502/503 pages, and an authentication portal's 302
    /// to a login page.
    ///
    /// ## Why it matters
    /// The status code alone hides where the request stopped. A proxy-generated page means routing or
    /// the backend failed; the application never saw the request.
    ///
    /// ## Example
    /// `HTTP/1.1 404, 19 bytes: "404 page not found"` — Traefik found no router for this host and path.
    ///
    /// ## How to fix
    /// 404 from the proxy: check the route's host and path. 502/503/no healthy upstream: check the
    /// Service's endpoints and readiness. Traefik 500: check the backend protocol (`h2c` vs HTTP/1.1).
    /// Login redirect: the probe is not authenticated; exempt health paths or probe with credentials.
    pub(crate) struct EndpointProxyReply {
        code: "APP001", name: "endpoint-proxy-reply", layer: Layer::App, severity: Severity::Error, also: [Severity::Warning],
    }
}

/// Which proxy produced this reply, and what it means.
pub fn identify(h: &HttpObservation) -> Option<(&'static str, Severity)> {
    let status = h.status?;
    let body = h.body_prefix.trim();
    let server = h.header("server").unwrap_or_default().to_ascii_lowercase();
    let low = body.to_ascii_lowercase();
    if status == 404 && body == "404 page not found" {
        return Some(("Traefik's default 404: no router matched this host and path", Severity::Error));
    }
    if status == 500 && h.body_len == 21 && body == "Internal Server Error" {
        return Some((
            "Traefik's 500: it could not talk to the backend (often h2c offered to an HTTP/1.1 backend, or a TLS mismatch)",
            Severity::Error,
        ));
    }
    if low.contains("no healthy upstream") {
        return Some(("Envoy: no healthy upstream, the backend has no ready endpoints", Severity::Error));
    }
    if (low.contains("<center>nginx") || server.starts_with("nginx")) && low.contains(&format!("<title>{status} ")) {
        let what = match status {
            404 => "nginx's default 404: no server or location matched (ingress-nginx default backend)",
            502 => "nginx's 502: the upstream refused or reset the connection",
            503 => "nginx's 503: no endpoints for the upstream Service",
            504 => "nginx's 504: the upstream did not answer in time",
            _ => "an nginx default error page, not the application",
        };
        return Some((what, Severity::Error));
    }
    if matches!(status, 502 | 503)
        && (server.contains("awselb")
            || server.contains("google frontend")
            || low.contains("the server encountered a temporary error")
            || h.header("via").is_some_and(|v| v.contains("google")))
    {
        return Some(("a cloud load balancer's error page: no healthy backend behind it", Severity::Error));
    }
    if matches!(status, 302 | 303 | 307) {
        let loc = h.header("location").unwrap_or_default().to_ascii_lowercase();
        if ["/login", "/signin", "/sign_in", "/oauth2/", "/auth", "/sso", "/dex/"].iter().any(|p| loc.contains(p)) {
            return Some((
                "an authentication portal's redirect to its login page; the app was not reached",
                Severity::Warning,
            ));
        }
    }
    None
}

impl EndpointProxyReply {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for o in cx.observations.iter().filter(|o| transport_ok(o)) {
            let Some(h) = o.http.iter().find(|h| h.outcome == HttpOutcome::Response && identify(h).is_some()) else {
                continue;
            };
            let Some((what, sev)) = identify(h) else { continue };
            let mut b = report(out, o).message(format!("the reply is {what}")).severity(sev).evidence(format!(
                "GET {} over {}: {} with {} bytes: {:?}",
                h.url,
                h.protocol,
                h.status.unwrap_or(0),
                h.body_len,
                h.body_prefix.chars().take(120).collect::<String>()
            ));
            for k in ["server", "location", "via"] {
                if let Some(v) = h.header(k) {
                    b = b.evidence(format!("{k}: {v}"));
                }
            }
            b.fix("look at the route and the backend's endpoints; the application did not answer").emit();
        }
    }
}
