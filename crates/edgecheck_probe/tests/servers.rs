//! The probe against real servers on 127.0.0.1 with a PKI generated at test time.
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use edgecheck_core::observation::{ConnectOutcome, HandshakeOutcome, VerifyProblem};
use edgecheck_probe::probe_blocking;

#[test]
fn good_chain_h2_offered_not_selected() {
    let p = pki(Leaf::default());
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
    let p = pki(Leaf { from_days: -90, to_days: -2, ..Leaf::default() });
    let port = tls_server(&p, &[]);
    let o = &probe_blocking(&[format!("https://shop.test:{port}/")], &opts(port, Some(&p.ca_pem)))[0];
    let t = o.tls.as_ref().unwrap();
    assert!(!t.verified);
    assert!(matches!(t.problems[0], VerifyProblem::Expired { .. }), "{:?}", t.problems);
    assert_eq!(o.http[0].status, Some(200), "the probe goes on past a bad certificate");

    let p = pki(Leaf { sans: &["other.test"], ..Leaf::default() });
    let port = tls_server(&p, &[]);
    let o = &probe_blocking(&[format!("https://shop.test:{port}/")], &opts(port, Some(&p.ca_pem)))[0];
    let t = o.tls.as_ref().unwrap();
    assert_eq!(
        t.problems[0],
        VerifyProblem::NameMismatch { host: "shop.test".into(), sans: vec!["other.test".into()] }
    );

    // Not trusted: no --cacert, the test root is unknown to the system store.
    let o = &probe_blocking(&[format!("https://shop.test:{port}/")], &opts(port, None))[0];
    let t = o.tls.as_ref().unwrap();
    assert!(
        matches!(&t.problems[0], VerifyProblem::UnknownIssuer { issuer } if issuer.contains("Test Root")),
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

fn one(url: &str, port: u16, ca: Option<&str>) -> edgecheck_core::observation::TargetObservation {
    probe_blocking(&[url.to_string()], &opts(port, ca)).remove(0)
}

#[test]
fn leaf_without_intermediate_names_the_missing_issuer() {
    let p = pki(Leaf { send_intermediate: false, ..Leaf::default() });
    let port = https(&p, &[b"h2", b"http/1.1"], ok());
    let o = one(&format!("https://shop.test:{port}/"), port, Some(&p.ca_pem));
    let t = o.tls.as_ref().unwrap();
    assert_eq!(t.chain.len(), 1);
    assert!(
        matches!(&t.problems[0], VerifyProblem::IncompleteChain { missing_issuer, .. } if missing_issuer.contains(&p.intermediate_cn)),
        "{:?}",
        t.problems
    );
    let v = verdict(&[o]);
    assert_eq!((v[0].0.as_str(), v[0].1.as_str()), ("TLS101", "tls"));
    assert!(v[0].2.contains("incomplete chain") && v[0].2.contains("Test Intermediate"), "{}", v[0].2);
}

#[test]
fn not_yet_valid_self_signed_cn_only() {
    let p = pki(Leaf { from_days: 3, to_days: 90, ..Leaf::default() });
    let port = https(&p, &[], ok());
    let o = one(&format!("https://shop.test:{port}/"), port, Some(&p.ca_pem));
    assert!(matches!(o.tls.as_ref().unwrap().problems[0], VerifyProblem::NotYetValid { .. }));
    let v = verdict(&[o]);
    assert!(v[0].0 == "TLS101" && v[0].2.contains("not valid before"), "{v:?}");

    let p = pki(Leaf { self_signed: true, ..Leaf::default() });
    let port = https(&p, &[], ok());
    let o = one(&format!("https://shop.test:{port}/"), port, Some(&p.ca_pem));
    assert!(matches!(o.tls.as_ref().unwrap().problems[0], VerifyProblem::SelfSigned { .. }), "{:?}", o.tls);

    let p = pki(Leaf { sans: &[], cn: Some("shop.test"), ..Leaf::default() });
    let port = https(&p, &[], ok());
    let o = one(&format!("https://shop.test:{port}/"), port, Some(&p.ca_pem));
    assert_eq!(
        o.tls.as_ref().unwrap().problems[0],
        VerifyProblem::CnOnly { common_name: "shop.test".into() },
        "{:?}",
        o.tls
    );
}

#[test]
fn wildcard_covers_one_level_not_two() {
    let p = pki(Leaf { sans: &["*.shop.test"], ..Leaf::default() });
    let port = https(&p, &[b"h2"], ok());
    let mut o = opts(port, Some(&p.ca_pem));
    o.resolve = vec![
        ("a.shop.test".into(), port, "127.0.0.1".parse().unwrap()),
        ("a.b.shop.test".into(), port, "127.0.0.1".parse().unwrap()),
    ];
    let obs = probe_blocking(&[format!("https://a.shop.test:{port}/"), format!("https://a.b.shop.test:{port}/")], &o);
    assert!(obs[0].tls.as_ref().unwrap().verified, "{:?}", obs[0].tls);
    assert_eq!(
        obs[1].tls.as_ref().unwrap().problems[0],
        VerifyProblem::NameMismatch { host: "a.b.shop.test".into(), sans: vec!["*.shop.test".into()] }
    );
    assert_eq!(codes(&obs), vec!["TLS101"]);
}

#[test]
fn h2_offered_and_selected_vs_not() {
    let p = pki(Leaf::default());
    let h2 = https(&p, &[b"h2", b"http/1.1"], ok());
    let h1 = https(&p, &[b"http/1.1"], ok());
    let o2 = one(&format!("https://shop.test:{h2}/"), h2, Some(&p.ca_pem));
    let o1 = one(&format!("https://shop.test:{h1}/"), h1, Some(&p.ca_pem));
    assert_eq!(o2.tls.as_ref().unwrap().alpn.as_deref(), Some("h2"));
    assert_eq!((o2.http[0].protocol.as_str(), o2.http[0].status), ("HTTP/2", Some(200)));
    assert_eq!(o2.http[0].body_sha256, "2689367b205c16ce32ed4200942b8b8b1e262dfc70d9bc9fbc77c49699a4f1df");
    assert_eq!((o1.http[0].protocol.as_str(), o1.http[0].status), ("HTTP/1.1", Some(200)));
    // A plain web target on HTTP/1.1 is no fault.
    assert!(codes(&[o1, o2]).is_empty());
}

#[test]
fn redirects_good_bad_and_loops() {
    let p = pki(Leaf::default());
    let tls = https(&p, &[b"h2", b"http/1.1"], ok());
    let good =
        http(false, Arc::new(move |_, _, _| (308, vec![("location", format!("https://shop.test:{tls}/"))], vec![])));
    let temp =
        http(false, Arc::new(move |_, _, _| (302, vec![("location", format!("https://shop.test:{tls}/"))], vec![])));
    let looping = http(false, Arc::new(|_, p, _| (301, vec![("location", p.to_string())], vec![])));
    let mut o = opts(tls, Some(&p.ca_pem));
    for port in [good, temp, looping] {
        o.resolve.push(("shop.test".into(), port, "127.0.0.1".parse().unwrap()));
    }
    let obs = probe_blocking(
        &[
            format!("http://shop.test:{good}/"),
            format!("http://shop.test:{temp}/"),
            format!("http://shop.test:{looping}/x"),
        ],
        &o,
    );
    assert_eq!(obs[0].http.len(), 2);
    assert_eq!(obs[0].http[1].status, Some(200));
    assert!(verdict(&obs[..1]).is_empty(), "{:?}", verdict(&obs[..1]));
    let v = verdict(&obs[1..2]);
    assert!(v[0].0 == "APP002" && v[0].2.contains("temporary (302)"), "{v:?}");
    let v = verdict(&obs[2..]);
    assert!(v[0].0 == "APP002" && v[0].2.contains("redirect loop"), "{v:?}");
    assert!(obs[2].http.len() <= 3);
}

#[test]
fn grpc_direct_over_h2() {
    let p = pki(Leaf::default());
    let port = https(&p, &[b"h2", b"http/1.1"], grpc_health(12));
    let o = one(&format!("grpcs://shop.test:{port}/"), port, Some(&p.ca_pem));
    let g = o.grpc.as_ref().unwrap();
    assert_eq!(g.native.grpc_status, Some(12), "{g:?}");
    assert!(g.native.works());
    assert!(codes(&[o]).is_empty());
}

#[test]
fn endless_body_and_giant_headers_are_bounded() {
    let endless = raw_server_fn(|mut s| {
        use std::io::{Read, Write};
        let _ = s.read(&mut [0u8; 4096]);
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n");
        let chunk = [b'x'; 16384];
        while s.write_all(&chunk).is_ok() {}
    });
    let giant = raw_server_fn(|mut s| {
        use std::io::{Read, Write};
        let _ = s.read(&mut [0u8; 4096]);
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\n");
        for i in 0..100_000 {
            if s.write_all(format!("x-junk-{i}: {}\r\n", "y".repeat(100)).as_bytes()).is_err() {
                break;
            }
        }
    });
    let mut o = opts(endless, None);
    o.resolve.clear();
    let start = std::time::Instant::now();
    let obs = probe_blocking(&[format!("http://127.0.0.1:{endless}/"), format!("http://127.0.0.1:{giant}/")], &o);
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    assert!(obs[0].http[0].body_truncated, "{:?}", obs[0].http[0]);
    assert_eq!(obs[0].http[0].body_len, 256 * 1024);
    assert_ne!(obs[1].http[0].outcome, edgecheck_core::observation::HttpOutcome::Response, "{:?}", obs[1].http);
    assert_eq!(codes(&obs[1..]), vec!["APP004"]);
}

#[test]
fn reset_mid_handshake() {
    let port = raw_server_fn(|mut s| {
        use std::io::{Read, Write};
        let mut b = [0u8; 10];
        let _ = s.read(&mut b);
        // Half a ServerHello record, then the connection closes.
        let _ = s.write_all(&[0x16, 0x03, 0x03, 0x00, 0x50, 0x02, 0x00]);
        drop(s);
    });
    let mut o = opts(port, None);
    o.resolve.clear();
    let obs = probe_blocking(&[format!("https://127.0.0.1:{port}/")], &o);
    assert_eq!(obs[0].tls.as_ref().unwrap().outcome, HandshakeOutcome::Reset, "{:?}", obs[0].tls);
    let v = verdict(&obs);
    assert_eq!((v[0].0.as_str(), v[0].1.as_str()), ("TLS100", "tls"));
}

/// A Traefik-like proxy that speaks h2c to its backend and answers 500 `Internal Server Error`
/// (21 bytes) when the backend only speaks HTTP/1.1.
fn h2c_proxy(backend: u16) -> u16 {
    use http_body_util::{Empty, Full};
    spawn_listener("127.0.0.1:0", move |s| async move {
        let svc = hyper::service::service_fn(move |_req: hyper::Request<hyper::body::Incoming>| async move {
            let r = async {
                let tcp = tokio::net::TcpStream::connect(("127.0.0.1", backend)).await?;
                let (mut tx, conn) = hyper::client::conn::http2::handshake(
                    hyper_util::rt::TokioExecutor::new(),
                    hyper_util::rt::TokioIo::new(tcp),
                )
                .await?;
                tokio::spawn(conn);
                let req =
                    hyper::Request::get(format!("http://127.0.0.1:{backend}/")).body(Empty::<bytes::Bytes>::new())?;
                let resp = tx.send_request(req).await?;
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>(resp.status())
            }
            .await;
            let (status, body): (u16, &'static [u8]) = match r {
                Ok(_) => (200, b"ok"),
                Err(_) => (500, b"Internal Server Error"),
            };
            Ok::<_, std::convert::Infallible>(
                hyper::Response::builder()
                    .status(status)
                    .header("content-type", "text/plain; charset=utf-8")
                    .body(Full::new(bytes::Bytes::from_static(body)))
                    .unwrap(),
            )
        });
        let _ = hyper::server::conn::http1::Builder::new().serve_connection(hyper_util::rt::TokioIo::new(s), svc).await;
    })
}

#[test]
fn h2c_proxy_in_front_of_http1_backend_gives_the_21_byte_500() {
    let backend = http(false, ok());
    let proxy = h2c_proxy(backend);
    let mut o = opts(proxy, None);
    o.resolve.clear();
    let obs = probe_blocking(&[format!("http://127.0.0.1:{proxy}/"), format!("http://127.0.0.1:{backend}/")], &o);
    let h = &obs[0].http[0];
    assert_eq!((h.status, h.body_len), (Some(500), 21));
    let v = verdict(&obs[..1]);
    assert!(v[0].0 == "APP001" && v[0].1 == "app" && v[0].2.contains("Traefik's 500"), "{v:?}");
    // The backend itself answers HTTP/1.1 but not h2c prior knowledge.
    assert_eq!(obs[1].http[0].status, Some(200));
    assert_ne!(obs[1].h2c.as_ref().unwrap().status, Some(200), "{:?}", obs[1].h2c);
    assert!(verdict(&obs[1..]).is_empty());
}

#[test]
fn unreachable_dns_server_is_a_dns_finding() {
    let port = free_port();
    let mut o = opts(port, None);
    o.resolve.clear();
    o.timeout = Duration::from_millis(400);
    o.dns_server = Some(format!("127.0.0.1:{}", free_port()));
    let obs = probe_blocking(&["https://nowhere.invalid/".to_string()], &o);
    assert_eq!(obs[0].dns.len(), 2);
    assert_eq!(obs[0].dns[1].resolver, o.dns_server.clone().unwrap());
    assert!(!obs[0].resolved(), "{:?}", obs[0].dns);
    assert!(obs[0].connects.is_empty());
    let v = verdict(&obs);
    assert_eq!((v[0].0.as_str(), v[0].1.as_str()), ("DNS100", "dns"), "{v:?}");
}
