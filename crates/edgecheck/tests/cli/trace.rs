//! `edgecheck trace`: offline (objects from files, no probe or replayed observations), every
//! example traceable, bad URLs refused.

use crate::support::{edgecheck, json};

fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const NOW: &str = "2026-06-01T00:00:00Z";

fn trace(args: &[&str]) -> (i32, serde_json::Value) {
    let mut a = vec!["trace", "--format", "json", "--now", NOW];
    a.extend_from_slice(args);
    let r = edgecheck(&repo_root(), &a);
    assert_ne!(r.code, 2, "{}", r.stderr);
    (r.code, json(&r))
}

fn chain(d: &serde_json::Value) -> Vec<String> {
    d["chain"]
        .as_array()
        .expect("chain")
        .iter()
        .map(|l| format!("{} {}", l["kind"].as_str().unwrap_or(""), l["name"].as_str().unwrap_or("")))
        .collect()
}

fn root_code(v: &serde_json::Value, d: &serde_json::Value) -> String {
    let i = d["root_cause"].as_u64().expect("a root cause") as usize;
    v["findings"][i]["code"].as_str().unwrap_or_default().to_string()
}

#[test]
fn seed_004_chain_from_the_degraded_application_to_the_event() {
    let (code, v) = trace(&["http://auth.example.com/", "--from", "examples/zitadel-dump", "--no-probe"]);
    assert_eq!(code, 1);
    let d = &v["diagnoses"][0];
    assert_eq!(d["target"], "http://auth.example.com/");
    assert_eq!(d["verdict"], "broken");
    assert_eq!(d["layer"], "backend");
    assert_eq!(
        chain(d),
        [
            "Application gateway",
            "HTTPRoute zitadel",
            "Service zitadel",
            "Job zitadel-setup",
            "Event zitadel-setup-x7k2p.17a"
        ]
    );
    assert_eq!(d["chain"][2]["state"], "missing");
    assert_eq!(d["chain"][4]["state"], "\"masterkey must be 32 bytes, got 24\"");
    assert_eq!(root_code(&v, d), "SEC002");
    // The node where it breaks is the missing Service on the request branch.
    let at = &d["nodes"][d["breaks_at"].as_u64().expect("breaks_at") as usize];
    assert_eq!(at["object"]["kind"], "Service");
    assert_eq!(at["state"], "missing");
    assert_eq!(at["branch"], "request");
}

#[test]
fn text_draws_the_tree_with_the_root_cause_and_fix() {
    let r = edgecheck(
        &repo_root(),
        &["trace", "http://auth.example.com/", "--from", "examples/zitadel-dump", "--no-probe", "--now", NOW],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let out = &r.stdout;
    assert!(out.starts_with("trace http://auth.example.com/ — broken at backend"), "{out}");
    let svc = out.lines().find(|l| l.contains("Service zitadel/zitadel")).expect("service line");
    assert!(svc.contains("◀ breaks here") && svc.contains('✗'), "{svc}");
    let job = out.lines().find(|l| l.contains("Job zitadel/zitadel-setup")).expect("job line");
    assert!(job.contains("◀ root cause"), "{job}");
    assert!(
        out.contains("root cause: SEC002 secret-value-shape-invalid\n  --> examples/zitadel-dump/dump.yaml:"),
        "{out}"
    );
    // The tree is drawn with real glyphs: siblings joined by ├ and │, the last one by └.
    assert!(out.contains("├─ ✗ Service zitadel/zitadel") && out.contains("│  └─ ✗ Job zitadel/zitadel-setup"), "{out}");
    assert!(out.contains("└─ ✗ Application argocd/gateway"), "{out}");
    assert!(out.lines().all(|l| l.chars().count() <= 100), "wrapped to 100 columns off a terminal:\n{out}");
    assert!(out.contains("└ fix: rotate the value at its source"), "{out}");
    assert!(out.contains("← Event zitadel/zitadel-setup-x7k2p.17a \"masterkey must be 32 bytes, got 24\""), "{out}");
}

#[test]
fn every_example_host_can_be_traced_offline() {
    // lint lists the hosts; trace each one without a cluster or network and get the same verdict.
    let mut traced = 0;
    for entry in std::fs::read_dir(repo_root().join("examples")).expect("examples") {
        let dir = entry.expect("entry").path();
        let rel = format!("examples/{}", dir.file_name().and_then(|n| n.to_str()).unwrap_or_default());
        let r = edgecheck(&repo_root(), &["lint", "--format", "json", "--now", NOW, &rel]);
        let lint = json(&r);
        for d in lint["diagnoses"].as_array().expect("diagnoses") {
            let target = d["target"].as_str().expect("target");
            let (code, v) = trace(&[target, "--from", &rel, "--no-probe"]);
            let t = &v["diagnoses"][0];
            assert_eq!(t["target"], target);
            assert_eq!(t["verdict"], d["verdict"], "{rel} {target}");
            assert_eq!(t["chain"], d["chain"], "{rel} {target}");
            assert_eq!(code, i32::from(t["verdict"] == "broken"), "{rel} {target}");
            traced += 1;
        }
    }
    assert!(traced >= 8, "only {traced} hosts traced");
}

#[test]
fn examples_root_causes() {
    let cases = [
        ("alb-https-503", "https://shop.example.com/", "listener", "LSN030"),
        ("cert-manager-mismatch", "https://example.com/", "tls", "TLS014"),
        ("gateway-routes", "http://www.example.org/", "route", "RTE001"),
        ("argocd-tls-passthrough", "https://argocd.example.com/", "backend", "BKD008"),
    ];
    for (ex, url, layer, code) in cases {
        let (_, v) = trace(&[url, "--from", &format!("examples/{ex}"), "--no-probe"]);
        let d = &v["diagnoses"][0];
        assert_eq!(d["layer"], layer, "{ex}: {}", d["summary"]);
        assert_eq!(root_code(&v, d), code, "{ex}: {}", d["summary"]);
    }
    let (code, v) = trace(&["https://shop.example.com/", "--from", "examples/clean", "--no-probe"]);
    assert_eq!(code, 0);
    assert_eq!(v["diagnoses"][0]["verdict"], "ok");
    assert!(v["diagnoses"][0]["root_cause"].is_null());
}

#[test]
fn replayed_observations_join_the_objects() {
    // The ALB example plus what a probe saw: nginx's 503 page. The listener fault in the objects
    // stays the root cause; the probe's finding is on the path, not beside it.
    let obs = "crates/edgecheck_checks/resources/fixtures/app/APP001_nginx_503.observations.json";
    let (_, v) = trace(&["https://shop.example.com/", "--from", "examples/alb-https-503", "--observations", obs]);
    let d = &v["diagnoses"][0];
    assert_eq!(d["layer"], "listener", "{}", d["summary"]);
    assert_eq!(v["summary"]["targets"], 1);
    let on_path: Vec<u64> = d["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .flat_map(|n| n["findings"].as_array().cloned().unwrap_or_default())
        .filter_map(|x| x.as_u64())
        .collect();
    let app001 =
        v["findings"].as_array().expect("findings").iter().position(|f| f["code"] == "APP001").expect("APP001");
    assert!(on_path.contains(&(app001 as u64)), "{on_path:?}");
}

#[test]
fn unclaimed_host_and_bad_urls() {
    // Exit 1 with "not claimed" and the claimed hosts nearest to the one asked for, in every format.
    for format in ["json", "text"] {
        let r = edgecheck(
            &repo_root(),
            &["trace", "https://shop.exmple.com/", "--from", "examples/clean", "--no-probe", "-o", format],
        );
        assert_eq!(r.code, 1, "{format}: {}", r.stderr);
        assert!(
            r.stderr.contains(
                "edgecheck: shop.exmple.com is not claimed by any object; the nearest claimed: shop.example.com"
            ),
            "{format}: {}",
            r.stderr
        );
        if format == "json" {
            assert_eq!(json(&r)["diagnoses"][0]["verdict"], "unclaimed");
        } else {
            assert!(r.stdout.contains("not claimed by any object"), "{}", r.stdout);
        }
    }
    let (code, _) = trace(&["https://nobody.example.net/", "--from", "examples/clean", "--no-probe"]);
    assert_eq!(code, 1);
    let r = edgecheck(
        &repo_root(),
        &["trace", "https://x.example/", "--from", "examples/clean", "--no-probe", "--fail-on", "never"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = edgecheck(&repo_root(), &["trace", "ftp://x/", "--from", "examples/clean", "--no-probe"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not a URL edgecheck can trace"), "{}", r.stderr);
    let r = edgecheck(&repo_root(), &["trace", "https://x/", "--from", "no/such/dir", "--no-probe"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn lint_reports_open_with_the_broken_hosts() {
    for (format, head) in [("text", "── hosts"), ("markdown", "### hosts")] {
        let r = edgecheck(&repo_root(), &["lint", "--format", format, "--now", NOW, "examples/zitadel-dump"]);
        assert_eq!(r.code, 1, "{}", r.stderr);
        let at = r.stdout.find(head).unwrap_or_else(|| panic!("{format}: no hosts section\n{}", r.stdout));
        let first_layer = r.stdout.find(if format == "text" { "── dns" } else { "### dns" }).expect("layers");
        assert!(at < first_layer, "{format}: the hosts come first");
        assert!(r.stdout.contains("http://auth.example.com/"), "{}", r.stdout);
        assert!(
            r.stdout.contains("Service zitadel/zitadel missing ← Job zitadel/zitadel-setup failed"),
            "{}",
            r.stdout
        );
    }
    // A clean repository has no hosts section: nothing is broken.
    let r = edgecheck(&repo_root(), &["lint", "--now", NOW, "examples/clean"]);
    assert!(!r.stdout.contains("── hosts"), "{}", r.stdout);
}

#[test]
fn live_probe_of_a_port_nothing_listens_on() {
    // The probe runs for real (loopback, --resolve): the listener layer is where it breaks. The objects say
    // why (no listener of the Gateway takes the route on that port: LSN040), the probe what (refused:
    // LSN100, the symptom the chain starts with).
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
    let url = format!("https://shop.example.com:{port}/");
    let resolve = format!("shop.example.com:{port}:127.0.0.1");
    let (code, v) = trace(&[&url, "--from", "examples/clean", "--resolve", &resolve, "--timeout", "2s"]);
    assert_eq!(code, 1);
    let d = &v["diagnoses"][0];
    assert_eq!(d["layer"], "listener", "{}", d["summary"]);
    assert_eq!(root_code(&v, d), "LSN040");
    let symptom = d["chain"][0]["finding"].as_u64().expect("the symptom's finding") as usize;
    assert_eq!(v["findings"][symptom]["code"], "LSN100", "{}", d["chain"]);
    assert_eq!(v["summary"]["targets"], 1);
}

#[test]
fn trace_draws_in_every_diagram_format() {
    for (format, needle) in [("dot", "digraph"), ("mermaid", "flowchart"), ("html", "<svg")] {
        let r = edgecheck(
            &repo_root(),
            &[
                "trace",
                "http://auth.example.com/",
                "--from",
                "examples/zitadel-dump",
                "--no-probe",
                "--now",
                NOW,
                "--format",
                format,
            ],
        );
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(r.stdout.contains(needle), "{format}: {}", r.stdout);
        assert!(r.stdout.contains("zitadel-setup"), "{format} draws the root cause's Job");
    }
}

/// Issue 19, item 1: the URL's scheme and port decide the path.
#[test]
fn issue_19_scheme_and_port_decide_the_path() {
    // https to a Gateway that listens on :80 only dies at the listener, not at the backend, and TLS is
    // not judged where it is not spoken.
    let (code, v) = trace(&["https://auth.example.com/", "--from", "examples/zitadel-dump", "--no-probe"]);
    assert_eq!(code, 1);
    let d = &v["diagnoses"][0];
    assert_eq!((d["verdict"].as_str(), d["layer"].as_str()), (Some("broken"), Some("listener")), "{}", d["summary"]);
    assert_eq!(root_code(&v, d), "LSN040");
    let tls = d["nodes"].as_array().expect("nodes").iter().find(|n| n["role"] == "tls").expect("tls node");
    assert_eq!(tls["state"], "unknown", "{tls}");
    // http to the ALB, whose :80 listener exists: the missing HTTPS listener is not this request's fault.
    let (_, v) = trace(&["http://shop.example.com/", "--from", "examples/alb-https-503", "--no-probe"]);
    let d = &v["diagnoses"][0];
    assert_eq!(d["layer"], "backend", "{}", d["summary"]);
    assert_eq!(root_code(&v, d), "BKD009");
    let on_path: Vec<&str> = d["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .flat_map(|n| n["findings"].as_array().cloned().unwrap_or_default())
        .filter_map(|i| v["findings"][i.as_u64().unwrap_or(0) as usize]["code"].as_str())
        .collect();
    for code in ["LSN030", "RTE032", "TLS015"] {
        assert!(!on_path.contains(&code), "{code} is about 443/TLS, not http:80: {on_path:?}");
    }
}

/// Issue 19, item 2: independent faults are independent causes, each with its own fix.
#[test]
fn issue_19_independent_faults_are_causes_of_their_own() {
    let (_, v) = trace(&["https://shop.example.com/", "--from", "examples/alb-https-503", "--no-probe"]);
    let d = &v["diagnoses"][0];
    assert_eq!(root_code(&v, d), "LSN030");
    let code =
        |i: &serde_json::Value| v["findings"][i.as_u64().expect("index") as usize]["code"].as_str().unwrap_or("");
    assert!(d["consequences"].as_array().expect("consequences").is_empty(), "{}", d["consequences"]);
    let causes: Vec<&str> = d["causes"].as_array().expect("causes").iter().map(|c| code(&c["root_cause"])).collect();
    // Ranked in path order: the certificate (tls), the listen-ports annotation (route), the backend.
    assert_eq!(causes, ["TLS015", "RTE032", "BKD009"]);
    // zitadel over https: the listener first, the failed Job behind the missing Service second.
    let (_, v) = trace(&["https://auth.example.com/", "--from", "examples/zitadel-dump", "--no-probe"]);
    let d = &v["diagnoses"][0];
    let cause = &d["causes"][0];
    assert_eq!(v["findings"][cause["root_cause"].as_u64().expect("root") as usize]["code"], "SEC002");
    let code =
        |i: &serde_json::Value| v["findings"][i.as_u64().expect("index") as usize]["code"].as_str().unwrap_or("");
    let explains: Vec<&str> = cause["explains"].as_array().expect("explains").iter().map(code).collect();
    for c in ["BKD001", "BKD010", "BKD090"] {
        assert!(explains.contains(&c), "{c} is explained by the secret: {explains:?}");
    }
    let r = edgecheck(
        &repo_root(),
        &["trace", "--now", NOW, "https://auth.example.com/", "--from", "examples/zitadel-dump", "--no-probe"],
    );
    assert!(r.stdout.contains("cause 2 (independent): SEC002"), "{}", r.stdout);
}

#[test]
fn trace_takes_the_inventory_flags_of_lint() {
    let d = crate::support::Dir::new();
    d.write(
        "ing.yaml",
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  ingressClassName: nginx\n  rules:\n  - host: shop.example.com\n    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}\n",
    );
    let run = |extra: &[&str]| {
        let mut a = vec!["trace", "http://shop.example.com/", "--from", ".", "--no-probe", "-o", "json"];
        a.extend_from_slice(extra);
        let r = edgecheck(d.path(), &a);
        assert_ne!(r.code, 2, "{extra:?}: {}", r.stderr);
        json(&r)
    };
    // A partial inventory: the missing Service may be installed by other means.
    assert_eq!(run(&[])["diagnoses"][0]["verdict"], "ok");
    // `--complete` (a full dump) makes it missing; `-n` places the Ingress as lint does.
    let v = run(&["--complete", "-n", "shop", "--cni", "cilium", "--api-versions", "networking.k8s.io/v1"]);
    assert_eq!(v["diagnoses"][0]["verdict"], "broken", "{}", v["diagnoses"][0]["summary"]);
    let bkd001 = v["findings"].as_array().expect("findings").iter().find(|f| f["code"] == "BKD001").expect("BKD001");
    assert_eq!(bkd001["object"]["namespace"], "shop");
    // lint of the same files with the same flags agrees.
    let lint = edgecheck(d.path(), &["lint", "-o", "json", "--complete", "-n", "shop", "."]);
    assert_eq!(json(&lint)["diagnoses"][0]["verdict"], "broken");
}
