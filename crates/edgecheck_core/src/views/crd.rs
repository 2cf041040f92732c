//! CustomResourceDefinition.

use serde::Deserialize;

/// A CRD.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Crd {
    /// Spec.
    pub spec: CrdSpec,
}

/// CRD spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CrdSpec {
    /// Group.
    pub group: String,
    /// Names.
    pub names: CrdNames,
    /// `Namespaced` or `Cluster`.
    pub scope: Option<String>,
    /// Versions.
    pub versions: Vec<CrdVersion>,
}

/// CRD names.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CrdNames {
    /// Kind.
    pub kind: String,
    /// Plural.
    pub plural: String,
}

/// One CRD version.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CrdVersion {
    /// Name (`v1`, `v1alpha2`).
    pub name: String,
    /// Served.
    pub served: bool,
    /// Storage.
    pub storage: bool,
}
