//! Checks over live observations of endpoints (`edgecheck probe`): each reports the first layer that
//! fails for a target, with what was observed as evidence. A later layer is judged only when the
//! earlier ones worked, so one broken endpoint gives one root cause, not a cascade.

// --- probe (DNS100–DNS149, LSN100–LSN149, TLS100–TLS149, APP001–APP099) by h-probe
mod backend_proxy_no_endpoints;
mod dns_answer_not_entry;
mod dns_name_unresolved;
mod dns_resolvers_disagree;
mod endpoint_app_error;
mod endpoint_app_not_found;
mod endpoint_connect_failed;
mod endpoint_grpc_http1_only;
mod endpoint_http_failed;
mod endpoint_proxy_reply;
pub use endpoint_proxy_reply::identify as identify_proxy_reply;
mod endpoint_redirect_unsafe;
mod gitops_green_data_plane_red;
mod route_proxy_not_found;
mod tls_cert_expiring;
mod tls_cert_invalid;
mod tls_handshake_failed;
mod tls_legacy_accepted;
mod tls_served_cert_stale;

use edgecheck_core::observation::{DnsObservation, HandshakeOutcome, TargetObservation};
use edgecheck_core::{FindingBuilder, Findings, ObjectRef};

use crate::framework::Check;

/// The checks over observations, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    &endpoint_proxy_reply::EndpointProxyReply,
    &backend_proxy_no_endpoints::BackendProxyNoEndpoints,
    &endpoint_redirect_unsafe::EndpointRedirectUnsafe,
    &endpoint_grpc_http1_only::EndpointGrpcHttp1Only,
    &endpoint_http_failed::EndpointHttpFailed,
    &endpoint_app_error::EndpointAppError,
    &endpoint_app_not_found::EndpointAppNotFound,
    &route_proxy_not_found::RouteProxyNotFound,
    &gitops_green_data_plane_red::GitopsGreenDataPlaneRed,
    &dns_answer_not_entry::DnsAnswerNotEntry,
    &dns_name_unresolved::DnsNameUnresolved,
    &dns_resolvers_disagree::DnsResolversDisagree,
    &endpoint_connect_failed::EndpointConnectFailed,
    &tls_handshake_failed::TlsHandshakeFailed,
    &tls_cert_invalid::TlsCertInvalid,
    &tls_cert_expiring::TlsCertExpiring,
    &tls_legacy_accepted::TlsLegacyAccepted,
    &tls_served_cert_stale::TlsServedCertStale,
];

/// Starts a finding about an endpoint.
pub(super) fn report<'s, 'a>(out: &'s mut Findings<'a>, o: &TargetObservation) -> FindingBuilder<'s, 'a> {
    let name = if o.url.is_empty() { o.target.as_str() } else { o.url.as_str() };
    out.about(ObjectRef::endpoint(name), None, None)
}

/// One DNS observation as evidence.
pub(super) fn dns_evidence(d: &DnsObservation) -> String {
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
pub(super) fn transport_ok(o: &TargetObservation) -> bool {
    o.error.is_none()
        && o.connected()
        && match &o.tls {
            Some(t) => t.outcome == HandshakeOutcome::Completed,
            None => !matches!(o.scheme.as_str(), "https" | "grpcs"),
        }
}

/// Unix seconds as a date.
pub(super) fn date(t: i64) -> String {
    edgecheck_core::cert::format_time(t)
}

// Fixtures: `resources/fixtures/<layer>/<CODE>_<case>.yaml` with an `<...>.observations.json`
// sidecar, run by each layer's fixture test (dns, listener, tls, app).
