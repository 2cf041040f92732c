use edgecheck_core::{Findings, Layer, Severity};

use super::{report, transport_ok};
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// The redirects an endpoint answers with: a redirect loop; an HTTP→HTTPS redirect that is not
    /// permanent (302/303/307 instead of 301/308); a Location that keeps `http` from an HTTPS page or
    /// an HTTP→HTTPS upgrade; a Location that changes the host.
    ///
    /// ## Why it matters
    /// A loop never reaches the app (typically TLS terminated at the load balancer while the proxy
    /// redirects to HTTPS again). Temporary upgrades are not cached and leak every first request in
    /// plaintext; `http` Locations downgrade; host changes send users elsewhere.
    ///
    /// ## Example
    /// `http://shop.example.com/ -> 302 https://shop.example.com/`.
    ///
    /// ## How to fix
    /// Use 301/308 for the HTTPS upgrade, keep the host, and for loops make the proxy trust
    /// `X-Forwarded-Proto` from the load balancer (or terminate TLS in one place).
    pub(crate) struct EndpointRedirectUnsafe {
        code: "APP002", name: "endpoint-redirect-unsafe", layer: Layer::App, severity: Severity::Warning,
    }
}

fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let auth = rest.split(['/', '?']).next().unwrap_or_default();
    match auth.rsplit_once(':') {
        Some((h, p)) if p.bytes().all(|b| b.is_ascii_digit()) && !h.ends_with(']') || auth.starts_with('[') => {
            auth.rsplit_once(':').map_or(auth, |(h, _)| h)
        }
        _ => auth,
    }
}

impl EndpointRedirectUnsafe {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for o in cx.observations.iter().filter(|o| transport_ok(o)) {
            let mut hops = Vec::new();
            let mut problems: Vec<(String, Severity)> = Vec::new();
            for (i, h) in o.http.iter().enumerate() {
                let (Some(status), Some(loc)) = (h.status, h.header("location")) else { continue };
                if !(300..400).contains(&status) || super::endpoint_proxy_reply::identify(h).is_some() {
                    continue; // an auth portal's login redirect is APP001's
                }
                let next = o.http.get(i + 1).map_or(loc.to_string(), |n| n.url.clone());
                hops.push(format!("{} -> {status} {loc}", h.url));
                let from_http = h.url.starts_with("http://");
                let to_https = next.starts_with("https://");
                if from_http && to_https && !matches!(status, 301 | 308) {
                    problems.push((
                        format!("the HTTP→HTTPS redirect is temporary ({status}); use 301 or 308"),
                        Severity::Warning,
                    ));
                }
                if h.url.starts_with("https://") && next.starts_with("http://") {
                    problems.push((format!("an HTTPS page redirects to plain http ({loc})"), Severity::Warning));
                }
                if !host_of(&h.url).eq_ignore_ascii_case(host_of(&next)) {
                    problems.push((format!("the redirect changes the host to {}", host_of(&next)), Severity::Warning));
                }
                if o.http[..=i].iter().any(|p| p.url == next)
                    || (i + 1 < o.http.len() && o.http[..=i].iter().any(|p| p.url == o.http[i + 1].url))
                {
                    problems.insert(0, (format!("redirect loop: {next} was already requested"), Severity::Error));
                    break;
                }
            }
            let Some((first, _)) = problems.first().cloned() else { continue };
            let sev = problems.iter().map(|p| p.1).min().unwrap_or(Severity::Warning);
            let mut b = report(out, o).message(first).severity(sev);
            for (p, _) in problems.iter().skip(1) {
                b = b.evidence(p.clone());
            }
            for h in hops {
                b = b.evidence(h);
            }
            b.fix("redirect once, permanently (301/308), to https on the same host").emit();
        }
    }
}
