//! External Secrets Operator kinds.

use crate::value::Value;
use serde::Deserialize;

/// An ExternalSecret.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ExternalSecret {
    /// Spec.
    pub spec: ExternalSecretSpec,
    /// Status (live objects and dumps).
    pub status: EsoStatus,
}

/// ExternalSecret spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ExternalSecretSpec {
    /// Store.
    pub secret_store_ref: StoreRef,
    /// Target.
    pub target: ExternalSecretTarget,
    /// Data (kept raw).
    pub data: Vec<Value>,
    /// DataFrom (kept raw).
    pub data_from: Vec<Value>,
    /// Refresh interval.
    pub refresh_interval: Option<String>,
}

/// `secretStoreRef`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StoreRef {
    /// Name.
    pub name: String,
    /// `SecretStore` (default) or `ClusterSecretStore`.
    pub kind: Option<String>,
}

/// `target`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ExternalSecretTarget {
    /// Secret name (defaults to the ExternalSecret's).
    pub name: Option<String>,
    /// `Owner` (default), `Orphan`, `Merge`, `None`.
    pub creation_policy: Option<String>,
    /// `Retain` (default), `Delete`, `Merge`.
    pub deletion_policy: Option<String>,
    /// Template (kept raw).
    pub template: Option<Value>,
}

/// A SecretStore or ClusterSecretStore.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SecretStore {
    /// Spec.
    pub spec: SecretStoreSpec,
    /// Status (live objects and dumps).
    pub status: EsoStatus,
}

/// Store spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SecretStoreSpec {
    /// Provider (kept raw).
    pub provider: Value,
}

/// Status of an External Secrets object (ExternalSecret, SecretStore, ClusterSecretStore).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct EsoStatus {
    /// `status.conditions`.
    pub conditions: Vec<EsoCondition>,
    /// `status.refreshTime` (ExternalSecret).
    pub refresh_time: Option<String>,
}

impl EsoStatus {
    /// The condition of `type_` (`Ready`), if set.
    pub fn condition(&self, type_: &str) -> Option<&EsoCondition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }
}

/// A status condition.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct EsoCondition {
    /// Type (`Ready`).
    #[serde(rename = "type")]
    pub type_: String,
    /// `True`, `False`, `Unknown`.
    pub status: String,
    /// Reason (`SecretSyncedError`, `InvalidProviderConfig`, ...).
    pub reason: Option<String>,
    /// Message.
    pub message: Option<String>,
}
