//! Checks of the `app` layer.

// --- over live observations (probe, trace)
mod endpoint_app_error;
mod endpoint_app_not_found;
mod endpoint_grpc_http1_only;
mod endpoint_http_failed;
pub(crate) mod endpoint_proxy_reply;
mod endpoint_redirect_unsafe;

use crate::framework::Check;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    // --- over live observations (probe, trace)
    &endpoint_proxy_reply::EndpointProxyReply,
    &endpoint_redirect_unsafe::EndpointRedirectUnsafe,
    &endpoint_grpc_http1_only::EndpointGrpcHttp1Only,
    &endpoint_http_failed::EndpointHttpFailed,
    &endpoint_app_not_found::EndpointAppNotFound,
    &endpoint_app_error::EndpointAppError,
];

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("app");
        crate::test_support::assert_coverage("app", &cases);
    }
}
