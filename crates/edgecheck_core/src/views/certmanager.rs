//! cert-manager kinds.

use serde::Deserialize;
use serde_json::Value;

/// A Certificate.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Certificate {
    /// Spec.
    pub spec: CertificateSpec,
}

/// Certificate spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CertificateSpec {
    /// The Secret cert-manager writes.
    pub secret_name: String,
    /// DNS names.
    pub dns_names: Vec<String>,
    /// Common name.
    pub common_name: Option<String>,
    /// IP addresses.
    pub ip_addresses: Vec<String>,
    /// Issuer reference.
    pub issuer_ref: IssuerRef,
    /// Duration (Go duration).
    pub duration: Option<String>,
    /// Renew before (Go duration).
    pub renew_before: Option<String>,
    /// Private key settings.
    pub private_key: Option<Value>,
}

/// `issuerRef`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct IssuerRef {
    /// Name.
    pub name: String,
    /// `Issuer` (default) or `ClusterIssuer` (or an external issuer's kind).
    pub kind: Option<String>,
    /// Group (`cert-manager.io` default).
    pub group: Option<String>,
}

/// An Issuer or ClusterIssuer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Issuer {
    /// Spec.
    pub spec: IssuerSpec,
}

/// Issuer spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct IssuerSpec {
    /// ACME.
    pub acme: Option<AcmeIssuer>,
    /// CA.
    pub ca: Option<Value>,
    /// Self-signed.
    pub self_signed: Option<Value>,
    /// Vault.
    pub vault: Option<Value>,
}

/// ACME issuer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AcmeIssuer {
    /// Directory URL.
    pub server: String,
    /// Account email.
    pub email: Option<String>,
    /// Solvers.
    pub solvers: Vec<AcmeSolver>,
    /// Account key Secret.
    pub private_key_secret_ref: Option<Value>,
}

/// ACME solver.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AcmeSolver {
    /// HTTP-01.
    pub http01: Option<Http01Solver>,
    /// DNS-01 (kept raw).
    pub dns01: Option<Value>,
    /// Selector (kept raw).
    pub selector: Option<Value>,
}

/// HTTP-01 solver.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Http01Solver {
    /// Ingress solver.
    pub ingress: Option<Http01Ingress>,
    /// Gateway API solver.
    #[serde(rename = "gatewayHTTPRoute")]
    pub gateway_http_route: Option<Value>,
}

/// HTTP-01 ingress solver.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Http01Ingress {
    /// `class` (annotation class).
    pub class: Option<String>,
    /// `ingressClassName`.
    pub ingress_class_name: Option<String>,
    /// Existing Ingress to edit.
    pub name: Option<String>,
}
