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
