//! Checks of the `gitops` layer.

// --- gitops (GIT001–GIT059, SEC001–SEC039, DNS020–DNS029)
mod application_comparison_error;
mod application_degraded;
mod application_health_check_missing;
mod application_out_of_sync;
mod application_source_path_missing;
mod application_sync_failed;
pub(crate) mod crd_sync_wave_late;
mod external_secret_defaults_drift;
mod flux_dependency_missing;
mod ignore_differences_not_respected;
mod repository_host_key_missing;

// --- over live observations (probe, trace)
mod gitops_green_data_plane_red;

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
    &flux_dependency_missing::FluxDependencyMissing,
    // --- over live observations (probe, trace)
    &gitops_green_data_plane_red::GitopsGreenDataPlaneRed,
];

#[cfg(test)]
mod tests {
    #[test]
    fn an_application_manages_its_directory_and_not_a_sibling_that_sorts_between() {
        let text = "# repo: https://git.example/acme/platform.git dirs=apps/shop,apps/shop-old
# repo-path: argocd/shop.yaml
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shop, namespace: argocd}
spec:
  source: {repoURL: https://git.example/acme/platform.git, path: apps/shop}
  destination: {namespace: shop}
---
# repo-path: apps/shop-old/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata: {name: old, namespace: shop}
---
# repo-path: apps/shop/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata: {name: new, namespace: shop}
";
        let (g, _, _) = crate::test_support::graph_and_pki("t.yaml", text);
        let app = g.find(edgecheck_core::kind::K::APPLICATION, Some("argocd"), "shop").expect("app");
        let managed: Vec<&str> = g.managed(app).map(|id| g.obj(id).name.as_str()).collect();
        assert_eq!(managed, vec!["new"]);
        let new = g.find(edgecheck_core::kind::K::CONFIG_MAP, Some("shop"), "new").expect("new");
        assert_eq!(g.owning_application(new), Some(app));
        assert_eq!(g.owning_application(app), None);
    }

    #[test]
    fn fixtures() {
        let cases = crate::test_support::run_layer_fixtures("gitops");
        crate::test_support::assert_coverage("gitops", &cases);
    }

    /// The fixture `# repo:` header stands in for the loader; this checks the real thing: a checkout on
    /// disk, its remote read from `.git/config`, objects linked to the Application that holds their path.
    #[test]
    fn checkout_on_disk_links_applications() {
        let root = std::env::temp_dir().join(format!("edgecheck-gitops-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let write = |p: &str, text: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(".git/config", "[remote \"origin\"]\n\turl = ssh://git@git.example.internal/platform/k8s-infra.git\n");
        write(
            "clusters/root-app.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: root, namespace: argocd}\n\
             spec:\n  source: {repoURL: 'git@git.example.internal:platform/k8s-infra', path: cluster/apps}\n",
        );
        write(
            "clusters/apps/api.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: api, namespace: argocd}\n\
             spec:\n  source: {repoURL: 'ssh://git@git.example.internal/platform/k8s-infra.git', path: apps/api}\n  \
             destination: {namespace: api}\n",
        );
        write(
            "apps/api/es.yaml",
            "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: env}\n\
             spec:\n  secretStoreRef: {kind: ClusterSecretStore, name: vault}\n  \
             data: [{secretKey: t, remoteRef: {key: api/t}}]\n",
        );
        let (inv, errors) = edgecheck_load::load_paths(std::slice::from_ref(&root), &Default::default());
        assert!(errors.is_empty());
        let options = edgecheck_core::Options { complete: Some(false), ..Default::default() };
        let graph = edgecheck_core::Graph::build(inv, &options);
        let run = |code: &str| {
            let check = crate::registry::find_check(code).unwrap();
            crate::test_support::run_check(check, &graph, &options)
        };
        let git001 = run("GIT001");
        assert_eq!(git001.len(), 1, "{}", crate::test_support::render(&git001));
        assert_eq!(git001[0].object.name, "root");
        assert!(git001[0].evidence.iter().any(|e| e.contains("clusters/apps")), "{:?}", git001[0].evidence);
        let git002 = run("GIT002");
        assert_eq!(git002.len(), 1, "{}", crate::test_support::render(&git002));
        assert_eq!(git002[0].object.namespace.as_deref(), Some("api"));
        assert_eq!(git002[0].related[0].name, "api");
        let _ = std::fs::remove_dir_all(&root);
    }
}
