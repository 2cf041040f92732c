//! `--format dot|mermaid|html` draw the diagnoses of a real example end to end.

use crate::support::edgecheck;

fn lint(format: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let r = edgecheck(&root, &["lint", "--format", format, "--now", "2026-06-01T00:00:00Z", "examples/zitadel-dump"]);
    assert_eq!(r.code, 1, "errors found: {}", r.stderr);
    r.stdout
}

#[test]
fn diagram_formats_draw_the_zitadel_diagnosis() {
    let dot = lint("dot");
    assert!(dot.starts_with("digraph edgecheck {"), "{dot}");
    assert!(dot.contains("label=\"http://auth.example.com/ (broken)\""), "{dot}");
    let root = dot.lines().find(|l| l.contains("peripheries=2")).expect("root-cause node");
    assert!(root.contains("Job zitadel/zitadel-setup") && root.contains("root cause"), "{root}");

    let mermaid = lint("mermaid");
    assert!(mermaid.starts_with("flowchart TD\n"), "{mermaid}");
    // Not probed: the name is drawn as unknown, not as fine (#19 item 13).
    assert!(mermaid.contains("d0n0[\"auth.example.com<br/>dns · unknown\"]:::unknown"), "{mermaid}");
    assert!(mermaid.contains("rootcause\n"), "{mermaid}");

    let html = lint("html");
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<svg "));
    assert!(html.contains("Job zitadel/zitadel-setup</text>"));
    assert!(html.contains("ROOT CAUSE</text>"));
    assert!(!html.contains(" src=\"http") && !html.contains(" href=\"http"));
}

/// SARIF, GitHub annotations and GitLab Code Quality name files relative to the top of the git checkout
/// (what code scanning, the runner and GitLab resolve them against), wherever edgecheck ran: here from a
/// subdirectory, and with an absolute path.
#[test]
fn ci_formats_name_files_from_the_checkout_top() {
    let d = crate::support::Dir::new();
    d.write(".git/HEAD", "ref: refs/heads/main\n");
    d.write(
        "kubernetes/apps/web.yaml",
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: shop}\nspec:\n  rules:\n    - host: Web.Example.com\n      http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}\n",
    );
    let sub = d.path().join("kubernetes");
    let abs = sub.join("apps").to_string_lossy().into_owned();
    for (cwd, target) in [(sub.as_path(), "apps"), (d.path(), abs.as_str())] {
        let sarif = crate::support::edgecheck(cwd, &["lint", target, "--format", "sarif"]).stdout;
        assert!(
            sarif.contains("\"uri\": \"kubernetes/apps/web.yaml\"")
                || sarif.contains("\"uri\":\"kubernetes/apps/web.yaml\""),
            "{sarif}"
        );
        let github = crate::support::edgecheck(cwd, &["lint", target, "--format", "github"]).stdout;
        assert!(github.contains("file=kubernetes/apps/web.yaml,"), "{github}");
        let gitlab = crate::support::edgecheck(cwd, &["lint", target, "--format", "gitlab"]).stdout;
        assert!(
            gitlab.contains("\"path\": \"kubernetes/apps/web.yaml\"")
                || gitlab.contains("\"path\":\"kubernetes/apps/web.yaml\""),
            "{gitlab}"
        );
    }
}

#[test]
fn input_snippets_hide_values_only_where_the_value_is_the_problem() {
    // A duplicate points at keys: its snippet shows the line as written (it showed `apiVersion: ***`). A
    // wrongly typed field may be a credential typed wrongly: its value stays hidden.
    let d = crate::support::Dir::new();
    let svc = "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec:\n  ports: [{port: 80}]\n";
    d.write("a.yaml", svc);
    d.write("b.yaml", svc.replace("port: 80", "port: 81"));
    d.write(
        "c.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: shop}\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: api\n        env:\n        - {name: TOKEN, value: 8675309123456}\n",
    );
    let r = edgecheck(d.path(), &["lint", ".", "--no-config", "--format", "text"]);
    assert!(r.stdout.contains("LOD004"), "{}", r.stdout);
    assert!(r.stdout.contains(" | apiVersion: v1"), "{}", r.stdout);
    assert!(!r.stdout.contains("apiVersion: ***"), "{}", r.stdout);
    assert!(r.stdout.contains("LOD006"), "{}", r.stdout);
    assert!(!r.stdout.contains("8675309123456"), "{}", r.stdout);
}
