use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::{report, transport_ok};

declare_check! {
    /// ## What it checks
    /// The redirects an endpoint answers with: a redirect loop; an HTTP→HTTPS redirect that is not
    /// permanent (302/303/307 instead of 301/308); a Location that keeps `http` from an HTTPS page or
    /// an HTTP→HTTPS upgrade; a Location that changes the host; a chain longer than the probe follows
    /// (`--max-redirects`), whose last answer still redirects.
    ///
    /// ## Why it matters
    /// A loop, or a chain longer than clients follow, never reaches the app (typically TLS terminated at the load balancer while the proxy
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
        code: "APP002", name: "endpoint-redirect-unsafe", layer: Layer::App, severity: Severity::Warning, also: [Severity::Error],
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
                if !(300..400).contains(&status) || crate::app::endpoint_proxy_reply::identify(h).is_some() {
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
                // A relative Location stays on the host; a scheme-relative one (`//host/`) names one.
                let target = next.strip_prefix("//").map_or(next.clone(), |r| format!("https://{r}"));
                if target.contains("://") && !host_of(&h.url).eq_ignore_ascii_case(host_of(&target)) {
                    problems
                        .push((format!("the redirect changes the host to {}", host_of(&target)), Severity::Warning));
                }
                if o.http[..=i].iter().any(|p| p.url == next)
                    || (i + 1 < o.http.len() && o.http[..=i].iter().any(|p| p.url == o.http[i + 1].url))
                {
                    problems.insert(0, (format!("redirect loop: {next} was already requested"), Severity::Error));
                    break;
                }
            }
            // The chain still redirects where the probe stopped following it (--max-redirects).
            let looped = problems.iter().any(|p| p.0.starts_with("redirect loop"));
            if let Some(last) = o.http.last().filter(|_| !looped && hops.len() > 1) {
                if last.status.is_some_and(|s| (300..400).contains(&s)) && last.header("location").is_some() {
                    problems.insert(
                        0,
                        (
                            format!(
                                "the redirect limit was exceeded: {} redirects and the last still redirects",
                                hops.len()
                            ),
                            Severity::Error,
                        ),
                    );
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
