//! The JSON contract has a JSON Schema (docs/schema/edgecheck.schema.json, #20): every JSON report the
//! tests read is validated against it (`support::json`), and here every bundled example, a trace, a probe
//! and a lint of several roots are.

use std::sync::OnceLock;

use crate::support::{edgecheck, json, Dir};

fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let path = repo_root().join("docs/schema/edgecheck.schema.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
        jsonschema::draft202012::new(&schema).expect("the schema compiles")
    })
}

/// A JSON report of lint, scan, trace or probe (not SARIF, GitLab or the catalogue).
pub fn is_report(v: &serde_json::Value) -> bool {
    v.get("version") == Some(&serde_json::json!(1)) && v.get("findings").is_some()
}

fn errors(v: &serde_json::Value) -> Vec<String> {
    validator().iter_errors(v).map(|e| format!("{e} at {}", e.instance_path)).collect()
}

pub fn assert_valid(v: &serde_json::Value) {
    let errors = errors(v);
    assert!(errors.is_empty(), "the report does not follow docs/schema/edgecheck.schema.json: {errors:#?}");
}

fn examples() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo_root().join("examples"))
        .expect("examples/")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

#[test]
fn every_example_and_a_trace_of_its_first_host_follow_the_schema() {
    let root = repo_root();
    let names = examples();
    assert!(names.len() >= 5, "{names:?}");
    let mut traced = 0;
    for name in &names {
        let dir = format!("examples/{name}");
        let r = edgecheck(&root, &["lint", "--format", "json", "--now", "2026-06-01T00:00:00Z", &dir]);
        assert_ne!(r.code, 2, "{name}: {}", r.stderr);
        let v = json(&r);
        assert_valid(&v);
        assert_eq!(v["tool"]["version"], env!("CARGO_PKG_VERSION"), "{name}");
        // Trace the first claimed host (offline: no probe).
        let Some(target) = v["diagnoses"].as_array().and_then(|d| d.first()).and_then(|d| d["target"].as_str()) else {
            continue;
        };
        let r = edgecheck(
            &root,
            &["trace", target, "--from", &dir, "--no-probe", "--format", "json", "--now", "2026-06-01T00:00:00Z"],
        );
        assert_ne!(r.code, 2, "{name} {target}: {}", r.stderr);
        let t = json(&r);
        assert_valid(&t);
        assert_eq!(t["diagnoses"][0]["target"], target);
        traced += 1;
    }
    assert!(traced >= 3, "only {traced} examples had a host to trace");
}

#[test]
fn a_probe_and_several_roots_follow_the_schema() {
    // A probe of a closed port on loopback: a failed probe is an observation, with findings.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let d = Dir::new();
    let target = format!("https://127.0.0.1:{port}/");
    let r = edgecheck(d.path(), &["probe", &target, "--timeout", "2s", "--format", "json"]);
    assert_ne!(r.code, 2, "{}", r.stderr);
    let v = json(&r);
    assert_valid(&v);
    assert!(v["observations"].as_array().is_some_and(|o| o.len() == 1), "{v:#}");
    // Two repositories linted apart: one document holding both parts.
    d.write("a/.git/HEAD", "ref: refs/heads/main\n");
    d.write(
        "a/svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: a, namespace: x}\nspec: {ports: [{port: 80}]}\n",
    );
    d.write("b/.git/HEAD", "ref: refs/heads/main\n");
    d.write(
        "b/svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: b, namespace: x}\nspec: {ports: [{port: 80}]}\n",
    );
    let r = edgecheck(d.path(), &["lint", "--format", "json", "a", "b"]);
    assert_ne!(r.code, 2, "{}", r.stderr);
    let v = json(&r);
    assert_valid(&v);
    assert_eq!(v["summary"]["objects"], 2);
}

/// The schema is not a formality: documents that break the contract fail it.
#[test]
fn the_schema_rejects_what_breaks_the_contract() {
    let r = edgecheck(
        &repo_root(),
        &["lint", "--format", "json", "--now", "2026-06-01T00:00:00Z", "examples/cert-manager-mismatch"],
    );
    let good = json(&r);
    assert!(good["findings"].as_array().is_some_and(|f| !f.is_empty()));
    let mut no_tool = good.clone();
    no_tool.as_object_mut().expect("object").remove("tool");
    assert!(!errors(&no_tool).is_empty());
    let mut bad_severity = good.clone();
    bad_severity["findings"][0]["severity"] = "fatal".into();
    assert!(!errors(&bad_severity).is_empty());
    let mut no_line_zero = good.clone();
    no_line_zero["findings"][0]["line"] = 0.into();
    assert!(!errors(&no_line_zero).is_empty());
    let mut renamed = good.clone();
    let summary = renamed["summary"].as_object_mut().expect("summary");
    let n = summary.remove("errors").expect("errors");
    summary.insert("error_count".into(), n);
    assert!(!errors(&renamed).is_empty(), "a renamed field is a broken contract");
    // A new field is not.
    let mut added = good;
    added["findings"][0]["confidence"] = "high".into();
    assert!(errors(&added).is_empty());
}

/// The version is in JSON's `tool` and in SARIF's `tool.driver`.
#[test]
fn the_version_is_in_json_and_sarif() {
    let root = repo_root();
    let r = edgecheck(&root, &["lint", "--format", "sarif", "examples/clean"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("sarif");
    assert_eq!(v["runs"][0]["tool"]["driver"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["runs"][0]["tool"]["driver"]["name"], "edgecheck");
    let v = json(&edgecheck(&root, &["lint", "--format", "json", "examples/clean"]));
    assert_eq!(v["tool"], serde_json::json!({"name": "edgecheck", "version": env!("CARGO_PKG_VERSION")}));
}

/// The render tools' versions are in JSON's `tool.renderers` and SARIF's `tool.extensions` (when kustomize
/// or kubectl is here to render a kustomization).
#[test]
fn the_render_tools_are_named_with_their_versions() {
    let d = Dir::new();
    d.write("app/kustomization.yaml", "namespace: shop\nresources: [svc.yaml]\n");
    d.write("app/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n");
    let v = json(&edgecheck(d.path(), &["lint", "--format", "json", "."]));
    if v["summary"]["rendered_objects"] == 0 {
        eprintln!("nothing rendered (no kustomize or kubectl here): {}", v["findings"]);
        assert!(v["tool"].get("renderers").is_none());
        return;
    }
    let renderers = v["tool"]["renderers"].as_array().expect("tool.renderers");
    assert_eq!(renderers.len(), 1, "{renderers:?}");
    let name = renderers[0].as_str().unwrap_or_default();
    assert!(name.contains("kustomize v"), "{name}");
    let r = edgecheck(d.path(), &["lint", "--format", "sarif", "."]);
    let sarif: serde_json::Value = serde_json::from_str(&r.stdout).expect("sarif");
    let ext = &sarif["runs"][0]["tool"]["extensions"][0];
    assert!(ext["name"].as_str().is_some_and(|n| n.ends_with("kustomize")), "{ext}");
    assert!(ext["version"].as_str().is_some_and(|v| name.ends_with(v)), "{ext}");
}
