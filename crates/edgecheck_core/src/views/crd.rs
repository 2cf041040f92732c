//! CustomResourceDefinition.

use crate::value::Str;
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
    pub group: Str,
    /// Names.
    pub names: CrdNames,
    /// `Namespaced` or `Cluster`.
    pub scope: Option<Str>,
    /// Versions.
    pub versions: Vec<CrdVersion>,
}

/// CRD names.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CrdNames {
    /// Kind.
    pub kind: Str,
    /// Plural.
    pub plural: Str,
}

/// One CRD version.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CrdVersion {
    /// Name (`v1`, `v1alpha2`).
    pub name: Str,
    /// Served.
    pub served: bool,
    /// Storage.
    pub storage: bool,
}
