//! Real servers on 127.0.0.1 with a PKI generated at test time.
#![allow(clippy::unwrap_used)]

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use edgecheck_core::observation::{ConnectOutcome, HandshakeOutcome, VerifyProblem};
use edgecheck_probe::{probe_blocking, ProbeOptions};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct Pki {
    ca_pem: String,
    leaf_der: Vec<u8>,
    leaf_key: Vec<u8>,
}

fn pki(sans: &[&str], days_from: i64, days_to: i64) -> Pki {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.distinguished_name.push(DnType::CommonName, "Test Root");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let key = KeyPair::generate().unwrap();
    let mut p = CertificateParams::new(sans.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
    let now = time_now();
    p.not_before = rcgen::date_time_ymd(1970, 1, 1) + time::Duration::seconds(now + days_from * 86400);
    p.not_after = rcgen::date_time_ymd(1970, 1, 1) + time::Duration::seconds(now + days_to * 86400);
    let issuer = rcgen::Issuer::new(ca, ca_key);
    let leaf = p.signed_by(&key, &issuer).unwrap();
    Pki { ca_pem: ca_cert.pem(), leaf_der: leaf.der().to_vec(), leaf_key: key.serialize_der() }
}

fn time_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

/// A rustls HTTPS server answering every request with 200 "ok", offering `alpn`.
fn tls_server(p: &Pki, alpn: &[&[u8]]) -> u16 {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut cfg = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(
            vec![p.leaf_der.clone().into()],
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
fn raw_server(reply: &'static [u8], stall: bool) -> u16 {
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

fn opts(port: u16, ca: Option<&str>) -> ProbeOptions {
    let mut o = ProbeOptions {
        resolve: vec![("shop.test".into(), port, "127.0.0.1".parse::<IpAddr>().unwrap())],
        timeout: Duration::from_millis(800),
        ..Default::default()
    };
    if let Some(pem) = ca {
        let f = std::env::temp_dir().join(format!("edgecheck-ca-{port}.pem"));
        std::fs::write(&f, pem).unwrap();
        o.cacert = Some(f);
    }
    o
}

#[test]
fn good_chain_h2_offered_not_selected() {
    let p = pki(&["shop.test"], -1, 90);
    let port = tls_server(&p, &[b"http/1.1"]);
    let o = &probe_blocking(&[format!("https://shop.test:{port}/")], &opts(port, Some(&p.ca_pem)))[0];
    let t = o.tls.as_ref().unwrap();
    assert_eq!(t.outcome, HandshakeOutcome::Completed);
    assert!(t.verified, "{:?}", t.problems);
    assert_eq!(t.alpn.as_deref(), Some("http/1.1"));
    assert_eq!(t.chain[0].dns_names, vec!["shop.test"]);
    let h = &o.http[0];
    assert_eq!((h.status, h.body_len, h.protocol.as_str()), (Some(200), 2, "HTTP/1.1"));
}

#[test]
fn expired_wrong_host_self_signed() {
    let p = pki(&["shop.test"], -90, -2);
    let port = tls_server(&p, &[]);
    let o = &probe_blocking(&[format!("https://shop.test:{port}/")], &opts(port, Some(&p.ca_pem)))[0];
    let t = o.tls.as_ref().unwrap();
    assert!(!t.verified);
    assert!(matches!(t.problems[0], VerifyProblem::Expired { .. }), "{:?}", t.problems);
    assert_eq!(o.http[0].status, Some(200), "the probe goes on past a bad certificate");

    let p = pki(&["other.test"], -1, 90);
    let port = tls_server(&p, &[]);
    let o = &probe_blocking(&[format!("https://shop.test:{port}/")], &opts(port, Some(&p.ca_pem)))[0];
    let t = o.tls.as_ref().unwrap();
    assert_eq!(
        t.problems[0],
        VerifyProblem::NameMismatch { host: "shop.test".into(), sans: vec!["other.test".into()] }
    );

    // Not trusted: no --cacert, the test root is unknown, the leaf's issuer is not served.
    let o = &probe_blocking(&[format!("https://shop.test:{port}/")], &opts(port, None))[0];
    let t = o.tls.as_ref().unwrap();
    assert!(
        matches!(&t.problems[0], VerifyProblem::IncompleteChain { missing_issuer, .. } if missing_issuer.contains("Test Root")),
        "{:?}",
        t.problems
    );
}

#[test]
fn hostile_servers_end_within_the_timeout() {
    let garbage = raw_server(b"SSH-2.0-OpenSSH_9.6\r\n garbage garbage garbage\r\n", false);
    let stall = raw_server(b"", true);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let start = std::time::Instant::now();
    let mut o = opts(garbage, None);
    o.resolve.clear();
    let obs = probe_blocking(
        &[
            format!("https://127.0.0.1:{garbage}/"),
            format!("https://127.0.0.1:{stall}/"),
            format!("https://127.0.0.1:{closed}/"),
        ],
        &o,
    );
    assert!(start.elapsed() < Duration::from_secs(4), "{:?}", start.elapsed());
    assert_eq!(obs[0].tls.as_ref().unwrap().outcome, HandshakeOutcome::NotTls, "{:?}", obs[0].tls);
    assert_eq!(obs[1].tls.as_ref().unwrap().outcome, HandshakeOutcome::Timeout);
    assert_eq!(obs[2].connects[0].outcome, ConnectOutcome::Refused);
}
