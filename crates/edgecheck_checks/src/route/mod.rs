//! Checks of the `route` layer.

// --- Gateway API routes (RTE001–RTE029)
mod route_backend_ref_not_permitted;
mod route_parent_not_accepted;
mod route_status_condition_false;
mod route_status_stale;
mod route_status_unexpected;
mod route_tls_terminated;
// --- classic ingress (RTE030–RTE059)
pub(crate) mod alb;
mod alb_listen_ports_missing;
mod api_version_unserved;
mod host_passthrough_conflict;
mod ingress_class_controller_mismatch;
mod ingress_class_default_missing;
mod ingress_class_missing;
mod ingress_class_parameters_missing;
mod ingress_path_conflict;

// --- over live observations (probe, trace)
mod route_proxy_not_found;

use crate::framework::Check;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    // --- Gateway API routes (RTE001–RTE029)
    &route_parent_not_accepted::RouteParentNotAccepted,
    &route_backend_ref_not_permitted::RouteBackendRefNotPermitted,
    &route_status_condition_false::RouteStatusConditionFalse,
    &route_status_stale::RouteStatusStale,
    &route_status_unexpected::RouteStatusUnexpected,
    &route_tls_terminated::RouteTlsTerminated,
    // --- classic ingress (RTE030–RTE059)
    &ingress_class_missing::IngressClassMissing,
    &ingress_class_default_missing::IngressClassDefaultMissing,
    &alb_listen_ports_missing::AlbListenPortsMissing,
    &ingress_class_controller_mismatch::IngressClassControllerMismatch,
    &ingress_class_parameters_missing::IngressClassParametersMissing,
    &api_version_unserved::ApiVersionUnserved,
    &ingress_path_conflict::IngressPathConflict,
    &host_passthrough_conflict::HostPassthroughConflict,
    // --- over live observations (probe, trace)
    &route_proxy_not_found::RouteProxyNotFound,
];

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("route");
        crate::test_support::assert_coverage("route", &cases);
    }
}
