//! Checks of the `listener` layer.

// --- Gateway API listeners (LSN001–LSN029)
mod gateway_listener_conflicted;
mod gateway_listener_invalid;
mod gateway_listener_port_missing;
mod gateway_listener_routes_unattached;
mod gateway_listener_tls_modes_shared;
mod gateway_not_accepted;
mod gateway_status_condition_false;
mod gateway_status_stale;
mod gateway_status_unexpected;
// --- classic ingress (LSN030–LSN059)
mod alb_event_listener_error;
mod alb_https_certificate_missing;
mod alb_listener_missing;
mod cilium_lb_pool_missing;
mod service_lb_address_pending;
mod traefik_entrypoint_undefined;

// --- over live observations (probe, trace)
mod endpoint_connect_failed;

use crate::framework::Check;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    // --- Gateway API listeners (LSN001–LSN029)
    &gateway_listener_conflicted::GatewayListenerConflicted,
    &gateway_listener_tls_modes_shared::GatewayListenerTlsModesShared,
    &gateway_listener_invalid::GatewayListenerInvalid,
    &gateway_not_accepted::GatewayNotAccepted,
    &gateway_status_condition_false::GatewayStatusConditionFalse,
    &gateway_status_stale::GatewayStatusStale,
    &gateway_listener_routes_unattached::GatewayListenerRoutesUnattached,
    &gateway_status_unexpected::GatewayStatusUnexpected,
    // --- classic ingress (LSN030–LSN059)
    &alb_listener_missing::AlbListenerMissing,
    &alb_event_listener_error::AlbEventListenerError,
    &service_lb_address_pending::ServiceLbAddressPending,
    &cilium_lb_pool_missing::CiliumLbPoolMissing,
    &traefik_entrypoint_undefined::TraefikEntrypointUndefined,
    &alb_https_certificate_missing::AlbHttpsCertificateMissing,
    // --- traced requests (LSN040–LSN049)
    &gateway_listener_port_missing::GatewayListenerPortMissing,
    // --- over live observations (probe, trace)
    &endpoint_connect_failed::EndpointConnectFailed,
];

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("listener");
        crate::test_support::assert_coverage("listener", &cases);
    }
}
