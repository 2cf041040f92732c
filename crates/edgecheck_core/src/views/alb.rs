//! Alibaba Cloud ACK ALB Ingress: `AlbConfig` (alibabacloud.com), the object that creates the ALB
//! instance and its listeners.

use crate::value::Str;
use serde::Deserialize;

use super::PortRef;

/// An AlbConfig.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AlbConfig {
    /// Spec.
    pub spec: AlbConfigSpec,
}

/// AlbConfig spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AlbConfigSpec {
    /// `listeners`: the ALB listeners the controller creates.
    pub listeners: Vec<AlbListener>,
}

/// One AlbConfig listener.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AlbListener {
    /// Port (a number, sometimes quoted).
    pub port: Option<PortRef>,
    /// `HTTP`, `HTTPS` or `QUIC`.
    pub protocol: Option<Str>,
    /// Certificates given by ID (`CertificateId`, `IsDefault`); kept as raw values.
    pub certificates: Vec<crate::value::Value>,
}

impl AlbConfig {
    /// The listener on `port` with `protocol` (case-insensitive), with its index.
    pub fn listener(&self, port: i64, protocol: &str) -> Option<(usize, &AlbListener)> {
        self.spec.listeners.iter().enumerate().find(|(_, l)| {
            l.port.as_ref().and_then(PortRef::number) == Some(port)
                && l.protocol.as_deref().is_some_and(|p| p.eq_ignore_ascii_case(protocol))
        })
    }

    /// Every HTTPS listener, with its index.
    pub fn https_listeners(&self) -> impl Iterator<Item = (usize, &AlbListener)> {
        self.spec
            .listeners
            .iter()
            .enumerate()
            .filter(|(_, l)| l.protocol.as_deref().is_some_and(|p| p.eq_ignore_ascii_case("HTTPS")))
    }
}
