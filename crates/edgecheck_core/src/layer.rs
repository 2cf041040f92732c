//! Layers of the request path and severities.

use std::fmt;

/// Where a fault sits. The first six are the request path, in the order a terminating entry crosses
/// them (docs/design.md "Path order"); `gitops`, `secrets` and `input` sit beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Layer {
    /// The name resolves to the entry.
    Dns,
    /// An entry exists, has an address and listens on the port.
    Listener,
    /// The client gets a certificate it trusts for the name.
    Tls,
    /// The rule binds the host to the listener.
    Route,
    /// The route reaches ready pods that speak the expected protocol.
    Backend,
    /// The response comes from the application.
    App,
    /// What Git declares is what runs.
    Gitops,
    /// Secret delivery.
    Secrets,
    /// Input that could not be read.
    Input,
}

impl Layer {
    /// Every layer, in path order then the side layers.
    pub const ALL: [Layer; 9] = [
        Layer::Dns,
        Layer::Listener,
        Layer::Tls,
        Layer::Route,
        Layer::Backend,
        Layer::App,
        Layer::Gitops,
        Layer::Secrets,
        Layer::Input,
    ];

    /// The lowercase name used in output and selectors.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Dns => "dns",
            Layer::Listener => "listener",
            Layer::Tls => "tls",
            Layer::Route => "route",
            Layer::Backend => "backend",
            Layer::App => "app",
            Layer::Gitops => "gitops",
            Layer::Secrets => "secrets",
            Layer::Input => "input",
        }
    }

    /// Parses a layer name.
    pub fn parse(s: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.as_str() == s)
    }

    /// Position on the request path. Through a TLS passthrough the certificate is the backend's, so
    /// `tls` comes after `backend`. Side layers sort after the path.
    pub fn path_rank(self, passthrough: bool) -> u8 {
        match (self, passthrough) {
            (Layer::Dns, _) => 0,
            (Layer::Listener, _) => 1,
            (Layer::Tls, false) => 2,
            (Layer::Route, _) => 3,
            (Layer::Backend, _) => 4,
            (Layer::Tls, true) => 5,
            (Layer::App, _) => 6,
            (Layer::Gitops, _) => 7,
            (Layer::Secrets, _) => 8,
            (Layer::Input, _) => 9,
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How bad a finding is. Ordered from most to least severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Severity {
    /// The path is broken for users now.
    Error,
    /// Inferred with doubt, intermittent, or breaks later.
    Warning,
    /// Worth knowing; breaks nothing.
    Info,
}

impl Severity {
    /// The lowercase name used in output.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }

    /// Parses a severity name.
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "error" => Some(Severity::Error),
            "warning" | "warn" => Some(Severity::Warning),
            "info" => Some(Severity::Info),
            _ => None,
        }
    }

    /// True when this severity is at least as severe as `threshold`.
    pub fn reaches(self, threshold: Severity) -> bool {
        self <= threshold
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
