//! What `edgecheck probe` observed of one live endpoint, layer by layer (dns → listener → tls → app,
//! plus gRPC). The data plane fills it (`edgecheck_probe`); checks read it (`CheckContext::observations`).
//! Serializable, so a run can be saved as a sidecar and replayed by the checks.
//!
//! Every phase keeps its outcome apart from its data: a timeout is not a refusal, NXDOMAIN is not
//! SERVFAIL, and "could not ask" (no resolver reachable, bad server address) is neither.

use serde::{Deserialize, Serialize};

use crate::cert::CertInfo;

/// Everything observed for one target.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TargetObservation {
    /// The target as given (`https://shop.example.com/`, `shop.example.com:443`, `grpcs://api:443`).
    pub target: String,
    /// The endpoint URL findings are about: `scheme://host:port/path`.
    pub url: String,
    /// `https`, `http`, `grpcs` or `grpc`.
    pub scheme: String,
    /// Host name or address literal.
    pub host: String,
    /// Port.
    pub port: u16,
    /// Request path.
    pub path: String,
    /// Whether gRPC was probed (asked for, or a `grpc(s)://` target).
    pub grpc_expected: bool,
    /// Resolutions: the system resolver, `--dns-server`, or `--resolve` (static).
    pub dns: Vec<DnsObservation>,
    /// TCP connects, one per address tried, in order.
    pub connects: Vec<ConnectObservation>,
    /// The TLS handshake (TLS targets that reached a listener).
    pub tls: Option<TlsObservation>,
    /// HTTP exchanges: the first request, then each redirect followed.
    pub http: Vec<HttpObservation>,
    /// Plaintext targets: h2c with prior knowledge.
    pub h2c: Option<HttpObservation>,
    /// gRPC calls.
    pub grpc: Option<GrpcObservation>,
    /// Legacy protocol versions tried (`--legacy`).
    pub legacy: Vec<LegacyTlsObservation>,
    /// A problem with the target itself (unparsable URL).
    pub error: Option<String>,
    /// Wall time of the whole probe, milliseconds.
    pub total_ms: f64,
}

/// How a DNS question ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DnsOutcome {
    /// Addresses returned.
    #[default]
    Answer,
    /// The name exists but has no A/AAAA records (NOERROR, empty answer).
    NoAnswer,
    /// The name does not exist.
    NxDomain,
    /// The server failed to answer (SERVFAIL, REFUSED).
    ServFail,
    /// No answer within the timeout.
    Timeout,
    /// The question could not be asked (no usable resolver configuration or server).
    CouldNotAsk,
    /// Not asked: `--resolve` or an address literal.
    Static,
}

/// One resolution of the target's host.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DnsObservation {
    /// `system`, the `--dns-server` address, or `static`.
    pub resolver: String,
    /// The name asked.
    pub name: String,
    /// How it ended.
    pub outcome: DnsOutcome,
    /// The CNAME chain followed, in order (`a.example.com -> b.example.net`).
    pub cnames: Vec<String>,
    /// A and AAAA answers.
    pub addresses: Vec<String>,
    /// Response code or error text, when not an answer.
    pub detail: Option<String>,
    /// Milliseconds.
    pub ms: f64,
}

/// How a TCP connect ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectOutcome {
    /// Connected.
    #[default]
    Connected,
    /// RST: nothing listens on the port (or a firewall rejects).
    Refused,
    /// No reply within the timeout (dropped by a firewall, security group, dead host).
    Timeout,
    /// No route to the host or network.
    Unreachable,
    /// Any other error.
    Error,
}

/// One TCP connect.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ConnectObservation {
    /// `ip:port`.
    pub address: String,
    /// How it ended.
    pub outcome: ConnectOutcome,
    /// Error text.
    pub detail: Option<String>,
    /// Milliseconds.
    pub ms: f64,
}

/// How a TLS handshake ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandshakeOutcome {
    /// Completed (verification is reported apart).
    #[default]
    Completed,
    /// No handshake within the timeout (a server that stalls, or a plaintext listener waiting for a request).
    Timeout,
    /// The connection was closed or reset during the handshake.
    Reset,
    /// The server's bytes are not TLS (plaintext HTTP, another protocol, garbage).
    NotTls,
    /// The server sent a TLS alert (handshake failure, protocol version, no common cipher).
    Alert,
    /// A handshake message (the certificate chain) is larger than clients accept.
    TooLarge,
    /// Any other error.
    Error,
}

/// One certificate as served.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ServedCert {
    /// Subject.
    pub subject: String,
    /// Common name.
    pub common_name: Option<String>,
    /// Issuer.
    pub issuer: String,
    /// DNS SANs.
    pub dns_names: Vec<String>,
    /// IP SANs.
    pub ip_addresses: Vec<String>,
    /// notBefore, Unix seconds.
    pub not_before: i64,
    /// notAfter, Unix seconds.
    pub not_after: i64,
    /// Key algorithm.
    pub key_algorithm: String,
    /// Key size in bits.
    pub key_bits: u32,
    /// Signature algorithm.
    pub signature_algorithm: String,
    /// CA flag.
    pub is_ca: bool,
    /// Self-signed.
    pub self_signed: bool,
    /// AIA caIssuers URLs.
    pub ca_issuers: Vec<String>,
    /// SHA-256 fingerprint.
    pub sha256: String,
    /// Could not be parsed: why.
    pub parse_error: Option<String>,
}

impl ServedCert {
    /// Summarizes a parsed certificate.
    pub fn from_info(c: &CertInfo) -> ServedCert {
        ServedCert {
            subject: c.subject.clone(),
            common_name: c.common_name.clone(),
            issuer: c.issuer.clone(),
            dns_names: c.dns_names.to_vec(),
            ip_addresses: c.ip_addresses.to_vec(),
            not_before: c.not_before,
            not_after: c.not_after,
            key_algorithm: c.key_algorithm.to_string(),
            key_bits: c.key_bits,
            signature_algorithm: c.signature_algorithm.to_string(),
            is_ca: c.is_ca,
            self_signed: c.self_signed,
            ca_issuers: c.ca_issuers.to_vec(),
            sha256: c.sha256.to_string(),
            parse_error: None,
        }
    }

    /// Parses DER, keeping a placeholder with the reason when it is not a certificate.
    pub fn from_der(der: &[u8]) -> ServedCert {
        match CertInfo::from_der(der) {
            Ok(c) => ServedCert::from_info(&c),
            Err(e) => ServedCert { parse_error: Some(e), ..ServedCert::default() },
        }
    }

    /// Names this certificate is valid for (SANs; the CN when it has none).
    pub fn names(&self) -> Vec<String> {
        if self.dns_names.is_empty() && self.ip_addresses.is_empty() {
            self.common_name.iter().cloned().collect()
        } else {
            self.dns_names.iter().chain(&self.ip_addresses).cloned().collect()
        }
    }
}

/// Why the served chain does not verify, precisely.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum VerifyProblem {
    /// The chain ends at an issuer the trust store does not hold.
    UnknownIssuer {
        /// The issuer no trusted root matches.
        issuer: String,
    },
    /// The leaf is self-signed.
    SelfSigned {
        /// Its subject.
        subject: String,
    },
    /// The served chain lacks the leaf's issuer (the intermediate is not sent).
    IncompleteChain {
        /// The issuer the leaf names.
        missing_issuer: String,
        /// AIA caIssuers URLs of the leaf, where a client could fetch it.
        aia: Vec<String>,
    },
    /// A certificate of the chain has expired.
    Expired {
        /// Its subject.
        subject: String,
        /// notAfter, Unix seconds.
        not_after: i64,
    },
    /// A certificate of the chain is not valid yet.
    NotYetValid {
        /// Its subject.
        subject: String,
        /// notBefore, Unix seconds.
        not_before: i64,
    },
    /// The leaf does not cover the name asked for.
    NameMismatch {
        /// The name asked for (SNI or host).
        host: String,
        /// The names served.
        sans: Vec<String>,
    },
    /// The leaf names its host only in the CN; clients ignore the CN.
    CnOnly {
        /// The CN.
        common_name: String,
    },
    /// A key too weak for clients.
    WeakKey {
        /// Subject of the certificate.
        subject: String,
        /// Why.
        detail: String,
    },
    /// A SHA-1 (or older) signature.
    WeakSignature {
        /// Subject.
        subject: String,
        /// Signature algorithm.
        detail: String,
    },
    /// The server's handshake signature did not verify (or uses an algorithm we refuse).
    HandshakeSignature {
        /// Error text.
        detail: String,
    },
    /// Anything else the verifier said.
    Other {
        /// Error text.
        detail: String,
    },
}

/// The TLS handshake.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TlsObservation {
    /// The address used.
    pub address: String,
    /// SNI sent (none for address literals).
    pub sni: Option<String>,
    /// The name verified against.
    pub verify_name: String,
    /// ALPN offered.
    pub offered_alpn: Vec<String>,
    /// How the handshake ended.
    pub outcome: HandshakeOutcome,
    /// Error text when it did not complete.
    pub detail: Option<String>,
    /// `TLSv1.3`, `TLSv1.2`.
    pub version: Option<String>,
    /// Cipher suite.
    pub cipher: Option<String>,
    /// ALPN selected by the server (`None`: no ALPN, which means HTTP/1.1).
    pub alpn: Option<String>,
    /// The chain as served, leaf first, even when it does not verify.
    pub chain: Vec<ServedCert>,
    /// The chain verified against the trust store and the name.
    pub verified: bool,
    /// Why it did not verify; also weak keys and signatures of a chain that did.
    pub problems: Vec<VerifyProblem>,
    /// The trust store used: `system`, `webpki-roots`, or the `--cacert` file.
    pub trust: String,
    /// Milliseconds.
    pub ms: f64,
}

/// How an HTTP exchange ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HttpOutcome {
    /// A response arrived (any status).
    #[default]
    Response,
    /// No response head within the timeout.
    Timeout,
    /// The connection failed before or during the exchange.
    Error,
    /// The response was malformed (giant headers, not HTTP).
    Malformed,
    /// Not attempted (an earlier layer failed).
    Skipped,
}

/// One HTTP request and its response.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HttpObservation {
    /// URL requested.
    pub url: String,
    /// `HTTP/1.1` or `HTTP/2`.
    pub protocol: String,
    /// How it ended.
    pub outcome: HttpOutcome,
    /// Error text.
    pub detail: Option<String>,
    /// Status code.
    pub status: Option<u16>,
    /// Response headers, names lower-case, in order.
    pub headers: Vec<(String, String)>,
    /// Body bytes read (at most the read bound).
    pub body_len: u64,
    /// The body was longer than the bound (or endless) and reading stopped.
    pub body_truncated: bool,
    /// SHA-256 of the bytes read, hex.
    pub body_sha256: String,
    /// The start of the body as text (at most 512 bytes, lossy).
    pub body_prefix: String,
    /// Milliseconds to the response head.
    pub ms: f64,
}

impl HttpObservation {
    /// A response header, first value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Envoy's answer when no route matches: `404` with `server: envoy` and an empty body (Envoy Gateway,
    /// Istio, Contour, Cilium's Envoy). An application behind Envoy answers 404 with a body of its own.
    pub fn envoy_no_route(&self) -> bool {
        self.status == Some(404)
            && self.header("server").is_some_and(|v| v.eq_ignore_ascii_case("envoy"))
            && self.body_len == 0
    }
}

/// One gRPC call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GrpcCall {
    /// Whether it was attempted.
    pub attempted: bool,
    /// Why not, or the transport error.
    pub detail: Option<String>,
    /// HTTP status of the reply.
    pub http_status: Option<u16>,
    /// Response content-type.
    pub content_type: Option<String>,
    /// `grpc-status` (0 OK, 12 UNIMPLEMENTED, 14 UNAVAILABLE...).
    pub grpc_status: Option<u32>,
    /// `grpc-message`.
    pub grpc_message: Option<String>,
    /// Milliseconds.
    pub ms: f64,
}

impl GrpcCall {
    /// The call reached a gRPC server: a `grpc-status` came back that is not a transport failure
    /// (UNIMPLEMENTED proves the protocol works; UNAVAILABLE from a proxy does not).
    pub fn works(&self) -> bool {
        matches!(self.grpc_status, Some(s) if s != 14)
    }
}

/// gRPC calls: native (HTTP/2) and grpc-web (HTTP/1.1).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GrpcObservation {
    /// `grpc.health.v1.Health/Check` over HTTP/2.
    pub native: GrpcCall,
    /// The same call as grpc-web over HTTP/1.1.
    pub web: GrpcCall,
}

/// Whether a legacy protocol version is accepted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LegacyTlsObservation {
    /// `TLSv1` or `TLSv1.1`.
    pub version: String,
    /// `Some(true)`: the server completed a handshake at that version.
    pub accepted: Option<bool>,
    /// Cipher, or the error.
    pub detail: Option<String>,
}

impl TargetObservation {
    /// The first HTTP exchange.
    pub fn first_http(&self) -> Option<&HttpObservation> {
        self.http.first()
    }

    /// True when some address connected.
    pub fn connected(&self) -> bool {
        self.connects.iter().any(|c| c.outcome == ConnectOutcome::Connected)
    }

    /// True when DNS produced addresses (or was skipped).
    pub fn resolved(&self) -> bool {
        self.dns.is_empty() || self.dns.iter().any(|d| matches!(d.outcome, DnsOutcome::Answer | DnsOutcome::Static))
    }
}
