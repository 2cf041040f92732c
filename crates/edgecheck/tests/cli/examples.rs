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

/// The example's findings are exactly these `CODE@line`s: the incident's, and nothing else.
fn assert_exact(example: &str, want: &[&str]) {
    let v = lint(example);
    let mut got: Vec<String> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| format!("{}@{}", f["code"].as_str().unwrap_or(""), f["line"]))
        .collect();
    got.sort();
    let mut want: Vec<String> = want.iter().map(|w| (*w).to_string()).collect();
    want.sort();
    assert_eq!(got, want, "{example}: findings differ");
}

#[test]
fn clean_example_has_no_findings() {
    let v = lint("clean");
    assert_eq!(codes(&v), Vec::<String>::new());
    assert_eq!(v["summary"]["objects"], 7);
}

#[test]
fn seed_002_alb_layers() {
    assert_exact("alb-https-503", &["LSN030@37", "RTE032@33", "BKD009@47", "TLS015@82"]);
}

#[test]
fn seed_000_argocd_passthrough() {
    // TLS090@29: the Gateway's class is in the repository and nothing creates `wildcard-tls` (#14 item 3).
    assert_exact(
        "argocd-tls-passthrough",
        &["LSN002@29", "BKD006@70", "BKD007@100", "BKD008@103", "TLS016@119", "TLS090@37"],
    );
}

#[test]
fn cert_manager_traps() {
    assert_exact("cert-manager-mismatch", &["TLS007@44", "TLS014@33", "TLS015@31", "TLS017@34", "TLS018@22"]);
}

#[test]
fn gateway_attachment() {
    let v = lint("gateway-routes");
    assert_exact("gateway-routes", &["RTE001@40", "RTE001@50", "RTE001@60", "RTE002@72"]);
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
    assert_exact("homelab-gitops", &["GIT001@13", "GIT002@7", "GIT003@29"]);
}

#[test]
fn seed_004_zitadel_dump() {
    let v = lint("zitadel-dump");
    // The missing Service twice (BKD001 from the objects, BKD090 the predicted ResolvedRefs, BKD091 the
    // live one), the failed Job and why, the store the ExternalSecret names, the repository lookup, Degraded.
    assert_exact(
        "zitadel-dump",
        &["BKD001@50", "BKD010@76", "BKD090@50", "BKD091@57", "DNS020@125", "GIT022@111", "SEC002@72", "SEC003@88"],
    );
    assert!(!codes(&v).contains(&"LSN033".to_string()), "the Gateway has an address");
    let route = v["objects"].as_array().expect("objects").iter().find(|o| o["kind"] == "HTTPRoute").expect("route");
    assert_eq!(route["health"], "Degraded");
}

#[test]
fn coredns_stub() {
    assert_exact("coredns-stub", &["DNS002@7"]);
}

/// Issue 19, item 4: several repositories are several inventories. The README's first command lints every
/// example as it is, each with its own configuration.
#[test]
fn issue_19_lint_examples_reports_each_example_apart() {
    let all = edgecheck(&repo_root(), &["lint", "--format", "json", "--now", "2026-06-01T00:00:00Z", "examples/"]);
    assert_eq!(all.code, 1, "{}", all.stderr);
    let v = json(&all);
    let mut errors = 0;
    let mut warnings = 0;
    let mut per_example: Vec<String> = Vec::new();
    for e in [
        "alb-https-503",
        "argocd-tls-passthrough",
        "cert-manager-mismatch",
        "clean",
        "coredns-stub",
        "gateway-routes",
        "homelab-gitops",
        "zitadel-dump",
    ] {
        let one = lint(e);
        errors += one["summary"]["errors"].as_u64().expect("errors");
        warnings += one["summary"]["warnings"].as_u64().expect("warnings");
        per_example.extend(codes(&one));
    }
    assert_eq!(v["summary"]["errors"].as_u64(), Some(errors));
    assert_eq!(v["summary"]["warnings"].as_u64(), Some(warnings));
    let mut merged_codes = codes(&v);
    merged_codes.sort();
    per_example.sort();
    assert_eq!(merged_codes, per_example, "the same findings as linting each example alone");
    assert!(!codes(&v).contains(&"LOD004".to_string()), "no duplicates across examples");
    // Diagnoses point at the findings of their own example.
    for d in v["diagnoses"].as_array().expect("diagnoses") {
        if let Some(i) = d["root_cause"].as_u64() {
            let f = &v["findings"][i as usize];
            let host = d["host"].as_str().unwrap_or("");
            assert!(f["file"].as_str().is_some_and(|file| file.starts_with("examples/")), "{host}: {f}");
        }
    }
    let text = edgecheck(&repo_root(), &["lint", "--now", "2026-06-01T00:00:00Z", "examples/"]);
    assert!(text.stdout.contains("══ examples/zitadel-dump"), "{}", text.stdout);
    assert!(text.stdout.contains(&format!("8 roots: {errors} errors, {warnings} warnings")), "{}", text.stdout);
    // --merge: one inventory, as before.
    let merged =
        edgecheck(&repo_root(), &["lint", "--merge", "--format", "json", "--now", "2026-06-01T00:00:00Z", "examples/"]);
    let merged = json(&merged);
    assert_eq!(merged["summary"]["objects"], v["summary"]["objects"]);
    // One inventory: the examples' objects meet (zitadel's gateway serves the others' routes), so the
    // findings are not each example's own.
    assert_ne!(merged["summary"]["errors"].as_u64(), Some(errors), "--merge lints one inventory");
    let text = edgecheck(&repo_root(), &["lint", "--merge", "--now", "2026-06-01T00:00:00Z", "examples/"]);
    assert!(!text.stdout.contains(" roots: "), "{}", text.stdout);
}

/// Issue 19: the README's example output is what the binary prints. Each ```` ``` ```` block that starts
/// with `$ edgecheck ...` is run from the repository root; its lines must appear in the output in order,
/// each `…` line standing for lines left out.
#[test]
fn the_readme_examples_are_what_the_binary_prints() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let mut checked = 0;
    for block in readme.split("```").skip(1).step_by(2) {
        let block = block.strip_prefix('\n').unwrap_or(block);
        let Some(cmd) = block.lines().next().and_then(|l| l.strip_prefix("$ edgecheck ")) else { continue };
        let args: Vec<&str> = cmd.split_whitespace().collect();
        let out = edgecheck(&repo_root(), &args).stdout;
        let out: Vec<&str> = out.lines().collect();
        let mut at = 0;
        for part in block.lines().skip(1).collect::<Vec<_>>().split(|l| *l == "…") {
            if part.is_empty() {
                continue;
            }
            let found = (at..=out.len().saturating_sub(part.len())).find(|&i| out[i..i + part.len()] == *part);
            let Some(i) = found else {
                panic!("README block `{cmd}`: these lines are not what the binary prints (in order):\n{}\n\nit prints:\n{}", part.join("\n"), out.join("\n"));
            };
            at = i + part.len();
        }
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} README examples found");
}
