//! `edgecheck checks` and `explain`, and the command line's shape (`--help`, formats, colours).

use crate::support::{edgecheck, Dir};

#[test]
fn checks_accepts_only_the_formats_it_renders() {
    let d = Dir::new();
    for format in ["dot", "mermaid", "html", "sarif"] {
        let r = edgecheck(d.path(), &["checks", "--format", format]);
        assert_eq!(r.code, 2, "{format}: {}", r.stdout);
        assert!(r.stderr.contains("[possible values: text, json, markdown]"), "{format}: {}", r.stderr);
    }
    let text = edgecheck(d.path(), &["checks"]);
    assert_eq!(text.code, 0);
    assert!(text.stdout.contains("checks. `edgecheck explain CODE` prints one."), "{}", text.stdout);
    let json = edgecheck(d.path(), &["checks", "--format", "json"]);
    assert!(serde_json::from_str::<serde_json::Value>(&json.stdout).is_ok_and(|v| v.is_array()));
    // kubectl's spellings: `-o` and `--output` are `--format`.
    assert_eq!(edgecheck(d.path(), &["checks", "-o", "json"]).stdout, json.stdout);
    assert_eq!(edgecheck(d.path(), &["checks", "--output", "json"]).stdout, json.stdout);
    let md = edgecheck(d.path(), &["checks", "--output=markdown"]);
    assert!(md.stdout.starts_with("| code | name | layer |"), "{}", md.stdout);
}

#[test]
fn probe_accepts_only_the_formats_it_renders() {
    let d = Dir::new();
    for format in ["dot", "mermaid", "html"] {
        let r = edgecheck(d.path(), &["probe", "--format", format, "https://127.0.0.1:1/"]);
        assert_eq!(r.code, 2, "{format}: {}", r.stdout);
        assert!(
            r.stderr.contains("[possible values: text, concise, json, sarif, markdown, github, gitlab]"),
            "{format}: {}",
            r.stderr
        );
    }
}

#[test]
fn help_lists_the_commands_in_the_order_people_use_them() {
    let r = edgecheck(Dir::new().path(), &["--help"]);
    let order: Vec<&str> = r
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        order,
        ["lint", "scan", "trace", "probe", "serve", "rbac", "checks", "explain", "completions", "man", "help"],
        "{}",
        r.stdout
    );
}

#[test]
fn color_is_global_and_no_color_is_honoured() {
    let d = Dir::new();
    d.write("svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop, labels: {v: \"2\"}}\n");
    // Before or after the command, and on every command that prints a report.
    for args in [
        &["--color", "always", "lint", "svc.yaml"][..],
        &["lint", "svc.yaml", "--color", "always"],
        &["trace", "https://x.example/", "--from", "svc.yaml", "--no-probe", "--color=always"],
    ] {
        let r = edgecheck(d.path(), args);
        assert!(r.stdout.contains('\x1b'), "{args:?}: {}{}", r.stdout, r.stderr);
    }
    for args in [&["--color", "never", "lint", "svc.yaml"][..], &["lint", "svc.yaml"]] {
        let r = edgecheck(d.path(), args);
        assert!(!r.stdout.contains('\x1b') && r.stdout.contains("LOD004"), "{args:?}: {}", r.stdout);
    }
    // `--color` names exactly three choices.
    let r = edgecheck(d.path(), &["lint", "svc.yaml", "--color", "sometimes"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("[possible values: auto, always, never]"), "{}", r.stderr);
}
