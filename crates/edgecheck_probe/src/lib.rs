//! The data plane of edgecheck: what `dig`, `openssl s_client`, `curl -v` and `grpcurl` would show of
//! an endpoint, layer by layer, as [`TargetObservation`]s the checks turn into findings.
//!
//! Each target: DNS (system resolver and `--dns-server`, or `--resolve`), a TCP connect per address,
//! a TLS handshake recording the whole served chain even when it does not verify, an HTTP request
//! over the negotiated protocol (bounded), redirects, h2c for plaintext targets, gRPC health calls,
//! and optionally (`legacy` feature) TLS 1.0/1.1 acceptance. Every phase has its own timeout; hostile
//! servers end in an observation, never a hang.

mod dns;
mod http;
#[cfg(feature = "legacy")]
mod legacy;
mod oversize;
mod tls;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use edgecheck_core::observation::TargetObservation;
use edgecheck_core::observation::{
    ConnectObservation, ConnectOutcome, DnsObservation, DnsOutcome, GrpcCall, GrpcObservation, HandshakeOutcome,
    HttpObservation, HttpOutcome, TlsObservation,
};
use rustls::pki_types::ServerName;
use rustls::RootCertStore;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// How to probe.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// `--resolve HOST:PORT:ADDR`: skips DNS for that host and port.
    pub resolve: Vec<(String, u16, IpAddr)>,
    /// `--cacert FILE`: trust only these roots.
    pub cacert: Option<PathBuf>,
    /// `--sni`: the name sent and verified instead of the host.
    pub sni: Option<String>,
    /// `--alpn`: protocols offered (default `h2,http/1.1`).
    pub alpn: Vec<String>,
    /// Per-phase timeout.
    pub timeout: Duration,
    /// `--dns-server ADDR[:PORT]`: asked besides the system resolver.
    pub dns_server: Option<String>,
    /// Targets probed at once.
    pub concurrency: usize,
    /// Probe gRPC for every target (always for `grpc://` and `grpcs://`).
    pub grpc: bool,
    /// Try TLS 1.0 and 1.1 (needs the `legacy` feature).
    pub legacy: bool,
    /// Redirects followed at most.
    pub max_redirects: usize,
    /// The clock used to judge validity, Unix seconds (default: now).
    pub now: Option<i64>,
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions {
            resolve: Vec::new(),
            cacert: None,
            sni: None,
            alpn: vec!["h2".into(), "http/1.1".into()],
            timeout: Duration::from_secs(5),
            dns_server: None,
            concurrency: 64,
            grpc: false,
            legacy: false,
            max_redirects: 5,
            now: None,
        }
    }
}

/// The largest handshake message (and certificate list) rustls accepts: 64 KiB.
const HANDSHAKE_MESSAGE_LIMIT: usize = 0xffff;

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}
type BoxIo = Box<dyn Io>;

struct Shared {
    opts: ProbeOptions,
    roots: Arc<RootCertStore>,
    trust: String,
    system: Result<hickory_resolver::TokioResolver, String>,
    server: Option<Result<hickory_resolver::TokioResolver, String>>,
    now: i64,
}

/// Parsed target.
#[derive(Debug, Clone)]
struct Target {
    scheme: String,
    host: String,
    port: u16,
    path: String,
}

impl Target {
    fn tls(&self) -> bool {
        matches!(self.scheme.as_str(), "https" | "grpcs")
    }
    fn authority(&self) -> String {
        let h = if self.host.contains(':') { format!("[{}]", self.host) } else { self.host.clone() };
        let default = matches!((self.scheme.as_str(), self.port), ("https" | "grpcs", 443) | ("http" | "grpc", 80));
        if default {
            h
        } else {
            format!("{h}:{}", self.port)
        }
    }
    fn url(&self) -> String {
        let h = if self.host.contains(':') { format!("[{}]", self.host) } else { self.host.clone() };
        format!("{}://{}:{}{}", self.scheme, h, self.port, self.path)
    }
    fn http_url(&self) -> String {
        let s = if self.tls() { "https" } else { "http" };
        format!("{s}://{}{}", self.authority(), self.path)
    }
}

fn parse_target(t: &str) -> Result<Target, String> {
    let (scheme, rest) = match t.split_once("://") {
        Some((s, r)) => (s.to_ascii_lowercase(), r),
        None => (String::new(), t),
    };
    let (hostport, path) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], rest[i..].to_string()),
        None => (rest, "/".to_string()),
    };
    let path = if path.starts_with('?') { format!("/{path}") } else { path };
    let (host, port) = if let Some(r) = hostport.strip_prefix('[') {
        let (h, after) = r.split_once(']').ok_or_else(|| format!("`{t}`: unclosed `[`"))?;
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p.parse::<u16>().map_err(|_| format!("`{t}`: bad port `{p}`"))?),
            None => None,
        };
        (h.to_string(), port)
    } else {
        match hostport.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p.parse::<u16>().map_err(|_| format!("`{t}`: bad port `{p}`"))?)),
            None => (hostport.to_string(), None),
        }
    };
    if host.is_empty() {
        return Err(format!("`{t}`: no host"));
    }
    let scheme = match scheme.as_str() {
        "" => if port == Some(80) { "http" } else { "https" }.to_string(),
        "http" | "https" | "grpc" | "grpcs" => scheme,
        other => return Err(format!("`{t}`: unsupported scheme `{other}`")),
    };
    let port = port.unwrap_or(if matches!(scheme.as_str(), "https" | "grpcs") { 443 } else { 80 });
    Ok(Target { scheme, host: host.to_ascii_lowercase(), port, path })
}

/// Probes every target (blocking; builds its own runtime).
pub fn probe_blocking(targets: &[String], opts: &ProbeOptions) -> Vec<TargetObservation> {
    match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt.block_on(probe(targets, opts)),
        Err(e) => targets
            .iter()
            .map(|t| TargetObservation {
                target: t.clone(),
                error: Some(format!("no runtime: {e}")),
                ..Default::default()
            })
            .collect(),
    }
}

/// Probes every target, `opts.concurrency` at a time; results in the order of `targets`.
pub async fn probe(targets: &[String], opts: &ProbeOptions) -> Vec<TargetObservation> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (roots, trust) = tls::roots(opts.cacert.as_deref());
    let now = opts.now.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
    });
    let shared = Arc::new(Shared {
        system: dns::system_resolver(opts.timeout),
        server: opts.dns_server.as_deref().map(|s| dns::server_resolver(s, opts.timeout)),
        opts: opts.clone(),
        roots,
        trust,
        now,
    });
    let sem = Arc::new(tokio::sync::Semaphore::new(opts.concurrency.max(1)));
    let mut set = tokio::task::JoinSet::new();
    for (i, t) in targets.iter().enumerate() {
        let (shared, sem, t) = (shared.clone(), sem.clone(), t.clone());
        set.spawn(async move {
            let _permit = sem.acquire_owned().await;
            // A safety net over the per-phase timeouts. What was observed before it struck is kept,
            // and the phase it interrupted is recorded as timed out, so a finding says so.
            let budget = shared.opts.timeout * 12 + Duration::from_secs(1);
            let start = Instant::now();
            let mut obs = TargetObservation { target: t.clone(), ..Default::default() };
            let mut phase = Phase::Dns;
            if tokio::time::timeout(budget, probe_one(&shared, &t, &mut obs, &mut phase)).await.is_err() {
                budget_exceeded(&mut obs, phase, budget);
                obs.total_ms = http::ms(start);
            }
            (i, obs)
        });
    }
    let mut out: Vec<Option<TargetObservation>> = vec![None; targets.len()];
    while let Some(r) = set.join_next().await {
        if let Ok((i, o)) = r {
            out[i] = Some(o);
        }
    }
    out.into_iter()
        .zip(targets)
        .map(|(o, t)| {
            o.unwrap_or_else(|| TargetObservation {
                target: t.clone(),
                error: Some("probe task failed".into()),
                ..Default::default()
            })
        })
        .collect()
}

async fn resolve(sh: &Shared, host: &str, port: u16, record: bool) -> (Vec<DnsObservation>, Vec<IpAddr>) {
    if let Some((_, _, a)) = sh.opts.resolve.iter().find(|(h, p, _)| h.eq_ignore_ascii_case(host) && *p == port) {
        let o = DnsObservation {
            resolver: "static".into(),
            name: host.into(),
            outcome: DnsOutcome::Static,
            addresses: vec![a.to_string()],
            detail: Some("--resolve".into()),
            ..Default::default()
        };
        return (vec![o], vec![*a]);
    }
    if let Ok(ip) = host.parse::<IpAddr>() {
        let o = DnsObservation {
            resolver: "static".into(),
            name: host.into(),
            outcome: DnsOutcome::Static,
            addresses: vec![ip.to_string()],
            detail: Some("address literal".into()),
            ..Default::default()
        };
        return (vec![o], vec![ip]);
    }
    let mut obs = vec![dns::lookup("system", sh.system.as_ref(), host, sh.opts.timeout).await];
    if record {
        if let (Some(server), Some(name)) = (&sh.server, &sh.opts.dns_server) {
            obs.push(dns::lookup(name, server.as_ref(), host, sh.opts.timeout).await);
        }
    }
    let addrs = obs.iter().flat_map(|o| o.addresses.iter().filter_map(|a| a.parse().ok())).collect::<Vec<IpAddr>>();
    let mut uniq = Vec::new();
    for a in addrs {
        if !uniq.contains(&a) {
            uniq.push(a);
        }
    }
    (obs, uniq)
}

async fn connect(addr: SocketAddr, timeout: Duration) -> (ConnectObservation, Option<TcpStream>) {
    let start = Instant::now();
    let mut o = ConnectObservation { address: addr.to_string(), ..Default::default() };
    let r = tokio::time::timeout(timeout, TcpStream::connect(addr)).await;
    o.ms = http::ms(start);
    match r {
        Err(_) => {
            o.outcome = ConnectOutcome::Timeout;
            o.detail = Some(format!("no answer within {} ms", timeout.as_millis()));
            (o, None)
        }
        Ok(Ok(s)) => {
            let _ = s.set_nodelay(true);
            (o, Some(s))
        }
        Ok(Err(e)) => {
            use std::io::ErrorKind as E;
            o.outcome = match e.kind() {
                E::ConnectionRefused => ConnectOutcome::Refused,
                E::TimedOut => ConnectOutcome::Timeout,
                E::HostUnreachable | E::NetworkUnreachable | E::AddrNotAvailable => ConnectOutcome::Unreachable,
                _ => match e.raw_os_error() {
                    Some(101 | 113) => ConnectOutcome::Unreachable,
                    _ => ConnectOutcome::Error,
                },
            };
            o.detail = Some(e.to_string());
            (o, None)
        }
    }
}

/// A TLS handshake over `tcp`; the observation and the stream when it completed.
async fn handshake(
    sh: &Shared,
    tcp: TcpStream,
    host: &str,
    alpn: &[String],
) -> (TlsObservation, Option<tokio_rustls::client::TlsStream<TcpStream>>) {
    let start = Instant::now();
    let verify_name = sh.opts.sni.clone().unwrap_or_else(|| host.to_string());
    let mut o = TlsObservation {
        address: tcp.peer_addr().map(|a| a.to_string()).unwrap_or_default(),
        sni: verify_name.parse::<IpAddr>().is_err().then(|| verify_name.clone()),
        verify_name: verify_name.clone(),
        offered_alpn: alpn.to_vec(),
        trust: sh.trust.clone(),
        ..Default::default()
    };
    let inner = match rustls::client::WebPkiServerVerifier::builder(sh.roots.clone()).build() {
        Ok(v) => v,
        Err(e) => {
            // An empty trust store: still observe, everything is "unknown issuer".
            o.detail = Some(format!("trust store unusable: {e}"));
            let mut any = RootCertStore::empty();
            any.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            match rustls::client::WebPkiServerVerifier::builder(Arc::new(any)).build() {
                Ok(v) => v,
                Err(e) => {
                    o.outcome = HandshakeOutcome::Error;
                    o.detail = Some(e.to_string());
                    return (o, None);
                }
            }
        }
    };
    let verifier = Arc::new(tls::RecordingVerifier::new(inner));
    let mut cfg = rustls::ClientConfig::builder()
        .dangerous()
        .with_custom_certificate_verifier(verifier.clone())
        .with_no_client_auth();
    cfg.alpn_protocols = alpn.iter().map(|a| a.as_bytes().to_vec()).collect();
    let name = match ServerName::try_from(verify_name.clone()) {
        Ok(n) => n,
        Err(e) => {
            o.outcome = HandshakeOutcome::Error;
            o.detail = Some(format!("`{verify_name}` is not a valid server name: {e}"));
            return (o, None);
        }
    };
    let conn = tokio_rustls::TlsConnector::from(Arc::new(cfg));
    let (peer, again) = (tcp.peer_addr().ok(), name.clone());
    let r = tokio::time::timeout(sh.opts.timeout, conn.connect(name, tcp)).await;
    o.ms = http::ms(start);
    let rec = verifier.take();
    let (chain, verified, problems) = tls::analyze(&rec, &verify_name, sh.now);
    o.chain = chain;
    o.verified = verified;
    o.problems = problems;
    match r {
        Err(_) => {
            o.outcome = HandshakeOutcome::Timeout;
            o.detail = Some(format!("no handshake within {} ms", sh.opts.timeout.as_millis()));
            (o, None)
        }
        Ok(Err(e)) => {
            use std::io::ErrorKind as E;
            let te = e.get_ref().and_then(|x| x.downcast_ref::<rustls::Error>());
            o.outcome = match (e.kind(), te) {
                (_, Some(rustls::Error::AlertReceived(_))) => HandshakeOutcome::Alert,
                (
                    _,
                    Some(rustls::Error::InvalidMessage(
                        rustls::InvalidMessage::HandshakePayloadTooLarge
                        | rustls::InvalidMessage::CertificatePayloadTooLarge,
                    )),
                ) => HandshakeOutcome::TooLarge,
                (_, Some(rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateMessage { .. })) => {
                    HandshakeOutcome::NotTls
                }
                (E::ConnectionReset | E::UnexpectedEof | E::BrokenPipe | E::ConnectionAborted, _) => {
                    HandshakeOutcome::Reset
                }
                _ => HandshakeOutcome::Error,
            };
            o.detail = Some(if o.outcome == HandshakeOutcome::TooLarge {
                // How large, and how many certificates: read over TLS 1.2, where the message is plaintext.
                let size = match peer {
                    Some(addr) => oversize::measure(addr, again, verifier.clone(), sh.opts.timeout).await,
                    None => None,
                };
                let size = size.map_or_else(
                    || "its size is not known: the server did not show it over TLS 1.2".to_string(),
                    |c| c.describe(),
                );
                format!(
                    "a handshake message from the server exceeds the limit of {} bytes (its certificate chain, \
                     or one certificate, is too large): {size}; {e}",
                    HANDSHAKE_MESSAGE_LIMIT
                )
            } else {
                e.to_string()
            });
            (o, None)
        }
        Ok(Ok(s)) => {
            let (_, c) = s.get_ref();
            o.version = c.protocol_version().map(|v| match v {
                rustls::ProtocolVersion::TLSv1_3 => "TLSv1.3".to_string(),
                rustls::ProtocolVersion::TLSv1_2 => "TLSv1.2".to_string(),
                other => format!("{other:?}"),
            });
            o.cipher = c.negotiated_cipher_suite().map(|cs| format!("{:?}", cs.suite()));
            o.alpn = c.alpn_protocol().map(|a| String::from_utf8_lossy(a).into_owned());
            (o, Some(s))
        }
    }
}

/// A fresh stream to `t` (for redirects and gRPC): TCP, and TLS offering `alpn` when `t` is TLS.
async fn open(sh: &Shared, t: &Target, alpn: &[String]) -> Result<(BoxIo, Option<String>), String> {
    let (_, addrs) = resolve(sh, &t.host, t.port, false).await;
    let mut last = format!("{}: no address", t.host);
    for a in addrs {
        let (c, s) = connect(SocketAddr::new(a, t.port), sh.opts.timeout).await;
        let Some(s) = s else {
            last = format!("connect {}: {}", c.address, c.detail.unwrap_or_default());
            continue;
        };
        if !t.tls() {
            return Ok((Box::new(s), None));
        }
        let (o, s) = handshake(sh, s, &t.host, alpn).await;
        return match s {
            Some(s) => Ok((Box::new(s), o.alpn)),
            None => Err(format!("TLS: {}", o.detail.unwrap_or_default())),
        };
    }
    Err(last)
}

/// The phase a probe is in (what a budget that runs out interrupted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Dns,
    Connect,
    Tls,
    Http,
    Redirects,
    H2c,
    Grpc,
    // Built only with the `legacy` feature (TLS 1.0/1.1 through OpenSSL).
    #[cfg_attr(not(feature = "legacy"), allow(dead_code))]
    Legacy,
}

/// Records that the per-target budget ran out in `phase`: as a timeout of that phase, where the
/// checks of its layer report it (a target is never dropped as an internal error).
fn budget_exceeded(obs: &mut TargetObservation, phase: Phase, budget: Duration) {
    let detail = Some(format!("the probe of this target exceeded its budget of {} ms", budget.as_millis()));
    let ms = budget.as_secs_f64() * 1000.0;
    let http_url = match (phase, obs.http.last()) {
        // The hop being fetched: where the last answer redirected.
        (Phase::Redirects, Some(h)) => h.header("location").map(|l| join_location(&h.url, l)),
        _ => None,
    }
    .or_else(|| parse_target(&obs.target).ok().map(|t| t.http_url()))
    .unwrap_or_else(|| obs.target.clone());
    let timeout_http = |url: String| HttpObservation {
        url,
        outcome: HttpOutcome::Timeout,
        detail: detail.clone(),
        ms,
        ..Default::default()
    };
    match phase {
        Phase::Dns => obs.dns.push(DnsObservation {
            resolver: "system".into(),
            name: obs.host.clone(),
            outcome: DnsOutcome::Timeout,
            detail: detail.clone(),
            ms,
            ..Default::default()
        }),
        Phase::Connect => obs.connects.push(ConnectObservation {
            address: format!("{}:{}", obs.host, obs.port),
            outcome: ConnectOutcome::Timeout,
            detail: detail.clone(),
            ms,
        }),
        Phase::Tls => {
            let t = obs.tls.get_or_insert_with(TlsObservation::default);
            t.outcome = HandshakeOutcome::Timeout;
            t.detail = detail.clone();
        }
        Phase::Http | Phase::Redirects => obs.http.push(timeout_http(http_url)),
        Phase::H2c => obs.h2c = Some(HttpObservation { protocol: "HTTP/2".into(), ..timeout_http(http_url) }),
        Phase::Grpc => {
            let call = GrpcCall { attempted: true, detail: detail.clone(), ..Default::default() };
            obs.grpc = Some(GrpcObservation { native: call.clone(), web: call });
        }
        Phase::Legacy => {
            for v in ["TLSv1", "TLSv1.1"] {
                if !obs.legacy.iter().any(|l| l.version == v) {
                    obs.legacy.push(edgecheck_core::observation::LegacyTlsObservation {
                        version: v.into(),
                        accepted: None,
                        detail: detail.clone(),
                    });
                }
            }
        }
    }
}

/// Probes `raw` into `obs`, keeping `phase` up to date.
async fn probe_one(sh: &Shared, raw: &str, obs: &mut TargetObservation, phase: &mut Phase) {
    let start = Instant::now();
    let t = match parse_target(raw) {
        Ok(t) => t,
        Err(e) => {
            obs.error = Some(e);
            return;
        }
    };
    obs.url = t.url();
    obs.scheme = t.scheme.clone();
    obs.host = t.host.clone();
    obs.port = t.port;
    obs.path = t.path.clone();
    obs.grpc_expected = sh.opts.grpc || t.scheme.starts_with("grpc");
    let (dns, addrs) = resolve(sh, &t.host, t.port, true).await;
    obs.dns = dns;
    *phase = Phase::Connect;
    let mut stream = None;
    for a in addrs {
        let (c, s) = connect(SocketAddr::new(a, t.port), sh.opts.timeout).await;
        obs.connects.push(c);
        if s.is_some() {
            stream = s;
            break;
        }
    }
    let Some(tcp) = stream else {
        obs.total_ms = http::ms(start);
        return;
    };
    *phase = Phase::Tls;
    let first: Option<(BoxIo, bool)> = if t.tls() {
        let (o, s) = handshake(sh, tcp, &t.host, &sh.opts.alpn).await;
        let h2 = o.alpn.as_deref() == Some("h2");
        obs.tls = Some(o);
        s.map(|s| (Box::new(s) as BoxIo, h2))
    } else {
        Some((Box::new(tcp) as BoxIo, false))
    };
    if let Some((io, h2)) = first {
        *phase = Phase::Http;
        let h = http::get(io, h2, &t.http_url(), &t.authority(), &t.path, sh.opts.timeout).await;
        obs.http.push(h);
        *phase = Phase::Redirects;
        follow_redirects(sh, obs).await;
        *phase = Phase::H2c;
        if !t.tls() {
            obs.h2c = Some(match open(sh, &t, &[]).await {
                Ok((io, _)) => http::get(io, true, &t.http_url(), &t.authority(), &t.path, sh.opts.timeout).await,
                Err(e) => HttpObservation {
                    url: t.http_url(),
                    protocol: "HTTP/2".into(),
                    outcome: HttpOutcome::Error,
                    detail: Some(e),
                    ..Default::default()
                },
            });
        }
        *phase = Phase::Grpc;
        if obs.grpc_expected {
            obs.grpc = Some(grpc(sh, &t).await);
        }
    }
    #[cfg(feature = "legacy")]
    if sh.opts.legacy && t.tls() && obs.tls.is_some() {
        if let Some(addr) = obs.connects.iter().find(|c| c.outcome == ConnectOutcome::Connected) {
            *phase = Phase::Legacy;
            let addr = addr.address.clone();
            let host = sh.opts.sni.clone().unwrap_or_else(|| t.host.clone());
            let timeout = sh.opts.timeout;
            // Each handshake ends by its own deadline (legacy::DeadlineStream) on a blocking thread.
            obs.legacy =
                tokio::task::spawn_blocking(move || legacy::probe(&addr, &host, timeout)).await.unwrap_or_default();
        }
    }
    obs.total_ms = http::ms(start);
}

async fn grpc(sh: &Shared, t: &Target) -> GrpcObservation {
    let scheme = if t.tls() { "https" } else { "http" };
    let native = match open(sh, t, &["h2".to_string()]).await {
        Ok((_, alpn)) if t.tls() && alpn.as_deref() != Some("h2") => GrpcCall {
            attempted: false,
            detail: Some(format!(
                "server selected {} although h2 was offered; native gRPC needs HTTP/2",
                alpn.as_deref().unwrap_or("no ALPN (HTTP/1.1)")
            )),
            ..Default::default()
        },
        Ok((io, _)) => http::grpc(io, false, &t.authority(), scheme, sh.opts.timeout).await,
        Err(e) => GrpcCall { attempted: true, detail: Some(e), ..Default::default() },
    };
    let web = match open(sh, t, &["http/1.1".to_string()]).await {
        Ok((io, _)) => http::grpc(io, true, &t.authority(), scheme, sh.opts.timeout).await,
        Err(e) => GrpcCall { attempted: true, detail: Some(e), ..Default::default() },
    };
    GrpcObservation { native, web }
}

async fn follow_redirects(sh: &Shared, obs: &mut TargetObservation) {
    let mut seen: Vec<String> = obs.http.iter().map(|h| h.url.clone()).collect();
    for _ in 0..sh.opts.max_redirects {
        let Some(last) = obs.http.last() else { return };
        let (Some(status), Some(loc)) = (last.status, last.header("location")) else { return };
        if !(300..400).contains(&status) {
            return;
        }
        let next = join_location(&last.url, loc);
        let repeat = seen.contains(&next);
        seen.push(next.clone());
        let t = match parse_target(&next) {
            Ok(t) => t,
            Err(e) => {
                obs.http.push(HttpObservation {
                    url: next,
                    outcome: HttpOutcome::Error,
                    detail: Some(e),
                    ..Default::default()
                });
                return;
            }
        };
        let h = match open(sh, &t, &sh.opts.alpn).await {
            Ok((io, alpn)) => {
                http::get(io, alpn.as_deref() == Some("h2"), &t.http_url(), &t.authority(), &t.path, sh.opts.timeout)
                    .await
            }
            Err(e) => HttpObservation {
                url: t.http_url(),
                outcome: HttpOutcome::Error,
                detail: Some(e),
                ..Default::default()
            },
        };
        obs.http.push(h);
        if repeat {
            return;
        }
    }
}

/// Resolves a Location against the URL it came from.
fn join_location(base: &str, loc: &str) -> String {
    if loc.contains("://") {
        return loc.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("https", base));
    let authority = rest.split('/').next().unwrap_or_default();
    if let Some(r) = loc.strip_prefix("//") {
        return format!("{scheme}://{r}");
    }
    if loc.starts_with('/') {
        return format!("{scheme}://{authority}{loc}");
    }
    let dir = rest.rsplit_once('/').map_or(rest, |(d, _)| d);
    format!("{scheme}://{dir}/{loc}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse() {
        let t = parse_target("shop.example.com").unwrap();
        assert_eq!(t.url(), "https://shop.example.com:443/");
        let t = parse_target("grpcs://API.example.com:8443/x?y").unwrap();
        assert_eq!(
            (t.scheme.as_str(), t.host.as_str(), t.port, t.path.as_str()),
            ("grpcs", "api.example.com", 8443, "/x?y")
        );
        let t = parse_target("[::1]:80").unwrap();
        assert_eq!(t.url(), "http://[::1]:80/");
        assert!(parse_target("ftp://x").is_err());
        assert_eq!(join_location("http://a:8080/x/y", "/z"), "http://a:8080/z");
        assert_eq!(join_location("http://a/x/y", "z"), "http://a/x/z");
    }
}
