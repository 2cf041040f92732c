//! `edgecheck scan` against the test API server of edgecheck_kube's tests, and `edgecheck rbac`.

#[path = "../../../edgecheck_kube/tests/api_server/mod.rs"]
pub(crate) mod api_server;

use std::path::PathBuf;

use api_server::{Cluster, Server};
use serde_json::Value;

use crate::support::{edgecheck, Dir};

fn dump() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../edgecheck_kube/tests/fixtures/cluster.json")
}

fn server(forbidden: &[&str]) -> Server {
    let text = std::fs::read_to_string(dump()).expect("dump");
    let v: Value = serde_json::from_str(&text).expect("json");
    let objects = v["items"].as_array().expect("items").clone();
    Server::start(Cluster {
        objects,
        forbidden: forbidden.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    })
}

/// `code namespace/name message` of each finding, sorted.
fn codes(stdout: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(stdout).expect("one JSON document");
    let mut out: Vec<String> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| format!("{} {}/{} {}", f["code"], f["object"]["namespace"], f["object"]["name"], f["message"]))
        .collect();
    out.sort();
    out
}

#[test]
fn scan_output_and_exit_codes_match_lint_of_the_dump() {
    let d = Dir::new();
    let s = server(&[]);
    let kc = s.kubeconfig(d.path());
    let kc = kc.to_str().expect("utf-8 path");
    let scan = edgecheck(d.path(), &["scan", "--kubeconfig", kc, "-A", "-o", "json", "--no-config"]);
    let dump = dump();
    let lint = edgecheck(d.path(), &["lint", dump.to_str().expect("utf-8"), "-o", "json", "--no-config"]);
    assert_eq!(scan.code, 1, "{}", scan.stderr);
    assert_eq!(lint.code, 1);
    assert_eq!(codes(&scan.stdout), codes(&lint.stdout));
    assert!(codes(&scan.stdout).iter().any(|c| c.starts_with("\"TLS001\"")));
    // select and fail-on behave as in lint.
    let only = edgecheck(d.path(), &["scan", "--kubeconfig", kc, "-o", "json", "--select", "BKD001", "--no-config"]);
    let c = codes(&only.stdout);
    assert!(!c.is_empty() && c.iter().all(|f| f.starts_with("\"BKD001\"")), "{c:#?}");
    let never = edgecheck(d.path(), &["scan", "--kubeconfig", kc, "--fail-on", "never", "--no-config"]);
    assert_eq!(never.code, 0);
    assert!(never.stdout.contains("tls-secret-missing"), "{}", never.stdout);
    assert_eq!(s.non_get(), 0);
    assert!(s.requests().iter().all(|r| r.starts_with("GET ")));
}

#[test]
fn scan_reports_forbidden_kinds_and_bad_kubeconfig() {
    let d = Dir::new();
    let s = server(&["secrets"]);
    let kc = s.kubeconfig(d.path());
    let run = edgecheck(d.path(), &["scan", "--kubeconfig", kc.to_str().expect("utf-8"), "--no-config"]);
    assert!(run.stdout.contains("LOD007") && run.stdout.contains("could not check Secret (v1)"), "{}", run.stdout);
    assert!(!run.stdout.contains("TLS001"), "{}", run.stdout);
    assert!(run.stderr.contains("could not check Secret (v1): forbidden"), "{}", run.stderr);
    let missing = edgecheck(d.path(), &["scan", "--kubeconfig", "no-such-file", "--no-config"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("kubeconfig"), "{}", missing.stderr);
}

#[test]
fn scan_that_reads_nothing_exits_2_with_the_reasons() {
    let d = Dir::new();
    let s = Server::start(Cluster {
        objects: vec![
            serde_json::json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "x"}}),
        ],
        hostile: api_server::Hostile::FailLists(api_server::Failure::Status500),
        ..Default::default()
    });
    let kc = s.kubeconfig(d.path());
    let out = assert_cmd::Command::cargo_bin("edgecheck")
        .expect("binary")
        .current_dir(d.path())
        .args(["scan", "--kubeconfig", kc.to_str().expect("utf-8"), "--no-config"])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "edgecheck: nothing could be read from the cluster: Service (v1): 500 InternalError: etcdserver: request timed out"
        ),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).is_empty());
    assert_eq!(s.non_get(), 0);
}

#[test]
fn rbac_grants_get_and_list_only() {
    let d = Dir::new();
    let run = edgecheck(d.path(), &["rbac", "--service-account", "ops/scanner"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("kind: ClusterRole\n") && run.stdout.contains("kind: ClusterRoleBinding\n"));
    let verbs: Vec<&str> = run.stdout.lines().filter(|l| l.trim_start().starts_with("verbs:")).collect();
    assert!(!verbs.is_empty());
    assert!(verbs.iter().all(|l| l.trim() == "verbs: [\"get\", \"list\"]"), "{verbs:#?}");
    for r in ["\"secrets\"", "\"gateways\"", "\"httproutes\"", "\"ingresses\"", "\"certificates\"", "\"applications\""]
    {
        assert!(run.stdout.contains(r), "{r} in {}", run.stdout);
    }
    assert!(run.stdout.contains("    name: scanner\n    namespace: ops\n"), "{}", run.stdout);
}

#[test]
fn trace_reads_the_cluster_and_agrees_with_trace_of_the_dump() {
    let d = Dir::new();
    let s = server(&[]);
    let kc = s.kubeconfig(d.path());
    let kc = kc.to_str().expect("utf-8 path");
    let url = "https://shop.example.com/";
    let live = edgecheck(d.path(), &["trace", url, "--kubeconfig", kc, "--no-probe", "-o", "json", "--no-config"]);
    let dump = dump();
    let file = edgecheck(
        d.path(),
        &["trace", url, "--from", dump.to_str().expect("utf-8"), "--no-probe", "-o", "json", "--no-config"],
    );
    assert_eq!(live.code, 1, "{}", live.stderr);
    let (a, b): (Value, Value) =
        (serde_json::from_str(&live.stdout).expect("json"), serde_json::from_str(&file.stdout).expect("json"));
    assert_eq!(a["diagnoses"][0]["verdict"], "broken");
    assert_eq!(a["diagnoses"][0]["layer"], b["diagnoses"][0]["layer"]);
    assert_eq!(a["diagnoses"][0]["chain"], b["diagnoses"][0]["chain"]);
    assert_eq!(s.non_get(), 0, "trace never writes to the cluster");
}

/// Issue 16, item 14: a kind that could not be listed makes the claim unknown, not absent.
#[test]
fn issue_16_trace_with_ingresses_forbidden_is_unknown_not_unclaimed() {
    let d = Dir::new();
    // Both kinds that claim shop.example.com in the fixture cluster are forbidden.
    let s = server(&["ingresses", "httproutes"]);
    let kc = s.kubeconfig(d.path());
    let kc = kc.to_str().expect("utf-8 path");
    let url = "https://shop.example.com/";
    let r = edgecheck(d.path(), &["trace", url, "--kubeconfig", kc, "--no-probe", "-o", "json", "--no-config"]);
    assert_eq!(r.code, 1, "an unknown claim is not a pass: {}\n{}", r.stderr, r.stdout);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    let diag = &v["diagnoses"][0];
    assert_eq!(diag["verdict"], "unknown", "{}", diag["summary"]);
    assert!(
        diag["summary"].as_str().is_some_and(|m| m.contains("Ingress, HTTPRoute could not be listed")),
        "{}",
        diag["summary"]
    );
    let text = edgecheck(d.path(), &["trace", url, "--kubeconfig", kc, "--no-probe", "--no-config"]);
    assert!(!text.stdout.contains("not claimed by any object"), "{}", text.stdout);
    assert_eq!(s.non_get(), 0);
}

#[test]
fn trace_from_a_cluster_takes_request_timeout_and_namespace() {
    let d = Dir::new();
    // Every list stalls: the requests are given up after --request-timeout, not a fixed 30 s.
    let s = Server::start(Cluster {
        objects: vec![
            serde_json::json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "x"}}),
        ],
        hostile: api_server::Hostile::FailLists(api_server::Failure::Stall),
        ..Default::default()
    });
    let kc = s.kubeconfig(d.path());
    let kc = kc.to_str().expect("utf-8");
    let start = std::time::Instant::now();
    let r = edgecheck(
        d.path(),
        &["trace", "https://a.example/", "--kubeconfig", kc, "--request-timeout", "1s", "--no-probe", "--no-config"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!r.stderr.contains("unexpected argument"), "{}", r.stderr);
    assert!(start.elapsed() < std::time::Duration::from_secs(20), "took {:?}", start.elapsed());
    // `-n` reads one namespace, as scan's.
    let s = server(&[]);
    let kc = s.kubeconfig(d.path());
    let r = edgecheck(
        d.path(),
        &[
            "trace",
            "https://shop.example.com/",
            "--kubeconfig",
            kc.to_str().expect("utf-8"),
            "-n",
            "shop",
            "--no-probe",
        ],
    );
    assert_ne!(r.code, 2, "{}", r.stderr);
    let lists: Vec<String> = s.requests().into_iter().filter(|q| q.contains("/services")).collect();
    assert!(!lists.is_empty() && lists.iter().all(|q| q.contains("/namespaces/shop/")), "{lists:#?}");
}

#[test]
fn cluster_errors_read_like_kubectl_s() {
    let d = Dir::new();
    d.write(
        "kc",
        "apiVersion: v1\nkind: Config\ncurrent-context: lab\ncontexts: [{name: lab, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: 'https://127.0.0.1:1', insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: t}}]\n",
    );
    for cmd in [
        &["scan", "--kubeconfig", "kc", "--no-config"][..],
        &["trace", "https://a.example/", "--kubeconfig", "kc", "--no-probe", "--no-config"],
    ] {
        let r = edgecheck(d.path(), cmd);
        assert_eq!(r.code, 2, "{cmd:?}");
        assert!(
            r.stderr.contains(
                "edgecheck: the connection to https://127.0.0.1:1 was refused — is the context right? (kubeconfig kc, context lab)"
            ),
            "{cmd:?}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains("os error") && !r.stderr.contains("ServiceError"), "no raw chain: {}", r.stderr);
    }
}

#[test]
fn rbac_explains_secrets_and_can_leave_them_out() {
    let d = Dir::new();
    let with = edgecheck(d.path(), &["rbac"]);
    assert!(with.stdout.contains("# Secrets: the TLS checks read certificates"), "{}", with.stdout);
    assert!(with.stdout.contains("\"secrets\""));
    let without = edgecheck(d.path(), &["rbac", "--no-secrets"]);
    assert_eq!(without.code, 0);
    assert!(!without.stdout.contains("\"secrets\""), "{}", without.stdout);
    assert!(without.stdout.contains("\"services\"") && without.stdout.contains("could not"), "{}", without.stdout);
    // A scan with that role: Secrets are "could not check" (LOD007), and no TLS finding guesses.
    let s = server(&["secrets"]);
    let kc = s.kubeconfig(d.path());
    let r = edgecheck(d.path(), &["scan", "--kubeconfig", kc.to_str().expect("utf-8"), "-o", "json", "--no-config"]);
    let v: Value = serde_json::from_str(&r.stdout).expect("json");
    let codes: Vec<&str> = v["findings"].as_array().expect("f").iter().filter_map(|f| f["code"].as_str()).collect();
    assert!(codes.contains(&"LOD007") && !codes.contains(&"TLS001"), "{codes:?}");
}
