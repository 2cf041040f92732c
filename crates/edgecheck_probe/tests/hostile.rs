//! Hostile endpoints (issue #16 items 9, 12, 13): each probe ends within a hang guard and what went
//! wrong is a finding with a message that says it.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use edgecheck_core::observation::{HandshakeOutcome, HttpOutcome, TargetObservation};
use edgecheck_probe::{probe_blocking, ProbeOptions};

/// Probes on a thread of its own; fails the test when it does not end within 30 s.
fn probe_within_30s(targets: Vec<String>, o: ProbeOptions) -> Vec<TargetObservation> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(probe_blocking(&targets, &o));
    });
    rx.recv_timeout(Duration::from_secs(30)).expect("the probe did not end within 30 s")
}

fn local(timeout_ms: u64) -> ProbeOptions {
    ProbeOptions { timeout: Duration::from_millis(timeout_ms), ..ProbeOptions::default() }
}

/// Reads the ClientHello, then sends a byte every 100 ms for ever: a read timeout that restarts on
/// every byte never fires.
fn drip_after_client_hello(mut s: std::net::TcpStream) {
    use std::io::{Read, Write};
    let _ = s.read(&mut [0u8; 4096]);
    let mut i = 0u8;
    loop {
        let byte = if i == 0 { 0x16 } else { 0x03 };
        if s.write_all(&[byte]).is_err() {
            return;
        }
        i = i.wrapping_add(1);
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn legacy_handshakes_obey_the_deadline_against_a_dripping_server() {
    let port = raw_server_fn(drip_after_client_hello);
    let o = ProbeOptions { legacy: true, ..local(800) };
    let obs = probe_within_30s(vec![format!("https://127.0.0.1:{port}/")], o);
    let t = obs[0].tls.as_ref().unwrap();
    assert_eq!(t.outcome, HandshakeOutcome::Timeout, "{t:?}");
    let legacy: Vec<(&str, Option<bool>, &str)> =
        obs[0].legacy.iter().map(|l| (l.version.as_str(), l.accepted, l.detail.as_deref().unwrap_or(""))).collect();
    assert_eq!(
        legacy,
        [
            ("TLSv1", None, "no TLSv1 handshake within 800 ms (the server stalled)"),
            ("TLSv1.1", None, "no TLSv1.1 handshake within 800 ms (the server stalled)"),
        ]
    );
    let v = verdict(&obs);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].0, "TLS100");
    assert!(v[0].2.ends_with("stalled: no TLS handshake within the timeout"), "{}", v[0].2);
}

/// Redirects `/rN` to `/rN+1` after 75 ms, for ever (a quarter of the per-request timeout: a loaded machine's
/// scheduling does not turn it into a request timeout; at half of it, a loaded CI run once did).
fn slow_redirects(mut s: std::net::TcpStream) {
    use std::io::{Read, Write};
    let mut buf = [0u8; 4096];
    let n = s.read(&mut buf).unwrap_or(0);
    let req = String::from_utf8_lossy(&buf[..n]).to_string();
    let path = req.split_whitespace().nth(1).unwrap_or("/").to_string();
    let next: u32 = path.trim_start_matches("/r").parse().unwrap_or(0) + 1;
    std::thread::sleep(Duration::from_millis(75));
    let _ = s.write_all(
        format!("HTTP/1.1 302 Found\r\nlocation: /r{next}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .as_bytes(),
    );
}

#[test]
fn a_target_over_its_budget_is_a_finding() {
    let port = raw_server_fn(slow_redirects);
    // Budget 12 × 300 ms + 1 s = 4.6 s; 80 redirects of 75 ms each (6 s) do not fit.
    let o = ProbeOptions { max_redirects: 80, ..local(300) };
    let obs = probe_within_30s(vec![format!("http://127.0.0.1:{port}/")], o);
    assert!(obs[0].error.is_none(), "{:?}", obs[0].error);
    let last = obs[0].http.last().unwrap();
    assert_eq!(last.outcome, HttpOutcome::Timeout);
    assert_eq!(last.detail.as_deref(), Some("the probe of this target exceeded its budget of 4600 ms"));
    let v = verdict(&obs);
    let app004: Vec<_> = v.iter().filter(|f| f.0 == "APP004").collect();
    assert_eq!(app004.len(), 1, "{v:?}");
    assert!(
        app004[0].2.starts_with(&format!("the redirect to http://127.0.0.1:{port}/r"))
            && app004[0].2.ends_with(" gave no HTTP response in time"),
        "{}",
        app004[0].2
    );
}

fn oversized(copies: usize) -> (Vec<TargetObservation>, usize, usize) {
    let mut p = pki(Leaf::default());
    let intermediate = p.chain[1].clone();
    p.chain.extend(std::iter::repeat_n(intermediate, copies));
    let bytes: usize = p.chain.iter().map(Vec::len).sum();
    let port = tls_server(&p, &[]);
    let n = p.chain.len();
    (probe_within_30s(vec![format!("https://shop.test:{port}/")], opts(port, Some(&p.ca_pem))), bytes, n)
}

fn thousands(n: usize) -> String {
    let s = n.to_string();
    s.chars().enumerate().fold(String::new(), |mut out, (i, c)| {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
        out
    })
}

#[test]
fn an_oversized_certificate_chain_is_not_plaintext() {
    // 200 certificates, and about 5 MB of them.
    let (obs, bytes, n) = oversized(200);
    assert!(bytes > 64 * 1024, "{bytes}");
    let (huge, huge_bytes, huge_n) = oversized(5_000_000 / 400);
    assert!(huge_bytes > 4_000_000, "{huge_bytes}");
    for (o, bytes, n) in [(&obs[0], bytes, n), (&huge[0], huge_bytes, huge_n)] {
        let t = o.tls.as_ref().unwrap();
        assert_eq!(t.outcome, HandshakeOutcome::TooLarge, "{t:?}");
        let detail = t.detail.as_deref().unwrap();
        assert!(detail.starts_with("a handshake message from the server exceeds the limit of 65535 bytes"), "{detail}");
        // How large and how many (#16 item 13): TLS 1.2's Certificate message is the list's 3-byte length,
        // then each certificate with its 3-byte length.
        let size = format!(
            "the server's Certificate message is {} bytes holding {} certificates (read over TLS 1.2)",
            thousands(3 + 3 * n + bytes),
            thousands(n)
        );
        assert!(detail.contains(&size), "{detail}\nwanted: {size}");
        let v = verdict(std::slice::from_ref(o));
        assert_eq!(v[0].0, "TLS100");
        assert!(
            v[0].2.ends_with(
                "sent a TLS handshake message larger than clients accept (64 KiB): its certificate chain is too large"
            ),
            "{}",
            v[0].2
        );
        assert!(!v[0].2.contains("does not speak TLS"), "{}", v[0].2);
    }
}

/// Redirects `/rN` to `/rN+1` at once, for ever; `/loop` to itself.
fn redirects(mut s: std::net::TcpStream) {
    use std::io::{Read, Write};
    let mut buf = [0u8; 4096];
    let n = s.read(&mut buf).unwrap_or(0);
    let req = String::from_utf8_lossy(&buf[..n]).to_string();
    let path = req.split_whitespace().nth(1).unwrap_or("/").to_string();
    let next = if path == "/loop" {
        "/loop".to_string()
    } else {
        format!("/r{}", path.trim_start_matches("/r").parse::<u32>().unwrap_or(0) + 1)
    };
    let _ = s.write_all(
        format!("HTTP/1.1 302 Found\r\nlocation: {next}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").as_bytes(),
    );
}

#[test]
fn too_many_redirects_say_so_with_the_chain() {
    let port = raw_server_fn(redirects);
    let o = ProbeOptions { max_redirects: 3, ..local(800) };
    let obs = probe_within_30s(vec![format!("http://127.0.0.1:{port}/"), format!("http://127.0.0.1:{port}/loop")], o);
    let v = verdict(&obs);
    let app002: Vec<_> = v.iter().filter(|f| f.0 == "APP002").collect();
    assert_eq!(app002.len(), 2, "{v:?}");
    let (limit, looped) = (app002[0], app002[1]);
    assert_eq!(limit.2, "the redirect limit was exceeded: 4 redirects and the last still redirects");
    let base = format!("http://127.0.0.1:{port}");
    assert_eq!(
        limit.3,
        [
            format!("{base}/ -> 302 /r1"),
            format!("{base}/r1 -> 302 /r2"),
            format!("{base}/r2 -> 302 /r3"),
            format!("{base}/r3 -> 302 /r4"),
        ]
    );
    assert_eq!(looped.2, format!("redirect loop: {base}/loop was already requested"));
    for f in &v {
        assert!(!f.2.contains("changes the host to ") && !f.3.iter().any(|e| e.contains("changes the host")), "{f:?}");
    }
}

/// A 200 whose body stops after 5 of its 100 bytes: closed, or silent.
fn short_body(mut s: std::net::TcpStream) {
    use std::io::{Read, Write};
    let _ = s.read(&mut [0u8; 4096]);
    let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nshort");
}

fn stalled_body(mut s: std::net::TcpStream) {
    short_body(s.try_clone().unwrap());
    std::thread::sleep(Duration::from_secs(5));
    let _ = std::io::Write::flush(&mut s);
}

#[test]
fn a_body_that_stops_short_is_a_finding() {
    let short = raw_server_fn(short_body);
    let stalled = raw_server_fn(stalled_body);
    let obs = probe_within_30s(
        vec![format!("http://127.0.0.1:{short}/"), format!("http://127.0.0.1:{stalled}/")],
        local(800),
    );
    let h = &obs[0].http[0];
    assert_eq!((h.status, h.outcome, h.body_len), (Some(200), HttpOutcome::Error, 5), "{h:?}");
    assert!(h.detail.as_deref().unwrap().starts_with("the body broke off after 5 bytes: "), "{h:?}");
    let h = &obs[1].http[0];
    assert_eq!((h.status, h.outcome, h.body_len), (Some(200), HttpOutcome::Timeout, 5), "{h:?}");
    assert_eq!(h.detail.as_deref(), Some("the body stalled after 5 bytes: no more within 800 ms"));
    let v = verdict(&obs);
    let mut app004: Vec<&str> = v.iter().filter(|f| f.0 == "APP004").map(|f| f.2.as_str()).collect();
    app004.sort();
    assert_eq!(
        app004,
        [
            "the endpoint gave a 200 response whose body broke off",
            "the endpoint gave a 200 response whose body stalled"
        ]
    );
    assert!(v.iter().all(|f| f.1 == "app"), "{v:?}");
}
