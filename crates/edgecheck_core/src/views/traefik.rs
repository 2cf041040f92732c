//! Traefik CRDs (traefik.io and the old traefik.containo.us group).

use crate::value::Str;
use crate::value::Value;
use serde::Deserialize;

use super::PortRef;

/// An IngressRoute or IngressRouteTCP.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct TraefikRoute {
    /// Spec.
    pub spec: TraefikRouteSpec,
}

/// Spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TraefikRouteSpec {
    /// Entry points (`web`, `websecure`, ...).
    pub entry_points: Vec<Str>,
    /// Routes.
    pub routes: Vec<TraefikRouteRule>,
    /// TLS.
    pub tls: Option<TraefikTls>,
}

/// One route.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct TraefikRouteRule {
    /// The rule (`Host(`a`) && PathPrefix(`/`)`, `HostSNI(`*`)`).
    #[serde(rename = "match")]
    pub rule: Str,
    /// `Rule`.
    pub kind: Option<Str>,
    /// Services.
    pub services: Vec<TraefikService>,
    /// Middlewares.
    pub middlewares: Vec<Value>,
}

/// A Traefik service reference.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TraefikService {
    /// Name.
    pub name: Str,
    /// Namespace.
    pub namespace: Option<Str>,
    /// `Service` (default) or `TraefikService`.
    pub kind: Option<Str>,
    /// Port.
    pub port: Option<PortRef>,
    /// `http`, `https`, `h2c`.
    pub scheme: Option<Str>,
    /// ServersTransport name.
    pub servers_transport: Option<Str>,
}

/// IngressRoute TLS.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TraefikTls {
    /// Secret.
    pub secret_name: Option<Str>,
    /// TLSOption reference.
    pub options: Option<TraefikOptionRef>,
    /// ACME resolver.
    pub cert_resolver: Option<Str>,
    /// TCP passthrough.
    pub passthrough: Option<bool>,
    /// Domains (kept raw).
    pub domains: Vec<Value>,
}

/// TLSOption reference.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct TraefikOptionRef {
    /// Name.
    pub name: Str,
    /// Namespace.
    pub namespace: Option<Str>,
}

/// A TLSOption.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct TlsOption {
    /// Spec.
    pub spec: TlsOptionSpec,
}

/// TLSOption spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TlsOptionSpec {
    /// `VersionTLS10` ... `VersionTLS13`.
    pub min_version: Option<Str>,
    /// Max version.
    pub max_version: Option<Str>,
    /// Cipher suites.
    pub cipher_suites: Vec<Str>,
    /// SNI strict.
    pub sni_strict: Option<bool>,
    /// ALPN protocols.
    pub alpn_protocols: Vec<Str>,
}
