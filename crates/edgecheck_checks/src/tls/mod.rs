//! Checks of the `tls` layer.

// --- Gateway API listener certificates (TLS090–TLS099)
mod backend_tls_policy_ca_unresolved;
mod gateway_listener_cert_unresolved;
mod gateway_status_tls_condition_false;

use crate::framework::Check;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    // --- Gateway API listener certificates (TLS090–TLS099)
    &gateway_listener_cert_unresolved::GatewayListenerCertUnresolved,
    &gateway_status_tls_condition_false::GatewayStatusTlsConditionFalse,
    &backend_tls_policy_ca_unresolved::BackendTlsPolicyCaUnresolved,
];

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("tls");
        crate::test_support::assert_coverage("tls", &cases);
    }
}
