//! The probe against nginx and haproxy from Debian, started with temporary configurations on free
//! loopback ports. A missing binary fails the test with the command to install it.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;

#[test]
fn nginx_default_error_pages_are_identified() {
    let dir = TempDir::new("nginx-pages");
    let port = free_port();
    let _n = nginx(
        &dir,
        &format!(
            "server {{ listen 127.0.0.1:{port}; location / {{ return 503; }} location /gone {{ return 404; }} \
             location /app {{ default_type application/json; return 404 '{{\"error\":\"no such item\"}}'; }} }}"
        ),
        &[port],
    );
    let mut o = opts(port, None);
    o.resolve.clear();
    let obs = edgecheck_probe::probe_blocking(
        &[
            format!("http://127.0.0.1:{port}/"),
            format!("http://127.0.0.1:{port}/gone"),
            format!("http://127.0.0.1:{port}/app"),
        ],
        &o,
    );
    assert_eq!(obs[0].http[0].status, Some(503));
    let v = verdict(&obs[..1]);
    assert!(v[0].0 == "APP001" && v[0].1 == "app" && v[0].2.contains("nginx's 503"), "{v:?}");
    assert!(v[0].3.iter().any(|e| e.contains("server: nginx")), "{v:?}");
    let v = verdict(&obs[1..2]);
    assert!(v[0].2.contains("nginx's default 404"), "{v:?}");
    // The application's own 404 is not a proxy page.
    assert!(verdict(&obs[2..]).is_empty(), "{:?}", verdict(&obs[2..]));
}

#[test]
fn grpc_through_nginx_l7_without_h2_and_haproxy_passthrough() {
    let p = pki(Leaf::default());
    let backend = https(&p, &[b"h2", b"http/1.1"], grpc_health(0));
    let dir = TempDir::new("grpc");
    let (crt, key) = write_pem(&dir, &p);
    let (l7, l7h2, pass) = (free_port(), free_port(), free_port());
    let _n = nginx(
        &dir,
        &format!(
            "server {{ listen 127.0.0.1:{l7} ssl; ssl_certificate {crt}; ssl_certificate_key {key}; \
               location / {{ proxy_pass https://127.0.0.1:{backend}; }} }}\n\
             server {{ listen 127.0.0.1:{l7h2} ssl http2; ssl_certificate {crt}; ssl_certificate_key {key}; \
               location / {{ grpc_pass grpcs://127.0.0.1:{backend}; }} }}"
        ),
        &[l7, l7h2],
    );
    let _h = haproxy(
        &dir,
        &format!(
            "frontend sni\n  mode tcp\n  bind 127.0.0.1:{pass}\n  tcp-request inspect-delay 2s\n  \
             tcp-request content accept if {{ req_ssl_hello_type 1 }}\n  use_backend grpc if {{ req_ssl_sni -i shop.test }}\n\
             backend grpc\n  mode tcp\n  server s1 127.0.0.1:{backend}\n"
        ),
        &[pass],
    );
    let mut o = opts(backend, Some(&p.ca_pem));
    for port in [l7, l7h2, pass] {
        o.resolve.push(("shop.test".into(), port, "127.0.0.1".parse().unwrap()));
    }
    let obs = edgecheck_probe::probe_blocking(
        &[
            format!("grpcs://shop.test:{backend}/"),
            format!("grpcs://shop.test:{l7}/"),
            format!("grpcs://shop.test:{l7h2}/"),
            format!("grpcs://shop.test:{pass}/"),
        ],
        &o,
    );
    // Directly: h2, native gRPC works.
    assert_eq!(obs[0].tls.as_ref().unwrap().alpn.as_deref(), Some("h2"));
    assert_eq!(obs[0].grpc.as_ref().unwrap().native.grpc_status, Some(0));
    assert!(verdict(&obs[..1]).is_empty());
    // nginx L7 without http2: http/1.1 selected although h2 was offered.
    let t = obs[1].tls.as_ref().unwrap();
    assert!(t.verified && t.alpn.as_deref() != Some("h2"), "{t:?}");
    assert!(!obs[1].grpc.as_ref().unwrap().native.works(), "{:?}", obs[1].grpc);
    let v = verdict(&obs[1..2]);
    assert!(v[0].0 == "APP003" && v[0].1 == "app", "{v:?}");
    assert!(v[0].2.contains("native gRPC will not survive"), "{v:?}");
    // nginx with http2 and grpc_pass: works.
    assert_eq!(obs[2].grpc.as_ref().unwrap().native.grpc_status, Some(0), "{:?}", obs[2].grpc);
    assert!(verdict(&obs[2..3]).is_empty(), "{:?}", verdict(&obs[2..3]));
    // haproxy SNI passthrough: the backend negotiates h2 itself.
    assert_eq!(obs[3].tls.as_ref().unwrap().alpn.as_deref(), Some("h2"));
    assert_eq!(obs[3].grpc.as_ref().unwrap().native.grpc_status, Some(0));
    assert!(verdict(&obs[3..]).is_empty(), "{:?}", verdict(&obs[3..]));
}

fn sh(dir: &TempDir, script: &str) {
    let st = std::process::Command::new("sh").arg("-c").arg(script).current_dir(&dir.0).output().unwrap();
    assert!(st.status.success(), "{script}: {}", String::from_utf8_lossy(&st.stderr));
}

#[test]
fn rsa_1024_leaf_is_still_observed() {
    let openssl = need("openssl");
    let dir = TempDir::new("rsa1024");
    let o = openssl.display();
    sh(
        &dir,
        &format!(
            "{o} req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -subj /CN=Weak-Root -days 10 && \
             {o} req -newkey rsa:1024 -nodes -keyout leaf.key -out leaf.csr -subj /CN=shop.test && \
             printf 'subjectAltName=DNS:shop.test\\n' > ext && \
             {o} x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem -days 10 -extfile ext"
        ),
    );
    let port = free_port();
    let child = std::process::Command::new(&openssl)
        .args(["s_server", "-quiet", "-www", "-accept", &port.to_string(), "-cert", "leaf.pem", "-key", "leaf.key"])
        .args(["-cipher", "DEFAULT@SECLEVEL=0"])
        .current_dir(&dir.0)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let _c = Child(child);
    wait_port(port);
    let ca = std::fs::read_to_string(dir.0.join("ca.pem")).unwrap();
    let obs = edgecheck_probe::probe_blocking(&[format!("https://shop.test:{port}/")], &opts(port, Some(&ca)));
    let t = obs[0].tls.as_ref().unwrap();
    assert_eq!(t.outcome, edgecheck_core::observation::HandshakeOutcome::Completed, "{t:?}");
    assert_eq!((t.chain[0].key_algorithm.as_str(), t.chain[0].key_bits), ("RSA", 1024));
    assert!(
        t.problems.iter().any(|p| matches!(p, edgecheck_core::observation::VerifyProblem::WeakKey { detail, .. } if detail.contains("1024"))),
        "{:?}",
        t.problems
    );
    let v = verdict(&obs);
    assert!(v[0].0 == "TLS101" && v[0].1 == "tls" && v[0].2.contains("1024 bits"), "{v:?}");
}

#[cfg(feature = "legacy")]
#[test]
fn legacy_tls_1_1_acceptance() {
    let openssl = need("openssl");
    let p = pki(Leaf::default());
    let dir = TempDir::new("legacy");
    let (crt, key) = write_pem(&dir, &p);
    let port = free_port();
    let child = std::process::Command::new(&openssl)
        .args(["s_server", "-quiet", "-www", "-accept", &port.to_string(), "-cert", &crt, "-key", &key])
        .args(["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let _c = Child(child);
    wait_port(port);
    let mut o = opts(port, Some(&p.ca_pem));
    o.legacy = true;
    let obs = edgecheck_probe::probe_blocking(&[format!("https://shop.test:{port}/")], &o);
    // rustls cannot speak TLS 1.1: the modern handshake fails, the legacy one is accepted.
    assert_ne!(obs[0].tls.as_ref().unwrap().outcome, edgecheck_core::observation::HandshakeOutcome::Completed);
    let l: Vec<_> = obs[0].legacy.iter().map(|l| (l.version.as_str(), l.accepted)).collect();
    assert_eq!(l, vec![("TLSv1", Some(false)), ("TLSv1.1", Some(true))], "{:?}", obs[0].legacy);
    let c = codes(&obs);
    assert!(c.contains(&"TLS100".to_string()) && c.contains(&"TLS103".to_string()), "{c:?}");
}
