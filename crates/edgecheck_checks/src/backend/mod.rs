//! Checks of the `backend` layer.

// --- backend (BKD001–BKD059)
mod alb_backend_cluster_ip;
mod argocd_tls_mode_conflict;
mod backend_pods_unready;
mod backend_port_missing;
mod backend_protocol_mismatch;
mod backend_service_missing;
mod helpers;
mod job_failed;
mod pod_probe_failing;
mod probe_scheme_mismatch;
mod service_endpoints_unready;
mod service_selector_unmatched;
mod target_port_name_missing;
// --- Gateway API backendRefs (BKD090–BKD099)
mod route_backend_unresolved;
mod route_status_backend_condition_false;

// --- over live observations (probe, trace)
mod backend_proxy_no_endpoints;

use crate::framework::Check;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    // --- backend (BKD001–BKD059)
    &backend_service_missing::BackendServiceMissing,
    &backend_port_missing::BackendPortMissing,
    &target_port_name_missing::TargetPortNameMissing,
    &service_selector_unmatched::ServiceSelectorUnmatched,
    &service_endpoints_unready::ServiceEndpointsUnready,
    &backend_protocol_mismatch::BackendProtocolMismatch,
    &argocd_tls_mode_conflict::ArgocdTlsModeConflict,
    &probe_scheme_mismatch::ProbeSchemeMismatch,
    &alb_backend_cluster_ip::AlbBackendClusterIp,
    &job_failed::JobFailed,
    &backend_pods_unready::BackendPodsUnready,
    &pod_probe_failing::PodProbeFailing,
    // --- Gateway API backendRefs (BKD090–BKD099)
    &route_backend_unresolved::RouteBackendUnresolved,
    &route_status_backend_condition_false::RouteStatusBackendConditionFalse,
    // --- over live observations (probe, trace)
    &backend_proxy_no_endpoints::BackendProxyNoEndpoints,
];

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("backend");
        crate::test_support::assert_coverage("backend", &cases);
    }
}
