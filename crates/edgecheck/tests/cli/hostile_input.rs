//! Hostile input must not take the run down (issue 16, items 4, 5, 10, 11, 12): alias bombs, FIFOs and
//! devices where files should be, oversized input, absurd durations and targets, inputs with nothing
//! to read. Every file is made at test time; runs that could hang or blow up go through
//! `edgecheck_guarded` (30 s, 1 GiB of address space), and each case asserts the exit code and the message.

use std::os::unix::fs::symlink;
use std::path::Path;

use crate::support::{edgecheck, edgecheck_guarded, files_with, json, mkfifo, Dir};

const SERVICE: &str = "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n";

/// A 2 KB billion laughs: nine levels of ten aliases each (10^9 strings expanded).
fn billion_laughs() -> String {
    let mut t = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol, namespace: shop}\ndata:\n");
    t.push_str(&format!("  a0: &a0 [{}]\n", ["lol"; 10].join(", ")));
    for i in 1..10 {
        t.push_str(&format!("  a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 10].join(", ")));
    }
    assert!(t.len() < 2048);
    t
}

/// 40 levels of doubling (2^40 nodes).
fn doubling() -> String {
    let mut t =
        String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dbl, namespace: shop}\ndata:\n  d0: &d0 [x]\n");
    for i in 1..40 {
        t.push_str(&format!("  d{i}: &d{i} [*d{p}, *d{p}]\n", p = i - 1));
    }
    t
}

/// Merge keys over an alias chain: each level merges the one before and lists it four times.
fn merge_chain() -> String {
    let mut t = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: merge, namespace: shop}\ndata:\n");
    t.push_str("  m0: &m0 {k0: [x, x, x, x, x, x, x, x]}\n");
    for i in 1..30 {
        t.push_str(&format!("  m{i}: &m{i}\n    <<: *m{p}\n    k{i}: [*m{p}, *m{p}, *m{p}, *m{p}]\n", p = i - 1));
    }
    t
}

fn lod(v: &serde_json::Value, code: &str) -> Vec<(String, u64, String)> {
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == code)
        .map(|f| {
            (
                f["file"].as_str().unwrap_or_default().to_string(),
                f["line"].as_u64().unwrap_or(0),
                f["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn alias_bombs_are_refused_per_document_and_the_rest_is_checked() {
    let d = Dir::new();
    d.write("laughs.yaml", format!("{SERVICE}---\n{}", billion_laughs()));
    d.write("doubling.yaml", doubling());
    d.write("merge.yaml", merge_chain());
    d.write("web.yaml", SERVICE.replace("name: web", "name: api"));
    let r = edgecheck_guarded(d.path(), &["lint", "-o", "json", "."], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v = json(&r);
    let mut found = lod(&v, "LOD001");
    found.sort();
    let files: Vec<&str> = found.iter().map(|(f, _, _)| f.as_str()).collect();
    assert_eq!(files, ["doubling.yaml", "laughs.yaml", "merge.yaml"], "{found:?}");
    for (file, line, message) in &found {
        assert!(message.starts_with("alias expansion exceeds the bound"), "{file}: {message}");
        assert!(*line > 4, "{file}: line {line}");
    }
    // `laughs.yaml`: the Service before the bomb and the other file's Service are still checked.
    assert_eq!(v["summary"]["objects"], 2, "{}", v["summary"]);
    // The bomb's document starts at line 8; its aliases pass the bound at `a3` (line 15).
    assert_eq!(found[1].1, 15);
}

#[test]
fn an_alias_bomb_on_stdin_is_refused() {
    let d = Dir::new();
    let bomb = d.write("bomb.yaml", billion_laughs());
    let r = edgecheck_guarded(d.path(), &["lint", "-o", "json", "-"], Some(&bomb));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let found = lod(&json(&r), "LOD001");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0.as_str(), found[0].1), ("-", 8));
    assert!(found[0].2.contains("alias expansion exceeds the bound"), "{}", found[0].2);
}

#[test]
fn fifos_and_devices_are_skipped_with_a_finding_naming_them() {
    let d = Dir::new();
    d.write("web.yaml", SERVICE);
    mkfifo(&d.path().join("pipe.yaml"));
    symlink(d.path().join("pipe.yaml"), d.path().join("to-pipe.yaml")).expect("symlink");
    symlink("/dev/zero", d.path().join("zero.yaml")).expect("symlink");
    symlink("/dev/urandom", d.path().join("random.yml")).expect("symlink");
    std::fs::create_dir(d.path().join(".git")).expect("mkdir");
    mkfifo(&d.path().join(".git/config"));
    let r = edgecheck_guarded(d.path(), &["lint", "-o", "json", "."], None);
    // LOD002 is a warning: the Service was checked and is clean.
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(v["summary"]["objects"], 1);
    let found = lod(&v, "LOD002");
    let message = |suffix: &str| {
        let named = |f: &String| f == suffix || f.ends_with(&format!("/{suffix}"));
        found.iter().find(|(f, _, _)| named(f)).map(|(_, _, m)| m.clone()).unwrap_or_default()
    };
    assert_eq!(message("pipe.yaml"), "cannot read: not a regular file (a FIFO)", "{found:?}");
    assert_eq!(message("to-pipe.yaml"), "cannot read: not a regular file (a FIFO)", "{found:?}");
    // Links out of the checkout are not followed at all (devices named on the command line are refused as
    // not regular files: `nothing_read_is_exit_2_with_the_reasons`).
    let out = "not read: a symbolic link that leads out of the linted checkout";
    assert_eq!(message("zero.yaml"), out, "{found:?}");
    assert_eq!(message("random.yml"), out, "{found:?}");
    assert!(message(".git/config").starts_with("cannot read: not a regular file (a FIFO)"), "{found:?}");
    assert_eq!(found.len(), 5, "{found:?}");
}

#[test]
fn a_git_config_linked_to_dev_zero_is_not_read() {
    let d = Dir::new();
    d.write("web.yaml", SERVICE);
    std::fs::create_dir(d.path().join(".git")).expect("mkdir");
    symlink("/dev/zero", d.path().join(".git/config")).expect("symlink");
    let r = edgecheck_guarded(d.path(), &["lint", "-o", "json", "web.yaml"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let found = lod(&json(&r), "LOD002");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].0.ends_with(".git/config"), "{found:?}");
    assert!(found[0].2.contains("not a regular file (a character device)"), "{found:?}");
}

#[test]
fn files_over_the_size_limit_are_skipped_and_stdin_is_capped() {
    let d = Dir::new();
    d.write("web.yaml", SERVICE);
    d.write("big.yaml", format!("{SERVICE}# {}\n", "x".repeat(4096)));
    let r = edgecheck_guarded(d.path(), &["lint", "-o", "json", "--max-file-size", "2KiB", "."], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(files_with(&v, "LOD002"), ["big.yaml"]);
    assert_eq!(lod(&v, "LOD002")[0].2, "cannot read: 4.1 KiB is over the size limit of 2 KiB (--max-file-size)");
    assert_eq!(v["summary"]["objects"], 1);
    // The same limit from the config file.
    d.write(".edgecheck.toml", "max-file-size = \"2KiB\"\n");
    let v = json(&edgecheck_guarded(d.path(), &["lint", "-o", "json", "."], None));
    assert_eq!(files_with(&v, "LOD002"), ["big.yaml"]);
    let r = edgecheck(d.path(), &["lint", "--max-file-size", "lots", "."]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("invalid value 'lots' for '--max-file-size"), "{}", r.stderr);
    // Stdin from /dev/zero: read up to the limit, then refused; nothing else was read.
    let r = edgecheck_guarded(d.path(), &["lint", "--max-file-size", "1MiB", "-"], Some(Path::new("/dev/zero")));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("-: cannot read: over the size limit of 1 MiB (--max-file-size)"), "{}", r.stderr);
}

#[test]
fn kubeconfig_files_that_are_devices_or_fifos_are_refused() {
    let d = Dir::new();
    symlink("/dev/zero", d.path().join("zero")).expect("symlink");
    let r = edgecheck_guarded(d.path(), &["scan", "--kubeconfig", "zero"], None);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("kubeconfig zero: not a regular file (a character device)"), "{}", r.stderr);
    mkfifo(&d.path().join("ca.pem"));
    let kubeconfig = |cluster: &str, user: &str| {
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{{name: c, context: {{cluster: k, user: u}}}}]\n\
             clusters: [{{name: k, cluster: {{server: 'https://127.0.0.1:1', {cluster}}}}}]\n\
             users: [{{name: u, user: {{{user}}}}}]\n"
        )
    };
    d.write("ca.kubeconfig", kubeconfig("certificate-authority: ca.pem", "token: t"));
    let r = edgecheck_guarded(d.path(), &["scan", "--kubeconfig", "ca.kubeconfig"], None);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("certificate-authority ") && r.stderr.contains("ca.pem: not a regular file (a FIFO)"),
        "{}",
        r.stderr
    );
    d.write("token.kubeconfig", kubeconfig("insecure-skip-tls-verify: true", "tokenFile: /dev/zero"));
    let r = edgecheck_guarded(d.path(), &["scan", "--kubeconfig", "token.kubeconfig"], None);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("tokenFile /dev/zero: not a regular file (a character device)"), "{}", r.stderr);
}

#[test]
fn nothing_read_is_exit_2_with_the_reasons() {
    let d = Dir::new();
    mkfifo(&d.path().join("pipe.yaml"));
    std::fs::create_dir(d.path().join("empty")).expect("mkdir");
    d.write("docs/README.md", "# not a manifest\n");
    d.write("bin.yaml", b"\x00\x01\x02binary");
    let cases: [(&[&str], &str); 5] = [
        (&["lint", "/dev/null"], "/dev/null: cannot read: not a regular file (a character device)"),
        (&["lint", "pipe.yaml"], "pipe.yaml: cannot read: not a regular file (a FIFO)"),
        (&["lint", "empty", "docs"], "docs: no manifest (.yaml, .yml, .json) found"),
        (&["lint", "bin.yaml"], "bin.yaml: binary file (contains NUL bytes), not a manifest"),
        (&["lint", "no/such/dir"], "no/such/dir: no such file or directory"),
    ];
    for (args, reason) in cases {
        let r = edgecheck_guarded(d.path(), args, None);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(reason), "{args:?}: {}", r.stderr);
    }
    let r = edgecheck_guarded(d.path(), &["lint", "empty"], None);
    assert!(r.stderr.contains("nothing to check: no file could be read"), "{}", r.stderr);
    // A file that was read but does not parse counts as read: LOD001, exit 1.
    d.write("broken.yaml", "apiVersion: v1\nkind: ConfigMap\ndata: [unclosed\n");
    let r = edgecheck_guarded(d.path(), &["lint", "-o", "json", "broken.yaml", "pipe.yaml"], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(files_with(&json(&r), "LOD001"), ["broken.yaml"]);
    // One that names no apiVersion and no kind may be another program's file (a translations file, a patch
    // list): still reported, as a warning.
    d.write("he.json", "{\"title\": \"unterminated");
    d.write("patch.yaml", "- op: replace\n  path: /spec/x\ntarget:\n  kind2: x\n");
    let r = edgecheck_guarded(d.path(), &["lint", "-o", "json", "broken.yaml", "he.json", "patch.yaml"], None);
    let v = json(&r);
    let severities: Vec<(String, String)> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "LOD001")
        .map(|f| (f["file"].as_str().unwrap_or("").to_string(), f["severity"].as_str().unwrap_or("").to_string()))
        .collect();
    let expected = [("broken.yaml", "error"), ("he.json", "warning"), ("patch.yaml", "warning")];
    assert_eq!(severities, expected.map(|(f, s)| (f.to_string(), s.to_string())), "{v}");
    // `trace --from` reads the same way.
    let r = edgecheck_guarded(d.path(), &["trace", "https://a.example/", "--no-probe", "--from", "empty"], None);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("empty: no manifest"), "{}", r.stderr);
}

#[test]
fn absurd_durations_are_usage_errors() {
    let d = Dir::new();
    for t in ["1e20s", "inf", "1e400s", "18446744073709551615s", "1e19s", "NaN", "-1s", "0s", "2h", "soon"] {
        let flag = format!("--timeout={t}");
        let r = edgecheck_guarded(d.path(), &["probe", &flag, "https://127.0.0.1:1/"], None);
        assert_eq!(r.code, 2, "{t}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(&format!("invalid value '{t}' for '--timeout <TIMEOUT>'")), "{t}: {}", r.stderr);
        let r = edgecheck_guarded(d.path(), &["trace", &flag, "https://127.0.0.1:1/", "--from", "."], None);
        assert_eq!(r.code, 2, "{t}: {}", r.stderr);
        assert!(r.stderr.contains("invalid value"), "{t}: {}", r.stderr);
    }
    let r = edgecheck_guarded(d.path(), &["scan", "--request-timeout", "25h"], None);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("`25h` is too long (at most 24h)"), "{}", r.stderr);
    // kubectl's spellings are accepted: the run goes on to the (missing) kubeconfig.
    for t in ["30s", "30", "1m30s"] {
        let r = edgecheck_guarded(d.path(), &["scan", "--request-timeout", t, "--kubeconfig", "none"], None);
        assert_eq!(r.code, 2, "{t}");
        assert!(!r.stderr.contains("invalid value") && r.stderr.contains("kubeconfig none"), "{t}: {}", r.stderr);
    }
}

#[test]
fn probe_rejects_the_targets_trace_rejects() {
    let d = Dir::new();
    for (url, why) in [
        ("ftp://127.0.0.1/", "the scheme `ftp` is not one edgecheck speaks"),
        ("https://127.0.0.1:99999/", "a port that is not 1-65535"),
    ] {
        let r = edgecheck_guarded(d.path(), &["probe", url], None);
        assert_eq!(r.code, 2, "{url}: {}", r.stdout);
        assert!(r.stderr.contains(&format!("`{url}` is not a URL edgecheck can probe")), "{}", r.stderr);
        assert!(r.stderr.contains(why), "{}", r.stderr);
        assert!(!r.stdout.contains("endpoint"), "{}", r.stdout);
        let r = edgecheck_guarded(d.path(), &["trace", url, "--no-probe", "--from", "."], None);
        assert_eq!(r.code, 2);
        assert!(r.stderr.contains(&format!("`{url}` is not a URL edgecheck can trace (")), "{}", r.stderr);
        assert!(r.stderr.contains(why), "{}", r.stderr);
    }
}

/// One Ingress with `n` rules, each host with its own `spec.tls` entry.
fn one_big_ingress(n: usize) -> String {
    let mut t = String::from(SERVICE);
    t.push_str("---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: big, namespace: shop}\nspec:\n  ingressClassName: nginx\n  tls:\n");
    for i in 0..n {
        t.push_str(&format!("  - hosts: [h{i}.example.com]\n    secretName: s{i}\n"));
    }
    t.push_str("  rules:\n");
    for i in 0..n {
        t.push_str(&format!(
            "  - host: h{i}.example.com\n    http:\n      paths:\n      - {{path: /, pathType: Prefix, backend: {{service: {{name: web, port: {{number: 80}}}}}}}}\n"
        ));
    }
    t
}

#[test]
fn one_ingress_with_ten_thousand_hosts_is_diagnosed_in_bounds() {
    // Issue 16 item 6: every host's claim read every rule and every `spec.tls` entry of the Ingress, so one
    // big object was quadratic (10k hosts: ~10 s in a release build, far past the guard in a debug one).
    let n = 10_000;
    let d = Dir::new();
    d.write("big.yaml", one_big_ingress(n));
    let r = edgecheck_guarded(d.path(), &["lint", "big.yaml", "--format", "json"], None);
    assert!(r.code == 0 || r.code == 1, "exit {}: {}", r.code, r.stderr);
    let v = json(&r);
    let diagnoses = v["diagnoses"].as_array().expect("diagnoses");
    assert_eq!(diagnoses.len(), n, "one diagnosis per host");
    // Each host is https through its own tls entry, the last one included.
    let last = diagnoses.iter().find(|x| x["host"] == "h9999.example.com").expect("the last host");
    assert_eq!(last["target"], "https://h9999.example.com/");
    assert!(diagnoses.iter().all(|x| x["port"] == 443), "every host has a tls entry");
}

/// A ConfigMap of `n` keys, in reverse order when `reversed`, the last key's value given.
fn big_config_map(n: usize, reversed: bool, last: &str) -> String {
    let mut keys: Vec<String> = (0..n).map(|i| format!("  k{i}: v{i}\n")).collect();
    keys[n - 1] = format!("  k{}: {last}\n", n - 1);
    if reversed {
        keys.reverse();
    }
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: big, namespace: x}}\ndata:\n{}", keys.concat())
}

#[test]
fn two_copies_of_a_huge_mapping_are_compared_in_bounds() {
    // Objects' maps are looked up by scanning (#17); comparing two copies of one object (LOD004) scanned one map
    // per key of the other: two 200k-key ConfigMaps took 34 s in a release build. Large maps compare through an
    // index, in any order.
    let n = 50_000;
    let d = Dir::new();
    d.write("a.yaml", big_config_map(n, false, "same"));
    d.write("b.yaml", big_config_map(n, true, "same"));
    let r = edgecheck_guarded(d.path(), &["lint", ".", "--format", "json"], None);
    let v = json(&r);
    let dups = |v: &serde_json::Value| {
        v["findings"].as_array().expect("findings").iter().filter(|f| f["code"] == "LOD004").count()
    };
    assert_eq!(dups(&v), 0, "the same keys and values in another order are one object: {}", r.stdout);
    // Near miss: one value differs, at the end of one copy and the start of the other.
    d.write("b.yaml", big_config_map(n, true, "other"));
    let r = edgecheck_guarded(d.path(), &["lint", ".", "--format", "json"], None);
    assert_eq!(dups(&json(&r)), 1, "two different definitions of one object: {}", r.stderr);
}
