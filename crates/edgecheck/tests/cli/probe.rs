use crate::support::{codes, edgecheck, json, Dir};

#[test]
fn refused_port_is_the_listener_layer() {
    // Bind and drop a listener to get a port that is closed on loopback.
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let d = Dir::new();
    let url = format!("https://127.0.0.1:{port}/");
    let r = edgecheck(d.path(), &["probe", "--format", "json", "--timeout", "2s", &url]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(codes(&v), vec!["LSN100"]);
    assert_eq!(v["findings"][0]["object"], serde_json::json!({"kind": "Endpoint", "name": url}));
    assert_eq!(v["findings"][0]["layer"], "listener");
    assert_eq!(v["summary"]["targets"], 1);
    let text = edgecheck(d.path(), &["probe", "--timeout", "2s", &url]);
    assert!(text.stdout.contains("1 endpoint probed"), "{}", text.stdout);
}

#[test]
fn bad_probe_options_are_usage_errors() {
    let d = Dir::new();
    let r = edgecheck(d.path(), &["probe", "--resolve", "nohostport", "https://a.example/"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--resolve"), "{}", r.stderr);
    assert_eq!(edgecheck(d.path(), &["probe", "--timeout", "soon", "https://a.example/"]).code, 2);
}

/// A loopback HTTPS server (HTTP/1.1 over TLS, a leaf for `shop.test` signed by a test root); returns its
/// port and the root's PEM.
fn https_server() -> (u16, String) {
    use std::io::{Read as _, Write as _};
    let pki = crate::support::pki("Test Root", &["shop.test"]);
    let cfg = pki.server_config();
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let cfg = cfg.clone();
            std::thread::spawn(move || {
                let Ok(conn) = rustls::ServerConnection::new(cfg) else { return };
                let mut tls = rustls::StreamOwned::new(conn, s);
                let mut buf = [0u8; 4096];
                if tls.read(&mut buf).is_ok() {
                    let _ = tls.write_all(
                        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-served-by: loopback\r\nset-cookie: session=COOKIE-CANARY\r\nconnection: close\r\n\r\nok",
                    );
                    tls.conn.send_close_notify();
                    let _ = tls.flush();
                }
            });
        }
    });
    (port, pki.root)
}

/// Issue 19, item 10: `probe -v` prints what dig, openssl s_client and curl -v would (the answer, the
/// address tried, TLS version, cipher, ALPN, the chain, the status and headers) and says why a healthy
/// endpoint is healthy; `--format json` carries the observations.
#[test]
fn verbose_probe_shows_the_observations_of_a_healthy_endpoint() {
    let d = Dir::new();
    let (port, ca) = https_server();
    d.write("ca.pem", &ca);
    let url = format!("https://shop.test:{port}/");
    let resolve = format!("shop.test:{port}:127.0.0.1");
    let base = ["probe", "--resolve", &resolve, "--cacert", "ca.pem", "--timeout", "5s"];
    let r = edgecheck(d.path(), &[&base[..], &["-v", &url]].concat());
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let out = &r.stdout;
    for want in [
        &format!("══ {url}") as &str,
        "dns      static shop.test → static: 127.0.0.1",
        &format!("tcp      127.0.0.1:{port} connected"),
        "cipher TLS13_",
        "TLSv1.3, cipher TLS13_",
        "ALPN http/1.1",
        "(offered h2,http/1.1)",
        "SANs shop.test; issuer CN=Test Root",
        "verify verified for shop.test (trust: ca.pem)",
        " → 200, 2 body bytes",
        "  <      x-served-by: loopback",
        "set-cookie: (",
        "✓ healthy: shop.test resolves (127.0.0.1); connects to 1 of 1 address; TLSv1.3, the chain",
        "HTTP/1.1 answers 200; no check found a fault",
    ] {
        assert!(out.contains(want), "missing `{want}`:\n{out}");
    }
    assert!(!out.contains("COOKIE-CANARY"), "a cookie value is shown:\n{out}");
    assert!(out.lines().all(|l| l.chars().count() <= 100), "{out}");
    let j = edgecheck(d.path(), &[&base[..], &["--format", "json", &url]].concat());
    let v = json(&j);
    let o = &v["observations"][0];
    assert_eq!(o["tls"]["verified"], true, "{o}");
    assert_eq!(o["tls"]["alpn"], "http/1.1");
    assert_eq!(o["http"][0]["status"], 200);
    assert_eq!(o["tls"]["chain"][0]["dns_names"][0], "shop.test");
}
