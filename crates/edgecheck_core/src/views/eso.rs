//! External Secrets Operator kinds.

use crate::value::Str;
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
    pub refresh_interval: Option<Str>,
}

/// `secretStoreRef`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StoreRef {
    /// Name.
    pub name: Str,
    /// `SecretStore` (default) or `ClusterSecretStore`.
    pub kind: Option<Str>,
}

/// `target`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ExternalSecretTarget {
    /// Secret name (defaults to the ExternalSecret's).
    pub name: Option<Str>,
    /// `Owner` (default), `Orphan`, `Merge`, `None`.
    pub creation_policy: Option<Str>,
    /// `Retain` (default), `Delete`, `Merge`.
    pub deletion_policy: Option<Str>,
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
    pub refresh_time: Option<Str>,
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
    pub type_: Str,
    /// `True`, `False`, `Unknown`.
    pub status: Str,
    /// Reason (`SecretSyncedError`, `InvalidProviderConfig`, ...).
    pub reason: Option<Str>,
    /// Message.
    pub message: Option<Str>,
}
