//! Checks of the `tls` layer.

// --- Gateway API listener certificates (TLS090–TLS099)
mod backend_tls_policy_ca_unresolved;
mod backend_tls_policy_conflicted;
mod gateway_backend_client_cert_unresolved;
mod gateway_frontend_ca_unresolved;
mod gateway_listener_cert_unresolved;
mod gateway_status_tls_condition_false;

// --- over live observations (probe, trace)
mod endpoint_cert_expiring;
mod tls_cert_invalid;
mod tls_handshake_failed;
mod tls_legacy_accepted;
mod tls_served_cert_stale;

use crate::framework::Check;

// --- tls (TLS001–TLS059)
mod acme_solver_class_missing;
mod acme_staging_server;
mod cert_dns_names_uncovered;
mod cert_issuer_missing;
mod cert_renew_before_too_long;
mod cert_secret_shared;
mod cert_secret_unused;
mod certificate_not_ready;
mod helpers;
mod issuer_not_ready;
mod tls_cert_expired;
mod tls_cert_expiring;
mod tls_cert_host_mismatch;
mod tls_cert_self_signed;
mod tls_cert_weak;
mod tls_chain_incomplete;
mod tls_chain_order;
mod tls_key_mismatch;
mod tls_secret_missing;
mod tls_secret_other_namespace;
mod tls_secret_type_invalid;
mod traefik_tls_option_missing;
mod traefik_tls_option_weak;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    // --- Gateway API listener certificates (TLS090–TLS099)
    &gateway_listener_cert_unresolved::GatewayListenerCertUnresolved,
    &gateway_status_tls_condition_false::GatewayStatusTlsConditionFalse,
    &backend_tls_policy_ca_unresolved::BackendTlsPolicyCaUnresolved,
    // --- tls (TLS001–TLS059)
    &tls_secret_missing::TlsSecretMissing,
    &tls_secret_type_invalid::TlsSecretTypeInvalid,
    &tls_cert_host_mismatch::TlsCertHostMismatch,
    &tls_cert_expired::TlsCertExpired,
    &tls_cert_expiring::TlsCertExpiring,
    &tls_key_mismatch::TlsKeyMismatch,
    &cert_issuer_missing::CertIssuerMissing,
    &traefik_tls_option_missing::TraefikTlsOptionMissing,
    &tls_secret_other_namespace::TlsSecretOtherNamespace,
    &tls_chain_incomplete::TlsChainIncomplete,
    &tls_chain_order::TlsChainOrder,
    &tls_cert_weak::TlsCertWeak,
    &tls_cert_self_signed::TlsCertSelfSigned,
    &cert_renew_before_too_long::CertRenewBeforeTooLong,
    &cert_dns_names_uncovered::CertDnsNamesUncovered,
    &cert_secret_shared::CertSecretShared,
    &acme_staging_server::AcmeStagingServer,
    &acme_solver_class_missing::AcmeSolverClassMissing,
    &traefik_tls_option_weak::TraefikTlsOptionWeak,
    &certificate_not_ready::CertificateNotReady,
    &issuer_not_ready::IssuerNotReady,
    &cert_secret_unused::CertSecretUnused,
    &gateway_frontend_ca_unresolved::GatewayFrontendCaUnresolved,
    &gateway_backend_client_cert_unresolved::GatewayBackendClientCertUnresolved,
    &backend_tls_policy_conflicted::BackendTlsPolicyConflicted,
    // --- over live observations (probe, trace)
    &tls_handshake_failed::TlsHandshakeFailed,
    &tls_cert_invalid::TlsCertInvalid,
    &endpoint_cert_expiring::EndpointCertExpiring,
    &tls_legacy_accepted::TlsLegacyAccepted,
    &tls_served_cert_stale::TlsServedCertStale,
];

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("tls");
        crate::test_support::assert_coverage("tls", &cases);
    }
}
