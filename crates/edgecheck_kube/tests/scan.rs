//! `edgecheck_kube::scan` against the test API server (tests/api_server): same findings as a lint of
//! the same objects' dump, 403 recorded as "could not check", kinds not served skipped, pagination
//! followed, only GET requests.

mod api_server;

use std::path::Path;

use api_server::{Cluster, Server};
use edgecheck_checks::Selection;
use edgecheck_core::{Graph, Options};
use serde_json::Value;

const NOW: i64 = 1_780_272_000;

fn dump_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cluster.json")
}

fn dump_objects() -> Vec<Value> {
    let text = std::fs::read_to_string(dump_path()).expect("read dump");
    let v: Value = serde_json::from_str(&text).expect("dump is JSON");
    v["items"].as_array().expect("items").clone()
}

/// (code, severity, object, message) of every finding, sorted: what must agree between scan and lint
/// (files and lines differ by nature).
fn findings(graph: &Graph, options: &Options) -> Vec<String> {
    let a = edgecheck_checks::analyze(
        graph,
        options,
        NOW,
        &Selection::default(),
        &[],
        &[],
        edgecheck_checks::diagnose::Diagnose::Hosts,
    );
    let mut out: Vec<String> = a
        .findings
        .iter()
        .map(|f| {
            format!(
                "{} {:?} {} {}/{} {}",
                f.code(),
                f.severity,
                f.object.kind,
                f.object.namespace.as_deref().unwrap_or(""),
                f.object.name,
                f.message
            )
        })
        .collect();
    out.sort();
    out
}

fn scan(server: &Server, dir: &Path, namespace: Option<&str>, page: Option<u32>) -> edgecheck_kube::Scan {
    let options = edgecheck_kube::ScanOptions {
        kubeconfig: Some(server.kubeconfig(dir)),
        namespace: namespace.map(str::to_string),
        page_size: page,
        timeout: Some(std::time::Duration::from_secs(10)),
        ..Default::default()
    };
    edgecheck_kube::scan(&options).expect("scan")
}

fn scan_findings(s: edgecheck_kube::Scan) -> Vec<String> {
    // As `edgecheck scan` decides: a full dump only when every kind was listed.
    let complete = Some(s.inventory.unchecked.is_empty());
    let options = Options { default_namespace: s.default_namespace.clone(), complete, ..Options::default() };
    findings(&Graph::build(s.inventory, &options), &options)
}

#[test]
fn scan_finds_what_lint_finds_on_the_dump() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(Cluster {
        objects: dump_objects(),
        older_versions: vec![("gateway.networking.k8s.io".into(), "v1beta1".into())],
        ..Default::default()
    });
    let s = scan(&server, dir.path(), None, None);
    assert_eq!(s.cluster, "test-ctx");
    assert_eq!(s.default_namespace, "shop");
    assert_eq!(s.inventory.objects.len(), 10);
    assert!(s.inventory.unchecked.is_empty(), "{:?}", s.inventory.unchecked);
    assert!(s.inventory.objects.iter().all(|o| o.source.cluster() == Some("test-ctx") && o.source.file().is_none()));
    // Secret values are never kept.
    let secret = s.inventory.objects.iter().find(|o| o.kind.kind == "Secret").expect("the Secret");
    assert_eq!(secret.value.to_value()["data"]["cert.pem"], edgecheck_core::Value::Null);
    assert!(secret.secret.is_some());
    // Helm's release records are not read (the dump has one: 11 objects there, 10 here).
    assert!(!s.inventory.objects.iter().any(|o| o.name.starts_with("sh.helm.release")));
    // managedFields are dropped, as kubectl prints objects.
    let db = s.inventory.objects.iter().find(|o| o.name == "db").expect("Service db");
    assert!(db.value.to_value()["metadata"].get("managedFields").is_none());
    assert_eq!(db.value.to_value()["apiVersion"], "v1");
    assert_eq!(db.value.to_value()["kind"], "Service");

    let live = scan_findings(s);
    let (inv, errors) = edgecheck_load::load_paths(&[dump_path()], &edgecheck_load::LoadOptions::default());
    assert!(errors.is_empty());
    let options = Options::default();
    let graph = Graph::build(inv, &options);
    assert!(graph.complete, "the dump is detected as a full cluster dump");
    let dumped = findings(&graph, &options);
    assert_eq!(live, dumped);
    for code in ["TLS001", "TLS002", "BKD001", "RTE030"] {
        assert!(live.iter().any(|f| f.starts_with(code)), "{code} in {live:#?}");
    }

    let requests = server.requests();
    assert_eq!(server.non_get(), 0, "{requests:#?}");
    assert!(
        requests.iter().any(
            |r| r.starts_with("GET /api/v1/secrets?") && r.contains("fieldSelector=type%21%3Dhelm.sh%2Frelease.v1")
        ),
        "{requests:#?}"
    );
    assert!(requests.iter().all(|r| r.starts_with("GET ")));
    // The preferred version is listed, not the older one also served.
    assert!(requests.iter().any(|r| r.starts_with("GET /apis/gateway.networking.k8s.io/v1/gateways")), "{requests:#?}");
    assert!(!requests.iter().any(|r| r.contains("/v1beta1/")), "{requests:#?}");
    // Kinds the cluster does not serve are not asked for (cert-manager, Argo CD are not installed).
    assert!(!requests.iter().any(|r| r.contains("cert-manager.io") || r.contains("argoproj.io")), "{requests:#?}");
}

#[test]
fn forbidden_secrets_are_not_missing_secrets() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server =
        Server::start(Cluster { objects: dump_objects(), forbidden: vec!["secrets".into()], ..Default::default() });
    let s = scan(&server, dir.path(), None, None);
    assert_eq!(s.inventory.unchecked.len(), 1);
    let u = &s.inventory.unchecked[0];
    assert_eq!((u.kind.as_str(), u.api_version.as_str()), ("Secret", "v1"));
    assert!(u.reason.starts_with("forbidden: secrets is forbidden"), "{}", u.reason);
    assert!(!s.listed.iter().any(|l| l == "/Secret"));
    assert!(s.listed.iter().any(|l| l == "/Service"));
    let live = scan_findings(s);
    let lod: Vec<&String> = live.iter().filter(|f| f.starts_with("LOD007")).collect();
    assert_eq!(lod.len(), 1, "{live:#?}");
    assert!(
        lod[0].contains("could not check Secret (v1) of cluster test-ctx: the API server refused to list them"),
        "{}",
        lod[0]
    );
    // No finding says a Secret is missing or unusable: they were not seen, not absent.
    for f in &live {
        assert!(!f.starts_with("TLS001") && !f.starts_with("TLS002"), "{f}");
        assert!(!f.contains("not in the inventory") || !f.contains("Secret"), "{f}");
    }
    // Everything not about Secrets is still found.
    assert!(live.iter().any(|f| f.starts_with("BKD001")));
    assert_eq!(server.non_get(), 0);
}

#[test]
fn pages_are_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(Cluster { objects: dump_objects(), ..Default::default() });
    let s = scan(&server, dir.path(), None, Some(2));
    assert_eq!(s.inventory.objects.iter().filter(|o| o.kind.kind == "Service").count(), 3);
    assert_eq!(s.inventory.objects.len(), 10);
    let requests = server.requests();
    let services: Vec<&String> = requests.iter().filter(|r| r.starts_with("GET /api/v1/services")).collect();
    assert_eq!(services.len(), 2, "{services:#?}");
    assert!(services[1].contains("continue=2"), "{services:#?}");
    assert!(services.iter().all(|r| r.contains("limit=2")));
}

#[test]
fn one_namespace_lists_only_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(Cluster { objects: dump_objects(), ..Default::default() });
    let s = scan(&server, dir.path(), Some("edge"), None);
    let requests = server.requests();
    assert!(requests.iter().any(|r| r.starts_with("GET /api/v1/namespaces/edge/services")), "{requests:#?}");
    // Cluster-scoped kinds are listed whole.
    assert!(requests.iter().any(|r| r.starts_with("GET /apis/gateway.networking.k8s.io/v1/gatewayclasses")));
    assert!(s.inventory.objects.iter().all(|o| o.namespace.as_deref().is_none_or(|ns| ns == "edge")));
    assert!(s.inventory.objects.iter().any(|o| o.kind.kind == "Gateway"));
    assert!(!s.inventory.objects.iter().any(|o| o.kind.kind == "Ingress"));
}

#[test]
fn no_server_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("kubeconfig");
    std::fs::write(&path, "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n").expect("write");
    let options = edgecheck_kube::ScanOptions { kubeconfig: Some(path), ..Default::default() };
    assert!(edgecheck_kube::scan(&options).is_err());
}

#[test]
fn context_is_chosen_like_kubectl() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(Cluster { objects: dump_objects(), ..Default::default() });
    let path = dir.path().join("two-contexts");
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: {}\n\
         - name: nowhere\n  cluster:\n    server: http://127.0.0.1:1\n\
         contexts:\n- name: broken\n  context:\n    cluster: nowhere\n    user: u\n\
         - name: staging\n  context:\n    cluster: test\n    user: u\n    namespace: edge\n\
         current-context: broken\nusers:\n- name: u\n  user:\n    token: t\n",
        server.url
    );
    std::fs::write(&path, text).expect("write");
    let options = edgecheck_kube::ScanOptions {
        kubeconfig: Some(path.clone()),
        context: Some("staging".into()),
        timeout: Some(std::time::Duration::from_secs(5)),
        ..Default::default()
    };
    let s = edgecheck_kube::scan(&options).expect("scan of context staging");
    assert_eq!(s.cluster, "staging");
    assert_eq!(s.default_namespace, "edge");
    assert_eq!(s.inventory.objects.len(), 10);
    // The current context points at a closed port: discovery fails, an error and not an empty cluster.
    let current = edgecheck_kube::ScanOptions {
        kubeconfig: Some(path),
        timeout: Some(std::time::Duration::from_secs(5)),
        ..Default::default()
    };
    assert!(matches!(edgecheck_kube::scan(&current), Err(edgecheck_kube::ScanError::Discovery(_))));
}

/// Issues #4 and #17's benchmark: `SCAN_OBJECTS` objects (default 15,000; every third a Secret with data,
/// the rest Services) from the test API server. Run with
/// `cargo test -p edgecheck_kube --test scan -- --ignored --nocapture scan_benchmark` (`benches/scan.sh`).
#[test]
#[ignore = "benchmark"]
fn scan_benchmark() {
    let n: usize = std::env::var("SCAN_OBJECTS").ok().and_then(|s| s.parse().ok()).unwrap_or(15_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut objects =
        vec![serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bulk", "uid": "u0"}})];
    for i in 0..n {
        let meta = serde_json::json!({"namespace": "bulk", "uid": format!("u{}", i + 1), "resourceVersion": "1"});
        let mut o = if i % 3 == 2 {
            serde_json::json!({
                "apiVersion": "v1", "kind": "Secret", "type": "Opaque", "metadata": meta,
                "data": {"username": "YWRtaW4=", "password": format!("c2VjcmV0LXtp{i:08}")}
            })
        } else {
            serde_json::json!({
                "apiVersion": "v1", "kind": "Service", "metadata": meta,
                "spec": {"selector": {"app": format!("a{i}")}, "ports": [{"port": 80}]}
            })
        };
        o["metadata"]["name"] = serde_json::json!(format!("obj-{i}"));
        objects.push(o);
    }
    let server = Server::start(Cluster { objects, ..Default::default() });
    let rss_server = status_kb("VmRSS");
    let t0 = std::time::Instant::now();
    let s = scan(&server, dir.path(), None, None);
    let t_scan = t0.elapsed();
    assert_eq!(s.inventory.objects.len(), n + 1);
    let (api_time, load_time) = (s.api_time, s.load_time);
    let options = Options { complete: Some(true), ..Options::default() };
    let graph = Graph::build(s.inventory, &options);
    let a = edgecheck_checks::analyze(
        &graph,
        &options,
        NOW,
        &Selection::default(),
        &[],
        &[],
        edgecheck_checks::diagnose::Diagnose::Hosts,
    );
    println!(
        "{} objects: scan {t_scan:?} (API {:?}, loading {:?}), graph + checks {:?}; outside API calls {:?}; {} findings, {} requests",
        n + 1,
        api_time,
        load_time,
        t0.elapsed() - t_scan,
        load_time + (t0.elapsed() - t_scan),
        a.findings.len(),
        server.requests().len()
    );
    println!(
        "resident before the scan (test server and its objects): {} MB; peak of the process: {} MB",
        rss_server / 1024,
        status_kb("VmHWM") / 1024
    );
}

/// A `/proc/self/status` field in kB (0 where there is none).
fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':')?.trim().strip_suffix("kB")?.trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn progress_reports_every_listed_kind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(Cluster { objects: dump_objects(), ..Default::default() });
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<(usize, usize, String)>::new()));
    let sink = seen.clone();
    let options = edgecheck_kube::ScanOptions {
        kubeconfig: Some(server.kubeconfig(dir.path())),
        progress: Some(edgecheck_kube::Progress(std::sync::Arc::new(move |done, total, kind| {
            sink.lock().expect("lock").push((done, total, kind.to_string()));
        }))),
        ..Default::default()
    };
    let s = edgecheck_kube::scan(&options).expect("scan");
    let calls = seen.lock().expect("lock").clone();
    assert!(!calls.is_empty());
    let total = calls[0].1;
    assert_eq!(calls.len(), total, "one call per kind");
    assert!(calls.iter().any(|(d, t, _)| d == t), "the last call reaches the total");
    assert!(s.listed.len() <= total);
}
