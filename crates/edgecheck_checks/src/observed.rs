//! What the checks over live observations share (`edgecheck probe`, `trace`): a finding about an endpoint,
//! DNS answers as evidence, whether a target got through transport and TLS. Those checks live in the folder
//! of the layer they report; each judges a later layer only when the earlier ones worked, so one broken
//! endpoint gives one root cause, not a cascade.

use edgecheck_core::observation::{DnsObservation, HandshakeOutcome, TargetObservation};
use edgecheck_core::{FindingBuilder, Findings, ObjectRef};

/// Starts a finding about an endpoint.
pub(crate) fn report<'s, 'a>(out: &'s mut Findings<'a>, o: &TargetObservation) -> FindingBuilder<'s, 'a> {
    let name = if o.url.is_empty() { o.target.as_str() } else { o.url.as_str() };
    out.about(ObjectRef::endpoint(name), None, None)
}

/// One DNS observation as evidence.
pub(crate) fn dns_evidence(d: &DnsObservation) -> String {
    let mut s = format!("dns {} {}: {:?}", d.resolver, d.name, d.outcome);
    if !d.cnames.is_empty() {
        s.push_str(&format!(", CNAME {}", d.cnames.join(", ")));
    }
    if !d.addresses.is_empty() {
        s.push_str(&format!(", {}", d.addresses.join(" ")));
    }
    if let Some(x) = &d.detail {
        s.push_str(&format!(" ({x})"));
    }
    s
}

/// The target reached the TLS layer and completed it (or is plaintext and connected).
pub(crate) fn transport_ok(o: &TargetObservation) -> bool {
    o.error.is_none()
        && o.connected()
        && match &o.tls {
            Some(t) => t.outcome == HandshakeOutcome::Completed,
            None => !matches!(o.scheme.as_str(), "https" | "grpcs"),
        }
}

/// Unix seconds as a date.
pub(crate) fn date(t: i64) -> String {
    edgecheck_core::cert::format_time(t)
}

/// The served endpoints that answered 404 to the request (transport and TLS fine, the last response a 404),
/// with what serves them: a proxy's "no route" page or the application's own 404 (APP005, RTE100 tell which).
pub(crate) fn not_found<'c>(
    cx: &'c crate::CheckContext<'_>,
) -> impl Iterator<
    Item = (&'c crate::diagnose::Serving, &'c TargetObservation, &'c edgecheck_core::observation::HttpObservation),
> {
    cx.serving.iter().filter_map(|s| {
        let o = cx.observations.get(s.observation)?;
        if !transport_ok(o) {
            return None;
        }
        let h = o
            .http
            .last()
            .filter(|h| h.outcome == edgecheck_core::observation::HttpOutcome::Response && h.status == Some(404))?;
        Some((s, o, h))
    })
}
