//! Checks of the `route` layer.

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

use crate::framework::Check;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    // --- classic ingress (RTE030–RTE059)
    &ingress_class_missing::IngressClassMissing,
    &ingress_class_default_missing::IngressClassDefaultMissing,
    &alb_listen_ports_missing::AlbListenPortsMissing,
    &ingress_class_controller_mismatch::IngressClassControllerMismatch,
    &ingress_class_parameters_missing::IngressClassParametersMissing,
    &api_version_unserved::ApiVersionUnserved,
    &ingress_path_conflict::IngressPathConflict,
    &host_passthrough_conflict::HostPassthroughConflict,
];

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("route");
        crate::test_support::assert_coverage("route", &cases);
    }
}
