//! Test servers on 127.0.0.1 and a PKI generated at test time.
#![allow(clippy::unwrap_used, dead_code)]

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use edgecheck_core::observation::TargetObservation;
use edgecheck_probe::ProbeOptions;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

pub struct Pki {
    pub ca_pem: String,
    /// Leaf first, then what the server sends after it.
    pub chain: Vec<Vec<u8>>,
    pub leaf_key: Vec<u8>,
    pub intermediate_cn: String,
}

#[derive(Clone)]
pub struct Leaf<'a> {
    pub sans: &'a [&'a str],
    pub cn: Option<&'a str>,
    pub from_days: i64,
    pub to_days: i64,
    /// Serve the intermediate after the leaf.
    pub send_intermediate: bool,
    /// A self-signed leaf.
    pub self_signed: bool,
}

impl Default for Leaf<'_> {
    fn default() -> Self {
        Leaf { sans: &["shop.test"], cn: None, from_days: -1, to_days: 90, send_intermediate: true, self_signed: false }
    }
}

pub fn at(days: i64) -> time::OffsetDateTime {
    rcgen::date_time_ymd(1970, 1, 1) + time::Duration::seconds(time_now() + days * 86400)
}

/// Root → intermediate → leaf.
pub fn pki(l: Leaf<'_>) -> Pki {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name.push(DnType::CommonName, "Test Root");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let root = rcgen::Issuer::new(ca, ca_key);
    let int_key = KeyPair::generate().unwrap();
    let mut int = CertificateParams::new(Vec::<String>::new()).unwrap();
    int.distinguished_name.push(DnType::CommonName, "Test Intermediate");
    int.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let int_cert = int.signed_by(&int_key, &root).unwrap();
    let inter = rcgen::Issuer::new(int, int_key);
    let key = KeyPair::generate().unwrap();
    let mut p = CertificateParams::new(l.sans.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
    p.distinguished_name.push(DnType::CommonName, l.cn.unwrap_or(l.sans.first().copied().unwrap_or("leaf")));
    p.not_before = at(l.from_days);
    p.not_after = at(l.to_days);
    let leaf = if l.self_signed { p.self_signed(&key).unwrap() } else { p.signed_by(&key, &inter).unwrap() };
    let mut chain = vec![leaf.der().to_vec()];
    if l.send_intermediate && !l.self_signed {
        chain.push(int_cert.der().to_vec());
    }
    Pki { ca_pem: ca_cert.pem(), chain, leaf_key: key.serialize_der(), intermediate_cn: "Test Intermediate".into() }
}

pub fn time_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

/// A rustls HTTPS server answering every request with 200 "ok", offering `alpn`.
pub fn tls_server(p: &Pki, alpn: &[&[u8]]) -> u16 {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut cfg = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(
            p.chain.iter().map(|c| c.clone().into()).collect(),
            rustls::pki_types::PrivateKeyDer::Pkcs8(p.leaf_key.clone().into()),
        )
        .unwrap();
    cfg.alpn_protocols = alpn.iter().map(|a| a.to_vec()).collect();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(cfg));
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    l.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::from_std(l).unwrap();
            loop {
                let (s, _) = l.accept().await.unwrap();
                let a = acceptor.clone();
                tokio::spawn(async move {
                    if let Ok(mut t) = a.accept(s).await {
                        let mut buf = [0u8; 4096];
                        let _ = t.read(&mut buf).await;
                        let _ =
                            t.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok").await;
                        let _ = t.shutdown().await;
                    }
                });
            }
        });
    });
    port
}

/// A raw TCP server that does `f` with every connection.
pub fn raw_server(reply: &'static [u8], stall: bool) -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || {
                let mut s = s;
                use std::io::Write;
                let _ = s.write_all(reply);
                if stall {
                    std::thread::sleep(Duration::from_secs(5));
                }
            });
        }
    });
    port
}

pub fn opts(port: u16, ca: Option<&str>) -> ProbeOptions {
    let mut o = ProbeOptions {
        resolve: vec![("shop.test".into(), port, "127.0.0.1".parse::<IpAddr>().unwrap())],
        timeout: Duration::from_millis(800),
        ..Default::default()
    };
    if let Some(pem) = ca {
        // Cargo's scratch directory for integration tests (below `target/`), not the system's: one file per
        // test server would pile up in /tmp run after run.
        let f = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("edgecheck-ca-{port}.pem"));
        std::fs::write(&f, pem).unwrap();
        o.cacert = Some(f);
    }
    o
}

/// A reply: status, headers, body.
pub type Reply = (u16, Vec<(&'static str, String)>, Vec<u8>);
/// Answers a request: method, path, host.
pub type Handler = Arc<dyn Fn(&str, &str, &str) -> Reply + Send + Sync>;

async fn serve_conn<S>(io: S, h2: bool, h: Handler)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    use http_body_util::Full;
    let svc = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
        let h = h.clone();
        async move {
            let host = req
                .headers()
                .get("host")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
                .or_else(|| req.uri().authority().map(|a| a.to_string()))
                .unwrap_or_default();
            let (status, headers, body) = h(req.method().as_str(), req.uri().path(), &host);
            let mut b = hyper::Response::builder().status(status);
            for (k, v) in headers {
                b = b.header(k, v);
            }
            Ok::<_, std::convert::Infallible>(b.body(Full::new(bytes::Bytes::from(body))).unwrap())
        }
    });
    let io = hyper_util::rt::TokioIo::new(io);
    if h2 {
        let _ = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
            .serve_connection(io, svc)
            .await;
    } else {
        let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, svc).await;
    }
}

pub fn spawn_listener<F, Fut>(addr: &str, f: F) -> u16
where
    F: Fn(tokio::net::TcpStream) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let l = std::net::TcpListener::bind(addr).unwrap();
    let port = l.local_addr().unwrap().port();
    l.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::from_std(l).unwrap();
            while let Ok((s, _)) = l.accept().await {
                tokio::spawn(f(s));
            }
        });
    });
    port
}

/// An HTTPS server (rustls + hyper) offering `alpn`; h2 when the client picks it.
pub fn https(p: &Pki, alpn: &[&[u8]], h: Handler) -> u16 {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut cfg = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(
            p.chain.iter().map(|c| c.clone().into()).collect(),
            rustls::pki_types::PrivateKeyDer::Pkcs8(p.leaf_key.clone().into()),
        )
        .unwrap();
    cfg.alpn_protocols = alpn.iter().map(|a| a.to_vec()).collect();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(cfg));
    spawn_listener("127.0.0.1:0", move |s| {
        let (a, h) = (acceptor.clone(), h.clone());
        async move {
            if let Ok(t) = a.accept(s).await {
                let h2 = t.get_ref().1.alpn_protocol() == Some(b"h2");
                serve_conn(t, h2, h).await;
            }
        }
    })
}

/// A plaintext HTTP/1.1 server (or h2c prior knowledge only, with `h2c`).
pub fn http(h2c: bool, h: Handler) -> u16 {
    spawn_listener("127.0.0.1:0", move |s| serve_conn(s, h2c, h.clone()))
}

/// The findings of every check over these observations: (code, layer, message, evidence).
pub fn verdict(obs: &[TargetObservation]) -> Vec<(String, String, String, Vec<String>)> {
    let options = edgecheck_core::Options::default();
    let graph = edgecheck_core::Graph::build(edgecheck_core::Inventory::default(), &options);
    let selection = edgecheck_checks::Selection::default();
    let a = edgecheck_checks::analyze(&graph, &options, time_now(), &selection, &[], obs, Default::default());
    a.findings
        .into_iter()
        .map(|f| (f.meta.code.to_string(), f.meta.layer.as_str().to_string(), f.message.clone(), f.evidence.clone()))
        .collect()
}

/// The codes found.
pub fn codes(obs: &[TargetObservation]) -> Vec<String> {
    verdict(obs).into_iter().map(|v| v.0).collect()
}

/// Fails with a clear message when a Debian binary is missing (never skips).
pub fn need(bin: &str) -> std::path::PathBuf {
    for dir in ["/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin", "/usr/local/bin"] {
        let p = std::path::Path::new(dir).join(bin);
        if p.exists() {
            return p;
        }
    }
    panic!("`{bin}` is not installed: run `apt-get install -y nginx haproxy` (the .ci/run script does)");
}

/// A free port on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Waits until something listens on the port.
pub fn wait_port(port: u16) {
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    panic!("nothing listens on 127.0.0.1:{port}");
}

/// A child process killed on drop.
pub struct Child(pub std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A handler that always answers 200 `ok`.
pub fn ok() -> Handler {
    Arc::new(|_, _, _| (200, vec![("content-type", "text/plain".to_string())], b"ok".to_vec()))
}

/// A gRPC health server: answers `grpc.health.v1.Health/Check` trailers-only with `status`.
pub fn grpc_health(status: u32) -> Handler {
    Arc::new(move |m, path, _| {
        if m == "POST" && path == "/grpc.health.v1.Health/Check" {
            (200, vec![("content-type", "application/grpc".into()), ("grpc-status", status.to_string())], vec![])
        } else {
            (404, vec![], b"not found".to_vec())
        }
    })
}

/// A raw TCP server running `f` on every connection in a thread.
pub fn raw_server_fn(f: fn(std::net::TcpStream)) -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || f(s));
        }
    });
    port
}

/// PEM text of DER blocks.
pub fn pem(label: &str, ders: &[Vec<u8>]) -> String {
    use base64::Engine as _;
    let mut s = String::new();
    for d in ders {
        let b = base64::engine::general_purpose::STANDARD.encode(d);
        s.push_str(&format!("-----BEGIN {label}-----\n"));
        for line in b.as_bytes().chunks(64) {
            s.push_str(std::str::from_utf8(line).unwrap());
            s.push('\n');
        }
        s.push_str(&format!("-----END {label}-----\n"));
    }
    s
}

/// A temporary directory removed on drop.
pub struct TempDir(pub std::path::PathBuf);
impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("edgecheck-{tag}-{}-{}", std::process::id(), free_port()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Starts nginx with `server_blocks` inside `http {}`; `{dir}` in the text becomes the temp dir.
pub fn nginx(dir: &TempDir, server_blocks: &str, ports: &[u16]) -> Child {
    let bin = need("nginx");
    let d = dir.0.display().to_string();
    let conf = format!(
        "master_process off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\nevents {{ worker_connections 256; }}\n\
         http {{\n access_log off;\n client_body_temp_path {d}/body;\n proxy_temp_path {d}/proxy;\n\
         fastcgi_temp_path {d}/fcgi;\n uwsgi_temp_path {d}/uwsgi;\n scgi_temp_path {d}/scgi;\n{}\n}}\n",
        server_blocks.replace("{dir}", &d)
    );
    std::fs::write(dir.0.join("nginx.conf"), conf).unwrap();
    let child = std::process::Command::new(bin)
        .args(["-p", &d, "-c", &format!("{d}/nginx.conf"), "-g", "daemon off;"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let c = Child(child);
    for p in ports {
        wait_port(*p);
    }
    c
}

/// Starts haproxy with `body` after a minimal global/defaults section.
pub fn haproxy(dir: &TempDir, body: &str, ports: &[u16]) -> Child {
    let bin = need("haproxy");
    let conf = format!(
        "global\n  maxconn 256\ndefaults\n  timeout connect 2s\n  timeout client 5s\n  timeout server 5s\n{body}\n"
    );
    let path = dir.0.join("haproxy.cfg");
    std::fs::write(&path, conf).unwrap();
    let child = std::process::Command::new(bin)
        .args(["-db", "-f"])
        .arg(&path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let c = Child(child);
    for p in ports {
        wait_port(*p);
    }
    c
}

/// Writes the leaf chain and key of `p` as PEM files in `dir`: (cert path, key path).
pub fn write_pem(dir: &TempDir, p: &Pki) -> (String, String) {
    let crt = dir.0.join("tls.crt");
    let key = dir.0.join("tls.key");
    std::fs::write(&crt, pem("CERTIFICATE", &p.chain)).unwrap();
    std::fs::write(&key, pem("PRIVATE KEY", std::slice::from_ref(&p.leaf_key))).unwrap();
    (crt.display().to_string(), key.display().to_string())
}
