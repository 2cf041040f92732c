//! Checks of the `secrets` layer.

// --- gitops (GIT001–GIT059, SEC001–SEC039, DNS020–DNS029)
mod external_secret_store_missing;
mod external_secret_sync_failed;
mod external_secret_target_missing;
mod external_secret_wave_after_consumer;
mod secret_store_not_ready;
mod secret_value_shape_invalid;

use crate::framework::Check;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    // --- gitops (GIT001–GIT059, SEC001–SEC039, DNS020–DNS029)
    &external_secret_sync_failed::ExternalSecretSyncFailed,
    &secret_value_shape_invalid::SecretValueShapeInvalid,
    &external_secret_store_missing::ExternalSecretStoreMissing,
    &secret_store_not_ready::SecretStoreNotReady,
    &external_secret_target_missing::ExternalSecretTargetMissing,
    &external_secret_wave_after_consumer::ExternalSecretWaveAfterConsumer,
];

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("secrets");
        crate::test_support::assert_coverage("secrets", &cases);
    }
}
