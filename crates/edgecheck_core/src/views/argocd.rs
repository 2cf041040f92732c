//! Argo CD Application.

use crate::value::Str;
use crate::value::Value;
use serde::Deserialize;

/// An Application.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Application {
    /// Spec.
    pub spec: ApplicationSpec,
    /// Status (live objects and dumps; absent from files).
    pub status: super::Rare<ApplicationStatus>,
}

impl super::Empty for ApplicationStatus {
    fn empty() -> &'static ApplicationStatus {
        static EMPTY: ApplicationStatus = ApplicationStatus {
            sync: AppSyncStatus { status: None, revision: None },
            health: AppHealth { status: None, message: None },
            conditions: Vec::new(),
            operation_state: None,
            resources: Vec::new(),
        };
        &EMPTY
    }
}

/// Application spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ApplicationSpec {
    /// Single source (boxed: an Application has it or `sources`, and inline it was a third of the view).
    pub source: Option<Box<AppSource>>,
    /// Multiple sources.
    pub sources: Vec<AppSource>,
    /// Destination.
    pub destination: AppDestination,
    /// Project.
    pub project: Option<Str>,
    /// Sync policy.
    pub sync_policy: Option<SyncPolicy>,
    /// ignoreDifferences (kept raw).
    pub ignore_differences: Vec<Value>,
}

impl ApplicationSpec {
    /// Every source with its field path.
    pub fn all_sources(&self) -> Vec<(String, &AppSource)> {
        let mut out = Vec::new();
        if let Some(s) = self.source.as_deref() {
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
    pub repo_url: Str,
    /// Path inside the repository.
    pub path: Option<Str>,
    /// Revision.
    pub target_revision: Option<Str>,
    /// Helm chart (Helm repositories).
    pub chart: Option<Str>,
    /// Reference name (multi-source `ref`).
    #[serde(rename = "ref")]
    pub reference: Option<Str>,
}

/// Destination.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AppDestination {
    /// API server URL.
    pub server: Option<Str>,
    /// Cluster name.
    pub name: Option<Str>,
    /// Namespace.
    pub namespace: Option<Str>,
}

/// Sync policy.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SyncPolicy {
    /// Automated sync, when set (not null).
    pub automated: Option<Automated>,
    /// Sync options.
    pub sync_options: Vec<Str>,
}

/// `syncPolicy.automated`: what is read of it (a map of a few flags was held as a tree for every
/// Application, #17).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Automated {
    /// `enabled` (Argo CD 3.x), when written as a boolean.
    pub enabled: Option<bool>,
}

impl Automated {
    /// Whether automated sync is on: `automated: {}` is, `automated: {enabled: false}` is not.
    pub fn on(&self) -> bool {
        self.enabled != Some(false)
    }
}

impl<'de> Deserialize<'de> for Automated {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Ok(Automated { enabled: v.get("enabled").and_then(Value::as_bool) })
    }
}

/// Application status: sync, health, conditions, the last operation, the managed resources.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ApplicationStatus {
    /// `status.sync`.
    pub sync: AppSyncStatus,
    /// `status.health`.
    pub health: AppHealth,
    /// `status.conditions`.
    pub conditions: Vec<AppCondition>,
    /// `status.operationState`.
    pub operation_state: Option<AppOperationState>,
    /// `status.resources`.
    pub resources: Vec<AppResourceStatus>,
}

/// `status.sync`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AppSyncStatus {
    /// `Synced`, `OutOfSync`, `Unknown`.
    pub status: Option<Str>,
    /// Revision compared.
    pub revision: Option<Str>,
}

/// A health status with message (`status.health`, `status.resources[].health`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AppHealth {
    /// `Healthy`, `Progressing`, `Degraded`, `Suspended`, `Missing`, `Unknown`.
    pub status: Option<Str>,
    /// Message.
    pub message: Option<Str>,
}

/// `status.conditions[]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AppCondition {
    /// `ComparisonError`, `InvalidSpecError`, `SyncError`, ...
    #[serde(rename = "type")]
    pub type_: Str,
    /// Message.
    pub message: Option<Str>,
}

/// `status.operationState`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AppOperationState {
    /// `Running`, `Succeeded`, `Failed`, `Error`, `Terminating`.
    pub phase: Option<Str>,
    /// Message.
    pub message: Option<Str>,
    /// Finish time.
    pub finished_at: Option<Str>,
}

/// `status.resources[]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AppResourceStatus {
    /// Group (empty for core).
    pub group: Option<Str>,
    /// Version.
    pub version: Option<Str>,
    /// Kind.
    pub kind: Str,
    /// Namespace.
    pub namespace: Option<Str>,
    /// Name.
    pub name: Str,
    /// `Synced`, `OutOfSync`.
    pub status: Option<Str>,
    /// Health, when Argo CD assesses the kind.
    pub health: Option<AppHealth>,
}

impl AppResourceStatus {
    /// The object this entry of `status.resources` names. Argo CD leaves the namespace empty for
    /// cluster-scoped objects; a child Application without one lives in its parent's namespace.
    pub fn object_ref(&self, app_namespace: Option<&str>) -> crate::ObjectRef {
        let group = self.group.as_deref().filter(|g| !g.is_empty());
        let api_version = match (group, &self.version) {
            (Some(g), Some(v)) => Some(format!("{g}/{v}")),
            (Some(_), None) => None,
            (None, v) => v.as_deref().map(str::to_string),
        };
        let namespace = self.namespace.as_deref().filter(|n| !n.is_empty()).map(str::to_string);
        let namespace =
            if namespace.is_none() && self.is_application() { app_namespace.map(str::to_string) } else { namespace };
        crate::ObjectRef { api_version, kind: self.kind.to_string(), namespace, name: self.name.to_string() }
    }

    /// Whether the entry is a child Argo CD Application (app-of-apps).
    pub fn is_application(&self) -> bool {
        self.kind == "Application" && self.group.as_deref().is_none_or(|g| g.is_empty() || g == "argoproj.io")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automated_sync_is_on_unless_disabled() {
        let policy = |json: &str| {
            let v: Value = serde_json::from_str(json).unwrap();
            let doc = crate::doc::Doc::new(&v);
            SyncPolicy::deserialize(doc.root()).unwrap().automated.map(|a| a.on())
        };
        assert_eq!(policy(r#"{"automated": {}}"#), Some(true));
        assert_eq!(policy(r#"{"automated": {"prune": true, "selfHeal": true}}"#), Some(true));
        assert_eq!(policy(r#"{"automated": {"enabled": true}}"#), Some(true));
        assert_eq!(policy(r#"{"automated": {"enabled": false}}"#), Some(false));
        assert_eq!(policy(r#"{"automated": {"enabled": "no"}}"#), Some(true), "only a boolean disables it");
        assert_eq!(policy(r#"{"automated": null}"#), None);
        assert_eq!(policy(r#"{"syncOptions": ["CreateNamespace=true"]}"#), None);
    }
}
