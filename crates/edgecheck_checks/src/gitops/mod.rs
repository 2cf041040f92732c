//! Checks of the `gitops` layer.

// --- gitops (GIT001–GIT059, SEC001–SEC039, DNS020–DNS029)
mod application_comparison_error;
mod application_degraded;
mod application_health_check_missing;
mod application_out_of_sync;
mod application_source_path_missing;
mod application_sync_failed;
mod crd_sync_wave_late;
mod external_secret_defaults_drift;
mod ignore_differences_not_respected;
mod repository_host_key_missing;

use crate::framework::Check;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    // --- gitops (GIT001–GIT059, SEC001–SEC039, DNS020–DNS029)
    &application_source_path_missing::ApplicationSourcePathMissing,
    &external_secret_defaults_drift::ExternalSecretDefaultsDrift,
    &repository_host_key_missing::RepositoryHostKeyMissing,
    &crd_sync_wave_late::CrdSyncWaveLate,
    &application_health_check_missing::ApplicationHealthCheckMissing,
    &ignore_differences_not_respected::IgnoreDifferencesNotRespected,
    &application_sync_failed::ApplicationSyncFailed,
    &application_comparison_error::ApplicationComparisonError,
    &application_degraded::ApplicationDegraded,
    &application_out_of_sync::ApplicationOutOfSync,
];

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("gitops");
        crate::test_support::assert_coverage("gitops", &cases);
    }
}
