//! Every bundled example yields the findings its incident is about, and the clean one yields none.

use crate::support::{codes, edgecheck, json};

fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lint(example: &str) -> serde_json::Value {
    let r = edgecheck(
        &repo_root(),
        &["lint", "--format", "json", "--now", "2026-06-01T00:00:00Z", &format!("examples/{example}")],
    );
    assert_ne!(r.code, 2, "{}", r.stderr);
    json(&r)
}

fn assert_has(example: &str, want: &[&str]) {
    let got = codes(&lint(example));
    for w in want {
        assert!(got.iter().any(|g| g == w), "{example}: expected {w}, got {got:?}");
    }
}

#[test]
fn clean_example_has_no_findings() {
    let v = lint("clean");
    assert_eq!(codes(&v), Vec::<String>::new());
    assert_eq!(v["summary"]["objects"], 6);
}

#[test]
fn seed_002_alb_layers() {
    assert_has("alb-https-503", &["LSN030", "RTE032", "BKD009", "TLS015"]);
}

#[test]
fn seed_000_argocd_passthrough() {
    assert_has("argocd-tls-passthrough", &["LSN002", "BKD006", "BKD007", "BKD008", "TLS016"]);
}

#[test]
fn cert_manager_traps() {
    assert_has("cert-manager-mismatch", &["TLS007", "TLS014", "TLS015", "TLS017", "TLS018"]);
}

#[test]
fn gateway_attachment() {
    let v = lint("gateway-routes");
    assert_has("gateway-routes", &["RTE001", "RTE002"]);
    let objects: Vec<&serde_json::Value> = v["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .filter(|o| o["apiVersion"].as_str().is_some_and(|a| a.starts_with("gateway.networking.k8s.io")))
        .collect();
    insta::assert_json_snapshot!("gateway_routes_objects", objects);
}

#[test]
fn seed_003_homelab_gitops() {
    assert_has("homelab-gitops", &["GIT001", "GIT002", "GIT003"]);
}

#[test]
fn seed_004_zitadel_dump() {
    let v = lint("zitadel-dump");
    assert_has("zitadel-dump", &["BKD001", "BKD010", "SEC002", "DNS020", "GIT022"]);
    assert!(!codes(&v).contains(&"LSN033".to_string()), "the Gateway has an address");
    let route = v["objects"].as_array().expect("objects").iter().find(|o| o["kind"] == "HTTPRoute").expect("route");
    assert_eq!(route["health"], "Degraded");
}

#[test]
fn coredns_stub() {
    assert_has("coredns-stub", &["DNS002"]);
}
