//! cert-manager kinds.

use crate::value::Str;
use crate::value::Value;
use serde::Deserialize;

/// A Certificate.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Certificate {
    /// Spec.
    pub spec: CertificateSpec,
    /// Status (live objects).
    pub status: super::Rare<CmStatus>,
}

/// Certificate spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CertificateSpec {
    /// The Secret cert-manager writes.
    pub secret_name: Str,
    /// DNS names.
    pub dns_names: Box<[Str]>,
    /// Common name.
    pub common_name: Option<Str>,
    /// IP addresses.
    pub ip_addresses: Box<[Str]>,
    /// Issuer reference.
    pub issuer_ref: IssuerRef,
    /// Duration (Go duration).
    pub duration: Option<Box<str>>,
    /// Renew before (Go duration).
    pub renew_before: Option<Box<str>>,
}

/// `issuerRef`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct IssuerRef {
    /// Name.
    pub name: Str,
    /// `Issuer` (default) or `ClusterIssuer` (or an external issuer's kind).
    pub kind: Option<Str>,
    /// Group (`cert-manager.io` default).
    pub group: Option<Str>,
}

/// An Issuer or ClusterIssuer.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Issuer {
    /// Spec.
    pub spec: IssuerSpec,
    /// Status (live objects).
    pub status: super::Rare<CmStatus>,
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
    pub server: Str,
    /// Account email.
    pub email: Option<Str>,
    /// Solvers.
    pub solvers: Vec<AcmeSolver>,
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
    pub class: Option<Str>,
    /// `ingressClassName`.
    pub ingress_class_name: Option<Str>,
    /// Existing Ingress to edit.
    pub name: Option<Str>,
}

/// A status condition as cert-manager writes them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CmCondition {
    /// `Ready`, `Issuing`, `Approved`, `Denied`, ...
    #[serde(rename = "type")]
    pub type_: Str,
    /// `True`, `False`, `Unknown`.
    pub status: Str,
    /// Reason.
    pub reason: Option<Str>,
    /// Message.
    pub message: Option<Str>,
}

/// The status of a cert-manager object (Certificate, Issuer, CertificateRequest).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CmStatus {
    /// Conditions.
    pub conditions: Vec<CmCondition>,
    /// Certificate: notAfter of the issued certificate.
    pub not_after: Option<Str>,
    /// Certificate: failed issuance attempts in a row.
    pub failed_issuance_attempts: Option<i64>,
}

impl CmStatus {
    /// The condition of `type_`.
    pub fn condition(&self, type_: &str) -> Option<&CmCondition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }
}

/// An owner reference.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OwnerRef {
    /// Kind.
    pub kind: Str,
    /// Name.
    pub name: Str,
}

/// The metadata cert-manager's chain objects are linked by.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CmMeta {
    /// Owner references (CertificateRequest → Certificate, Order → CertificateRequest, Challenge → Order).
    pub owner_references: Vec<OwnerRef>,
    /// Annotations (`cert-manager.io/certificate-name`, ...).
    pub annotations: std::collections::BTreeMap<Str, Value>,
}

impl CmMeta {
    /// The name of the owner of `kind`.
    pub fn owner(&self, kind: &str) -> Option<&str> {
        self.owner_references.iter().find(|o| o.kind == kind).map(|o| o.name.as_str())
    }
}

/// A CertificateRequest (cert-manager.io).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct CertificateRequest {
    /// Metadata.
    pub metadata: CmMeta,
    /// Status.
    pub status: super::Rare<CmStatus>,
}

/// An ACME Order (acme.cert-manager.io).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AcmeOrder {
    /// Metadata.
    pub metadata: CmMeta,
    /// Status.
    pub status: AcmeStatus,
}

/// An ACME Challenge (acme.cert-manager.io).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AcmeChallenge {
    /// Metadata.
    pub metadata: CmMeta,
    /// Spec.
    pub spec: AcmeChallengeSpec,
    /// Status.
    pub status: AcmeStatus,
}

/// ACME Challenge spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AcmeChallengeSpec {
    /// The name being validated.
    pub dns_name: Str,
    /// `HTTP-01` or `DNS-01`.
    #[serde(rename = "type")]
    pub type_: Str,
    /// The ACME challenge URL.
    pub url: Option<Str>,
}

/// Status of an ACME Order or Challenge.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AcmeStatus {
    /// `pending`, `ready`, `valid`, `invalid`, `errored`, `processing`, `expired`.
    pub state: Option<Str>,
    /// Why (Challenge: the self-check error; Order: the failure).
    pub reason: Option<Str>,
    /// Challenge: the solver is presented.
    pub presented: Option<bool>,
    /// Challenge: cert-manager is processing it.
    pub processing: Option<bool>,
}

impl super::Empty for CmStatus {
    fn empty() -> &'static CmStatus {
        static EMPTY: CmStatus = CmStatus { conditions: Vec::new(), not_after: None, failed_issuance_attempts: None };
        &EMPTY
    }
}
