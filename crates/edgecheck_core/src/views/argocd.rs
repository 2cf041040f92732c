//! Argo CD Application.

use serde::Deserialize;
use serde_json::Value;

/// An Application.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Application {
    /// Spec.
    pub spec: ApplicationSpec,
}

/// Application spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ApplicationSpec {
    /// Single source.
    pub source: Option<AppSource>,
    /// Multiple sources.
    pub sources: Vec<AppSource>,
    /// Destination.
    pub destination: AppDestination,
    /// Project.
    pub project: Option<String>,
    /// Sync policy.
    pub sync_policy: Option<SyncPolicy>,
    /// ignoreDifferences (kept raw).
    pub ignore_differences: Vec<Value>,
}

impl ApplicationSpec {
    /// Every source with its field path.
    pub fn all_sources(&self) -> Vec<(String, &AppSource)> {
        let mut out = Vec::new();
        if let Some(s) = &self.source {
            out.push(("spec.source".to_string(), s));
        }
        for (i, s) in self.sources.iter().enumerate() {
            out.push((format!("spec.sources[{i}]"), s));
        }
        out
    }

    /// Whether `option` (e.g. `RespectIgnoreDifferences=true`) is among the sync options.
    pub fn has_sync_option(&self, option: &str) -> bool {
        self.sync_policy.as_ref().is_some_and(|p| p.sync_options.iter().any(|o| o.eq_ignore_ascii_case(option)))
    }
}

/// A source.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AppSource {
    /// Repository URL.
    #[serde(rename = "repoURL")]
    pub repo_url: String,
    /// Path inside the repository.
    pub path: Option<String>,
    /// Revision.
    pub target_revision: Option<String>,
    /// Helm chart (Helm repositories).
    pub chart: Option<String>,
    /// Helm settings.
    pub helm: Option<Value>,
    /// Kustomize settings.
    pub kustomize: Option<Value>,
    /// Directory settings (`recurse`, `include`, `exclude`).
    pub directory: Option<Value>,
    /// Reference name (multi-source `ref`).
    #[serde(rename = "ref")]
    pub reference: Option<String>,
}

/// Destination.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AppDestination {
    /// API server URL.
    pub server: Option<String>,
    /// Cluster name.
    pub name: Option<String>,
    /// Namespace.
    pub namespace: Option<String>,
}

/// Sync policy.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SyncPolicy {
    /// Automated sync (kept raw).
    pub automated: Option<Value>,
    /// Sync options.
    pub sync_options: Vec<String>,
}
