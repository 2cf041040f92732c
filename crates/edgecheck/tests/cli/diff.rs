//! `lint --diff-base REF` (what a change breaks, #20) and baselines (`--baseline`, `--write-baseline`): a
//! git repository in a temp dir, two commits, the real binary.

use std::path::Path;

use crate::support::{edgecheck, json, Dir};

/// An Ingress, its Service and its Certificate for `host`: healthy, unless `port` is not the Service's
/// port (BKD002) or `dns` is not the host (TLS015).
fn site(name: &str, host: &str, port: u16, dns: &str) -> String {
    format!(
        "apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: {name}, namespace: shop}}
spec:
  ingressClassName: nginx
  tls:
    - hosts: [{host}]
      secretName: {name}-tls
  rules:
    - host: {host}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: {{service: {{name: {name}, port: {{number: {port}}}}}}}
---
apiVersion: v1
kind: Service
metadata: {{name: {name}, namespace: shop}}
spec:
  selector: {{app: {name}}}
  ports:
    - {{name: http, port: 80, targetPort: 8080}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {{name: {name}, namespace: shop}}
spec:
  secretName: {name}-tls
  dnsNames: [{dns}]
  issuerRef: {{name: letsencrypt, kind: ClusterIssuer}}
"
    )
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A repository with its first commit.
fn repo(files: &[(&str, String)]) -> Dir {
    let d = Dir::new();
    git(d.path(), &["init", "-q", "-b", "main"]);
    git(d.path(), &["config", "user.name", "edgecheck tests"]);
    git(d.path(), &["config", "user.email", "tests@example.com"]);
    commit(&d, files, "one");
    d
}

fn commit(d: &Dir, files: &[(&str, String)], message: &str) {
    for (name, content) in files {
        d.write(name, content);
    }
    git(d.path(), &["add", "-A"]);
    git(d.path(), &["commit", "-q", "-m", message]);
}

fn worktrees(d: &Dir) -> usize {
    git(d.path(), &["worktree", "list"]).lines().count()
}

fn codes_of(v: &serde_json::Value) -> Vec<&str> {
    v.as_array().expect("array").iter().filter_map(|f| f["code"].as_str()).collect()
}

/// Commit 1: a healthy, b broken (BKD002); commit 2 fixes b and breaks a (TLS015).
fn two_commits() -> Dir {
    let d = repo(&[
        ("a.yaml", site("a", "a.example.com", 80, "a.example.com")),
        ("b.yaml", site("b", "b.example.com", 8080, "b.example.com")),
    ]);
    commit(
        &d,
        &[
            ("a.yaml", site("a", "a.example.com", 80, "www.example.com")),
            ("b.yaml", site("b", "b.example.com", 80, "b.example.com")),
        ],
        "two",
    );
    d
}

#[test]
fn a_change_that_breaks_one_host_and_fixes_another_names_both() {
    let d = two_commits();
    let r = edgecheck(d.path(), &["lint", "--diff-base", "HEAD~1", "."]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let (introduced, fixed) = r.stdout.split_once("══ fixed").expect("a fixed section");
    assert!(introduced.contains("══ introduced (1)") && introduced.contains("error[TLS015]"), "{}", r.stdout);
    assert!(introduced.contains("--> a.yaml:"), "{}", r.stdout);
    assert!(fixed.contains("error[BKD002]") && fixed.contains("--> b.yaml:15"), "{}", r.stdout);
    assert!(r.stdout.contains("✗ https://a.example.com/: ok → broken at tls (TLS015)"), "{}", r.stdout);
    assert!(r.stdout.contains("✓ https://b.example.com/: broken at backend (BKD002) → ok"), "{}", r.stdout);
    assert!(r.stdout.contains("1 introduced (1 error, 0 warnings, 0 infos), 1 fixed, 2 hosts changed"), "{}", r.stdout);

    let r = edgecheck(d.path(), &["lint", "--diff-base", "HEAD~1", "--format", "json", "."]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v = json(&r);
    let base = git(d.path(), &["rev-parse", "HEAD~1"]);
    assert_eq!(v["diff"]["base"], base.trim());
    assert_eq!(v["diff"]["base_ref"], "HEAD~1");
    assert_eq!(codes_of(&v["diff"]["introduced"]), ["TLS015"]);
    assert_eq!(codes_of(&v["diff"]["fixed"]), ["BKD002"]);
    assert_eq!(v["diff"]["fixed"][0]["file"], "b.yaml", "the base's files are named as the working tree's");
    assert_eq!(
        v["diff"]["hosts"],
        serde_json::json!([
            {"target": "https://a.example.com/", "before": "ok", "after": "broken", "layer": "tls", "code": "TLS015"},
            {"target": "https://b.example.com/", "before": "broken", "after": "ok", "layer": "backend", "code": "BKD002"},
        ])
    );
    assert_eq!((v["summary"]["introduced"].as_u64(), v["summary"]["fixed"].as_u64()), (Some(1), Some(1)));

    // The CI formats annotate only what the change introduces, with the identity SARIF carries.
    let r = edgecheck(d.path(), &["lint", "--diff-base", "HEAD~1", "--format", "sarif", "."]);
    let sarif: serde_json::Value = serde_json::from_str(&r.stdout).expect("sarif");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.iter().map(|x| x["ruleId"].as_str().unwrap_or_default()).collect::<Vec<_>>(), ["TLS015"]);
    let r = edgecheck(d.path(), &["lint", "--diff-base", "HEAD~1", "--format", "github", "."]);
    assert_eq!(r.stdout.lines().filter(|l| l.starts_with("::")).count(), 1, "{}", r.stdout);
    assert!(r.stdout.starts_with("::error file=a.yaml,"), "{}", r.stdout);

    // Nothing is left of the base's worktree.
    assert_eq!(worktrees(&d), 1, "{}", git(d.path(), &["worktree", "list"]));
    assert!(git(d.path(), &["status", "--porcelain"]).is_empty());
}

#[test]
fn a_change_that_only_fixes_passes_and_a_subdirectory_is_compared_as_itself() {
    let d = repo(&[
        ("apps/a.yaml", site("a", "a.example.com", 80, "a.example.com")),
        ("apps/b.yaml", site("b", "b.example.com", 8080, "b.example.com")),
    ]);
    commit(&d, &[("apps/b.yaml", site("b", "b.example.com", 80, "b.example.com"))], "fix b");
    let r = edgecheck(d.path(), &["lint", "--diff-base", "HEAD~1", "--format", "json", "apps"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let v = json(&r);
    assert_eq!(codes_of(&v["diff"]["introduced"]), Vec::<&str>::new());
    assert_eq!(codes_of(&v["diff"]["fixed"]), ["BKD002"]);
    assert_eq!(v["diff"]["fixed"][0]["file"], "apps/b.yaml");
    assert_eq!(v["diff"]["hosts"][0]["after"], "ok");
    // From inside the directory, and by an absolute path: the same answer.
    let r = edgecheck(&d.path().join("apps"), &["lint", "--diff-base", "HEAD~1", "--format", "json", "."]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(json(&r)["diff"]["fixed"][0]["file"], "b.yaml");
    let abs = d.path().join("apps").display().to_string();
    let r = edgecheck(d.path(), &["lint", "--diff-base", "HEAD~1", "--format", "json", &abs]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(json(&r)["diff"]["fixed"][0]["file"], format!("{abs}/b.yaml"));
    assert_eq!(worktrees(&d), 1);
}

#[test]
fn lines_moved_by_an_edit_above_are_no_new_finding() {
    let d = repo(&[("b.yaml", site("b", "b.example.com", 8080, "b.example.com"))]);
    let moved = format!(
        "# the shop's front door\n# owned by the web team\n{}",
        site("b", "b.example.com", 8080, "b.example.com")
    );
    commit(&d, &[("b.yaml", moved)], "comment");
    let r = edgecheck(d.path(), &["lint", "--diff-base", "HEAD~1", "--format", "json", "."]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let v = json(&r);
    assert_eq!(v["diff"]["introduced"], serde_json::json!([]));
    assert_eq!(v["diff"]["fixed"], serde_json::json!([]));
    assert_eq!(v["diff"]["hosts"], serde_json::json!([]));
    // The finding is still there, 2 lines lower: a plain lint reports it.
    assert_eq!(edgecheck(d.path(), &["lint", "."]).code, 1);
}

#[test]
fn a_base_that_is_no_commit_is_exit_2_naming_it_and_the_fetch_depth() {
    let d = two_commits();
    let r = edgecheck(d.path(), &["lint", "--diff-base", "origin/nope", "."]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("`origin/nope`"), "{}", r.stderr);
    assert!(r.stderr.contains("fetch-depth: 0") && r.stderr.contains("git fetch origin nope"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    // Without a value the base is GITHUB_BASE_REF's (origin/<ref>, else <ref>); unset, it is bad usage.
    let mut cmd = assert_cmd::Command::cargo_bin("edgecheck").expect("binary");
    let out = cmd
        .current_dir(d.path())
        .args(["lint", ".", "--diff-base", "--format", "json"])
        .env("GITHUB_BASE_REF", "main")
        .env("XDG_CACHE_HOME", crate::support::test_cache())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["diff"]["base_ref"], "main");
    let out = assert_cmd::Command::cargo_bin("edgecheck")
        .expect("binary")
        .current_dir(d.path())
        .args(["lint", ".", "--diff-base"])
        .env_remove("GITHUB_BASE_REF")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("GITHUB_BASE_REF"));
    // Not a repository.
    let plain = Dir::new();
    plain.write("a.yaml", site("a", "a.example.com", 80, "a.example.com"));
    let r = edgecheck(plain.path(), &["lint", "--diff-base", "HEAD", "."]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not in a git repository"), "{}", r.stderr);
    assert_eq!(worktrees(&d), 1);
}

#[test]
fn a_baseline_accepts_the_findings_it_holds_and_only_those() {
    let d = Dir::new();
    d.write("b.yaml", site("b", "b.example.com", 8080, "b.example.com"));
    let r = edgecheck(d.path(), &["lint", "--write-baseline", "baseline.json", "."]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("baseline.json")).expect("written")).expect("json");
    assert_eq!(written["version"], 1);
    let entries = written["fingerprints"].as_array().expect("fingerprints");
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["code"], "BKD002");
    assert_eq!(entries[0]["object"], "Ingress/shop/b");
    assert_eq!(entries[0]["file"], "b.yaml");
    // The same identity as SARIF's.
    let sarif: serde_json::Value =
        serde_json::from_str(&edgecheck(d.path(), &["lint", "--format", "sarif", "."]).stdout).expect("sarif");
    assert_eq!(
        sarif["runs"][0]["results"][0]["partialFingerprints"]["edgecheckIdentity/v1"],
        entries[0]["fingerprint"]
    );
    // Written again, byte for byte the same.
    edgecheck(d.path(), &["lint", "--write-baseline", "again.json", "."]);
    assert_eq!(std::fs::read(d.path().join("again.json")).ok(), std::fs::read(d.path().join("baseline.json")).ok());

    let r = edgecheck(d.path(), &["lint", "--baseline", "baseline.json", "--format", "json", "."]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let v = json(&r);
    assert_eq!(v["findings"], serde_json::json!([]));
    assert_eq!(v["summary"]["suppressed"], 1);
    assert_eq!(v["summary"]["errors"], 0);

    // A new finding is reported, alone.
    d.write("a.yaml", site("a", "a.example.com", 80, "www.example.com"));
    let r = edgecheck(d.path(), &["lint", "--baseline", "baseline.json", "--format", "json", "."]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let v = json(&r);
    assert_eq!(crate::support::codes(&v), ["TLS015"]);
    assert_eq!(v["summary"]["suppressed"], 1);
    // Its diagnoses still point at findings that exist.
    for d in v["diagnoses"].as_array().expect("diagnoses") {
        if let Some(i) = d["root_cause"].as_u64() {
            assert!((i as usize) < v["findings"].as_array().map_or(0, Vec::len));
        }
    }
    let r = edgecheck(d.path(), &["lint", "--baseline", "baseline.json", "."]);
    assert!(r.stdout.contains("1 suppressed"), "{}", r.stdout);

    // A baseline that does not parse is bad usage, naming the file.
    d.write("corrupt.json", "{\"version\": 1, \"fingerprints\": [");
    let r = edgecheck(d.path(), &["lint", "--baseline", "corrupt.json", "."]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("corrupt.json"), "{}", r.stderr);
    d.write("other.json", "{\"version\": 1, \"findings\": []}");
    let r = edgecheck(d.path(), &["lint", "--baseline", "other.json", "."]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("other.json") && r.stderr.contains("fingerprints"), "{}", r.stderr);
}

#[test]
fn a_baseline_applies_to_what_a_change_introduces() {
    let d = two_commits();
    // The TLS015 the change introduces is accepted: nothing left that fails.
    let r = edgecheck(d.path(), &["lint", "--write-baseline", "../baseline.json", "."]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let baseline = d.path().parent().expect("parent").join("baseline.json");
    let r = edgecheck(
        d.path(),
        &["lint", "--diff-base", "HEAD~1", "--baseline", &baseline.display().to_string(), "--format", "json", "."],
    );
    let _ = std::fs::remove_file(&baseline);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let v = json(&r);
    assert_eq!(v["diff"]["introduced"], serde_json::json!([]));
    assert_eq!(codes_of(&v["diff"]["fixed"]), ["BKD002"]);
    assert_eq!(v["summary"]["suppressed"], 1);
}

/// The GitHub Actions example's pull-request step checks out the whole history and, run as it is written
/// with the variable GitHub sets, annotates only what the change introduces.
#[test]
fn the_github_actions_example_runs_on_a_pull_request() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/ci/github-actions.yml");
    let text = std::fs::read_to_string(&path).expect("docs/ci/github-actions.yml");
    let doc = yaml_rust2::YamlLoader::load_from_str(&text).expect("yaml").remove(0);
    let steps = doc["jobs"]["edgecheck"]["steps"].as_vec().expect("steps");
    let checkout =
        steps.iter().find(|s| s["uses"].as_str().is_some_and(|u| u.starts_with("actions/checkout"))).expect("checkout");
    assert_eq!(checkout["with"]["fetch-depth"].as_i64(), Some(0));
    let cmd =
        steps.iter().filter_map(|s| s["run"].as_str()).find(|r| r.contains("--diff-base")).expect("a --diff-base step");
    let argv: Vec<&str> = cmd.split_whitespace().skip(1).collect();
    // The pull request's branch holds the second commit; its base branch, the first.
    let d = two_commits();
    git(d.path(), &["checkout", "-q", "-b", "feature"]);
    git(d.path(), &["branch", "-f", "main", "HEAD~1"]);
    let out = assert_cmd::Command::cargo_bin("edgecheck")
        .expect("binary")
        .current_dir(d.path())
        .args(&argv)
        .env("GITHUB_BASE_REF", "main")
        .env("XDG_CACHE_HOME", crate::support::test_cache())
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{cmd}: {stdout}{}", String::from_utf8_lossy(&out.stderr));
    let annotations: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), 1, "{stdout}");
    assert!(annotations[0].starts_with("::error file=a.yaml,") && annotations[0].contains("TLS015"), "{stdout}");
}

/// The working tree's configuration applies to both sides: a check the change turns off is not "fixed" (the
/// base, without the configuration, had it), and a run that fails after the base's worktree was made still
/// removes it.
#[test]
fn the_working_trees_configuration_judges_the_base_and_the_worktree_goes_on_error() {
    let d = repo(&[("b.yaml", site("b", "b.example.com", 8080, "b.example.com"))]);
    commit(&d, &[(".edgecheck.toml", "ignore = [\"BKD002\"]\n".to_string())], "ignore BKD002");
    let r = edgecheck(d.path(), &["lint", "--diff-base", "HEAD~1", "--format", "json", "."]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(v["diff"]["fixed"], serde_json::json!([]), "{v}");
    assert_eq!(v["diff"]["hosts"], serde_json::json!([]), "{v}");

    // --cluster naming no cluster fails the base's lint: exit 2, and no worktree is left.
    let r = edgecheck(d.path(), &["lint", "--diff-base", "HEAD~1", "--cluster", "nowhere", "."]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("--cluster nowhere"), "{}", r.stderr);
    assert_eq!(worktrees(&d), 1, "{}", git(d.path(), &["worktree", "list"]));
}
