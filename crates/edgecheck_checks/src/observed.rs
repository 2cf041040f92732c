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
