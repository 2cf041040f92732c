//! Checks of the `backend` layer.

// --- Gateway API backendRefs (BKD090–BKD099)
mod route_backend_unresolved;
mod route_status_backend_condition_false;

use crate::framework::Check;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    // --- Gateway API backendRefs (BKD090–BKD099)
    &route_backend_unresolved::RouteBackendUnresolved,
    &route_status_backend_condition_false::RouteStatusBackendConditionFalse,
];

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("backend");
        crate::test_support::assert_coverage("backend", &cases);
    }
}
