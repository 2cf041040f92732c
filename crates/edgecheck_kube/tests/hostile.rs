//! `scan` against hostile and broken API servers (issue #16 items 7, 8, 11, 15): every case ends
//! within a hang guard, with the kind (or the scan) reported as could-not-check and why, and the
//! scan sends GET requests only.

mod api_server;

use std::path::Path;
use std::time::Duration;

use api_server::{Cluster, Failure, Hostile, Server};
use edgecheck_kube::{Limits, Scan, ScanError, ScanOptions};
use serde_json::{json, Value};

/// Runs `f` on a thread of its own; fails the test when it does not end within 30 s.
fn within_30s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(30)).expect("the scan did not end within 30 s")
}

fn objects() -> Vec<Value> {
    vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "uid": "n1"}}),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "shop", "uid": "s1"},
               "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "tls", "namespace": "shop", "uid": "x1"},
               "type": "Opaque", "data": {"password": "aHVudGVyMg=="}}),
    ]
}

fn run(server: &Server, dir: &Path, timeout: Duration, limits: Limits) -> Result<Scan, ScanError> {
    let options =
        ScanOptions { kubeconfig: Some(server.kubeconfig(dir)), timeout: Some(timeout), limits, ..Default::default() };
    within_30s(move || edgecheck_kube::scan(&options))
}

fn hostile(h: Hostile) -> Server {
    Server::start(Cluster { objects: objects(), hostile: h, ..Default::default() })
}

fn reason<'a>(s: &'a Scan, kind: &str) -> &'a str {
    let u = s.inventory.unchecked.iter().find(|u| u.kind == kind);
    &u.unwrap_or_else(|| panic!("{kind} is not unchecked: {:?}", s.inventory.unchecked)).reason
}

fn requests_for(server: &Server, prefix: &str) -> usize {
    server.requests().iter().filter(|r| r.starts_with(prefix)).count()
}

#[test]
fn endless_continue_tokens_stop_at_the_page_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = hostile(Hostile::EndlessTokens("services"));
    let limits = Limits { max_pages: 25, ..Limits::default() };
    let s = run(&server, dir.path(), Duration::from_secs(5), limits).expect("scan");
    assert_eq!(reason(&s, "Service"), "the list did not end after 25 pages (the limit per kind)");
    assert_eq!(requests_for(&server, "GET /api/v1/services"), 25);
    // The other kinds are read; none of the endless list's objects is kept.
    assert!(s.listed.iter().any(|l| l == "/Secret"), "{:?}", s.listed);
    assert!(!s.inventory.objects.iter().any(|o| o.kind.kind == "Service"));
    assert_eq!(server.non_get(), 0);
}

#[test]
fn endless_continue_tokens_stop_at_the_object_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = hostile(Hostile::EndlessTokens("services"));
    let limits = Limits { max_items: 7, ..Limits::default() };
    let s = run(&server, dir.path(), Duration::from_secs(5), limits).expect("scan");
    assert_eq!(reason(&s, "Service"), "more than 7 objects (the limit per kind)");
    assert_eq!(requests_for(&server, "GET /api/v1/services"), 8);
    assert_eq!(server.non_get(), 0);
}

#[test]
fn the_default_page_limit_ends_an_endless_list() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = hostile(Hostile::EndlessTokens("services"));
    let s = run(&server, dir.path(), Duration::from_secs(5), Limits::default()).expect("scan");
    assert_eq!(reason(&s, "Service"), "the list did not end after 1000 pages (the limit per kind)");
    assert_eq!(requests_for(&server, "GET /api/v1/services"), edgecheck_kube::MAX_PAGES);
}

#[test]
fn a_repeated_continue_token_ends_the_list() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = hostile(Hostile::SameToken("secrets"));
    let s = run(&server, dir.path(), Duration::from_secs(5), Limits::default()).expect("scan");
    assert_eq!(
        reason(&s, "Secret"),
        "the API server repeated a continue token after 2 pages: the list would never end"
    );
    assert_eq!(requests_for(&server, "GET /api/v1/secrets"), 2);
    assert!(s.listed.iter().any(|l| l == "/Service"));
    assert_eq!(server.non_get(), 0);
}

#[test]
fn dripping_discovery_is_bounded_by_the_request_timeout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = hostile(Hostile::DripDiscovery);
    let t0 = std::time::Instant::now();
    let e = run(&server, dir.path(), Duration::from_secs(2), Limits::default()).expect_err("discovery fails");
    let text = e.to_string();
    assert_eq!(text, format!("discovery: GET {}/apis: no complete answer within 2 s (--request-timeout)", server.url));
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert_eq!(server.non_get(), 0);
}

#[test]
fn an_endless_list_body_stops_at_the_byte_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = hostile(Hostile::EndlessBody("services"));
    let s = run(&server, dir.path(), Duration::from_secs(20), Limits::default()).expect("scan");
    assert_eq!(reason(&s, "Service"), "the answer exceeds the limit of 67108864 bytes per list");
    // A smaller configured limit is the one applied.
    let limits = Limits { max_body_bytes: 100_000, ..Limits::default() };
    let s = run(&server, dir.path(), Duration::from_secs(20), limits).expect("scan");
    assert_eq!(reason(&s, "Service"), "the answer exceeds the limit of 100000 bytes per list");
    assert!(s.listed.iter().any(|l| l == "/Secret"));
    assert_eq!(server.non_get(), 0);
}

#[test]
fn secrets_are_summarised_as_they_stream_in() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = hostile(Hostile::None);
    let s = run(&server, dir.path(), Duration::from_secs(5), Limits::default()).expect("scan");
    let secret = s.inventory.objects.iter().find(|o| o.kind.kind == "Secret").expect("the Secret");
    assert_eq!(secret.value.to_value()["data"]["password"], edgecheck_core::Value::Null);
    assert_eq!(secret.value.to_value()["apiVersion"], "v1");
    assert!(!format!("{:?}", s.inventory).contains("aHVudGVyMg=="));
}

/// Every list fails: the scan is an error naming each kind and why, not an empty cluster.
fn all_fail(f: Failure, timeout: Duration, expected: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = hostile(Hostile::FailLists(f));
    let e = run(&server, dir.path(), timeout, Limits::default()).expect_err("nothing read is an error");
    let ScanError::NothingListed(kinds) = &e else { panic!("{f:?}: {e}") };
    let names: Vec<&str> = kinds.iter().map(|u| u.kind.as_str()).collect();
    assert_eq!(names, ["Namespace", "Service", "Secret"], "{f:?}");
    for u in kinds {
        assert_eq!(u.reason, expected, "{f:?}");
    }
    let text = e.to_string();
    assert!(text.starts_with("nothing could be read from the cluster: Namespace (v1): "), "{text}");
    assert!(text.contains(&format!("Service (v1): {expected}")), "{text}");
    assert_eq!(server.non_get(), 0);
}

#[test]
fn every_list_failing_is_an_error_with_the_reasons() {
    all_fail(Failure::Status500, Duration::from_secs(5), "500 InternalError: etcdserver: request timed out");
    all_fail(Failure::MalformedJson, Duration::from_secs(5), "the list is truncated (line 1 column 24)");
    all_fail(
        Failure::WrongTypes,
        Duration::from_secs(5),
        "the list has unexpected types (invalid type: string, expected a sequence of items, line 1 column 49)",
    );
    all_fail(
        Failure::Protobuf,
        Duration::from_secs(5),
        "the list is not JSON (malformed, or another encoding such as protobuf) (line 1 column 1)",
    );
    all_fail(Failure::Stall, Duration::from_secs(1), "no complete answer within 1 s (--request-timeout)");
}

/// A self-signed certificate (or one signed by `ca`) for `sans`, valid from `from` to `until` days.
fn cert(
    sans: &[&str],
    from: i64,
    until: i64,
    ca: Option<&rcgen::Issuer<'static, rcgen::KeyPair>>,
) -> (Vec<u8>, Vec<u8>) {
    let key = rcgen::KeyPair::generate().expect("key");
    let mut p = rcgen::CertificateParams::new(sans.iter().map(|s| s.to_string()).collect::<Vec<_>>()).expect("params");
    let now = time_now();
    p.not_before = rcgen::date_time_ymd(1970, 1, 1) + std::time::Duration::from_secs((now + from * 86400) as u64);
    p.not_after = rcgen::date_time_ymd(1970, 1, 1) + std::time::Duration::from_secs((now + until * 86400) as u64);
    let c = match ca {
        Some(issuer) => p.signed_by(&key, issuer).expect("sign"),
        None => p.self_signed(&key).expect("self-sign"),
    };
    (c.der().to_vec(), key.serialize_der())
}

fn time_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("clock").as_secs() as i64
}

fn tls_scan(url: &str, ca_pem: Option<&str>) -> String {
    use base64::Engine as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = ca_pem
        .map(|p| format!("    certificate-authority-data: {}\n", base64::engine::general_purpose::STANDARD.encode(p)))
        .unwrap_or_default();
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: t\n  cluster:\n    server: {url}\n{ca}\
         contexts:\n- name: t\n  context:\n    cluster: t\n    user: u\ncurrent-context: t\nusers:\n- name: u\n  user:\n    token: t\n"
    );
    let path = dir.path().join("kubeconfig");
    std::fs::write(&path, text).expect("write");
    let options = ScanOptions { kubeconfig: Some(path), timeout: Some(Duration::from_secs(5)), ..Default::default() };
    let e = within_30s(move || edgecheck_kube::scan(&options)).expect_err("the certificate is refused");
    assert!(matches!(e, ScanError::Discovery(_)), "{e}");
    eprintln!("{e}");
    e.to_string()
}

#[test]
fn a_tls_failure_names_the_certificate_problem_and_the_endpoint() {
    // Not trusted: a self-signed certificate and no certificate-authority.
    let (der, key) = cert(&["127.0.0.1"], -1, 30, None);
    let url = tls_server(vec![der], key);
    let text = tls_scan(&url, None);
    assert!(
        text.starts_with(&format!("discovery: GET {url}/api: x509: certificate signed by unknown authority")),
        "{text}"
    );
    assert!(!text.contains("client error (Connect)") || text.contains("UnknownIssuer"), "{text}");

    // Trusted, but for another host, or expired.
    let ca_key = rcgen::KeyPair::generate().expect("key");
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca_cert = ca.self_signed(&ca_key).expect("ca");
    let issuer = rcgen::Issuer::new(ca, ca_key);
    let (der, key) = cert(&["other.test"], -1, 30, Some(&issuer));
    let url = tls_server(vec![der], key);
    let text = tls_scan(&url, Some(&ca_cert.pem()));
    assert!(
        text.starts_with(&format!(
            "discovery: GET {url}/api: x509: the server's certificate is not valid for the server's host name"
        )),
        "{text}"
    );
    assert!(text.contains("other.test"), "the names it is valid for: {text}");

    let (der, key) = cert(&["127.0.0.1"], -30, -2, Some(&issuer));
    let url = tls_server(vec![der], key);
    let text = tls_scan(&url, Some(&ca_cert.pem()));
    assert!(
        text.starts_with(&format!("discovery: GET {url}/api: x509: the server's certificate has expired")),
        "{text}"
    );
}

/// A TLS server on 127.0.0.1 presenting `chain` (DER, leaf first) with `key` (PKCS#8 DER): the
/// handshake is all a scan gets to (it refuses the certificate). Its `https://` URL.
pub fn tls_server(chain: Vec<Vec<u8>>, key: Vec<u8>) -> String {
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let cfg = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_no_client_auth()
        .with_single_cert(
            chain.into_iter().map(Into::into).collect(),
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.into()),
        )
        .expect("server config");
    let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(cfg));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    listener.set_nonblocking(true).expect("nonblocking");
    let url = format!("https://{}", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            while let Ok((s, _)) = listener.accept().await {
                let a = acceptor.clone();
                tokio::spawn(async move {
                    let _ = a.accept(s).await;
                });
            }
        });
    });
    url
}
