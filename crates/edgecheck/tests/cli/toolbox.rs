//! edgecheck in the toolbox (#20): the kubectl plugin name, shell completions, the man page, the CI
//! formats (`--format github`, `--format gitlab`), `--output-file`, and the pre-commit hook.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{edgecheck, Dir};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("edgecheck")
}

/// Whether `program` runs here (a shell the tests check scripts with, git, man).
fn available(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.env("NO_COLOR", "1").output().expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn the_binary_is_a_kubectl_plugin_by_its_name() {
    let d = Dir::new();
    let bin_dir = d.path().join("bin");
    std::fs::create_dir_all(&bin_dir).expect("mkdir");
    let plugin = bin_dir.join("kubectl-edgecheck");
    std::os::unix::fs::symlink(binary(), &plugin).expect("symlink");

    // The same CLI: `checks` prints the same catalogue.
    let (code, via_plugin, err) = run(Command::new(&plugin).arg("checks"));
    assert_eq!(code, 0, "{err}");
    let direct = edgecheck(d.path(), &["checks"]);
    assert_eq!(via_plugin, direct.stdout);
    // Help and usage say how it was invoked.
    let (code, help, _) = run(Command::new(&plugin).arg("--help"));
    assert_eq!(code, 0);
    assert!(help.contains("Usage: kubectl edgecheck [OPTIONS] <COMMAND>"), "{help}");
    let (_, help, _) = run(Command::new(&plugin).args(["scan", "--help"]));
    assert!(help.contains("Usage: kubectl edgecheck scan [OPTIONS]"), "{help}");
    for flag in ["--kubeconfig", "--context", "--namespace", "--request-timeout", "--all-namespaces"] {
        assert!(help.contains(flag), "scan lacks kubectl's {flag}:\n{help}");
    }
    assert!(edgecheck(d.path(), &["--help"]).stdout.contains("Usage: edgecheck [OPTIONS] <COMMAND>"));
    // kubectl's flags where edgecheck means the same, spelled as kubectl users spell them; `0` is
    // kubectl's "no timeout". The kubeconfig does not exist: a clear error, not a usage error.
    let (code, _, err) = run(Command::new(&plugin).current_dir(d.path()).args([
        "scan",
        "--kubeconfig",
        "no-such-kubeconfig",
        "--context",
        "prod",
        "-n",
        "shop",
        "--request-timeout=0",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("Usage:") && err.contains("no-such-kubeconfig"), "{err}");
    let (code, _, err) = run(Command::new(&plugin).args(["lint", "--no-such-flag"]));
    assert_eq!(code, 2);
    assert!(err.contains("Usage: kubectl edgecheck lint"), "{err}");

    // kubectl finds it on PATH as `kubectl edgecheck` (when kubectl is on this machine).
    if !Command::new("kubectl").args(["version", "--client"]).output().is_ok_and(|o| o.status.success()) {
        eprintln!("kubectl not on PATH: `kubectl edgecheck` not run");
        return;
    }
    let path = std::env::join_paths(
        std::iter::once(bin_dir.clone()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("PATH");
    let (code, help, err) = run(Command::new("kubectl").args(["edgecheck", "--help"]).env("PATH", &path));
    assert_eq!(code, 0, "{err}");
    assert!(help.contains("Usage: kubectl edgecheck"), "{help}");
    let (code, out, err) = run(Command::new("kubectl").args(["edgecheck", "explain", "TLS003"]).env("PATH", &path));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("TLS003"), "{out}");
}

#[test]
fn completions_are_generated_for_every_shell_and_parse() {
    let d = Dir::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let r = edgecheck(d.path(), &["completions", shell]);
        assert_eq!(r.code, 0, "{shell}: {}", r.stderr);
        // fish names long options without their dashes (`-l format`).
        for word in ["lint", "scan", "trace", "format", "output-file", "kubeconfig"] {
            assert!(r.stdout.contains(word), "{shell} completions lack {word}");
        }
        // The values of --format are completed too (PowerShell and Elvish complete flags only).
        if matches!(shell, "bash" | "zsh" | "fish") {
            assert!(r.stdout.contains("github") && r.stdout.contains("gitlab"), "{shell}: no format values");
        }
        let file = d.write(&format!("edgecheck.{shell}"), &r.stdout);
        // The shells that are here check the script's syntax without running it.
        if matches!(shell, "bash" | "zsh" | "fish") {
            if !available(shell) {
                eprintln!("{shell} not installed: its completions were generated, not parsed");
                continue;
            }
            let (code, _, err) = run(Command::new(shell).arg("-n").arg(&file));
            assert_eq!(code, 0, "{shell} -n rejects the completions: {err}");
        }
    }
    // bash: loading the script defines the completion function and registers it for `edgecheck`.
    let (code, out, err) = run(Command::new("bash")
        .arg("-c")
        .arg(format!("source {} && complete -p edgecheck", d.path().join("edgecheck.bash").display())));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("edgecheck"), "{out}");
    let r = edgecheck(d.path(), &["completions", "tcsh"]);
    assert_eq!(r.code, 2);
}

#[test]
fn the_man_page_names_every_command_and_renders() {
    let d = Dir::new();
    let r = edgecheck(d.path(), &["man"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(".TH edgecheck 1"), "{}", r.stdout);
    let commands = ["lint", "scan", "trace", "probe", "rbac", "checks", "explain", "completions", "man"];
    for c in commands {
        assert!(r.stdout.contains(&format!("edgecheck\\-{c}(1)")), "the page does not list {c}:\n{}", r.stdout);
    }
    // One page per command with --dir.
    let r = edgecheck(d.path(), &["man", "--dir", "man1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for c in commands {
        let page = d.path().join(format!("man1/edgecheck-{c}.1"));
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        assert!(text.contains(&format!(".TH edgecheck-{c} 1")), "{text}");
    }
    let lint = std::fs::read_to_string(d.path().join("man1/edgecheck-lint.1")).expect("lint page");
    assert!(lint.contains("\\-\\-output\\-file"), "{lint}");
    // Rendered by man (groff), when it is here: the page formats without warnings.
    if !Path::new("/usr/bin/man").exists() && !available("man") {
        eprintln!("man not installed: the page was generated, not rendered");
        return;
    }
    let (code, out, err) = run(Command::new("man")
        .arg("-l")
        .arg(d.path().join("man1/edgecheck.1"))
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .env("MANROFFOPT", "-ww"));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("edgecheck-lint(1)"), "{out}");
    assert!(!err.contains("warning"), "{err}");
}

/// A copy of the cert-manager example in a temp directory: the same findings, paths relative to it.
fn cert_manager_copy() -> Dir {
    let d = Dir::new();
    let src = repo_root().join("examples/cert-manager-mismatch");
    for entry in std::fs::read_dir(&src).expect("example") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            d.write(
                &format!("k8s/{}", path.file_name().expect("name").to_string_lossy()),
                std::fs::read(&path).expect("read"),
            );
        }
    }
    d
}

const NOW: &str = "2026-06-01T00:00:00Z";

#[test]
fn github_annotations_of_an_example() {
    let d = cert_manager_copy();
    let r = edgecheck(d.path(), &["lint", "--format", "github", "--now", NOW, "k8s"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines.iter().take(lines.len() - 1).all(|l| l.starts_with("::error ") || l.starts_with("::warning ")));
    assert!(r.stdout.contains("::error file=k8s/certs.yaml,line=33,col=3,title=TLS014 cert-renew-before-too-long::"));
    insta::assert_snapshot!(r.stdout);
}

fn gitlab(d: &Dir) -> Vec<serde_json::Value> {
    let r = edgecheck(d.path(), &["lint", "--format", "gitlab", "--now", NOW, "k8s"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("one JSON document");
    let schema_path = repo_root().join("crates/edgecheck_report/resources/gitlab-code-quality.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).expect("schema")).expect("schema json");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator.iter_errors(&v).map(|e| format!("{e} at {}", e.instance_path)).collect();
    assert!(errors.is_empty(), "not GitLab's documented shape: {errors:#?}");
    v.as_array().expect("array").clone()
}

#[test]
fn gitlab_code_quality_of_an_example_with_fingerprints_that_survive_line_moves() {
    let d = cert_manager_copy();
    let before = gitlab(&d);
    assert_eq!(before.len(), 5);
    insta::assert_json_snapshot!(before);
    // Lines added above every object: each finding moves, none changes its fingerprint.
    for entry in std::fs::read_dir(d.path().join("k8s")).expect("dir") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        std::fs::write(&path, format!("# moved\n# by two lines\n{text}")).expect("write");
    }
    let after = gitlab(&d);
    assert_eq!(after.len(), before.len());
    for (a, b) in before.iter().zip(&after) {
        assert_eq!(a["fingerprint"], b["fingerprint"], "{a:#}\n{b:#}");
        assert_eq!(
            a["location"]["lines"]["begin"].as_u64().map(|l| l + 2),
            b["location"]["lines"]["begin"].as_u64(),
            "the line moved"
        );
    }
    // SARIF's partial fingerprints are the same identity.
    let r = edgecheck(d.path(), &["lint", "--format", "sarif", "--now", NOW, "k8s"]);
    let sarif: serde_json::Value = serde_json::from_str(&r.stdout).expect("sarif");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    for (result, issue) in results.iter().zip(&after) {
        assert_eq!(result["partialFingerprints"]["edgecheckIdentity/v1"], issue["fingerprint"]);
    }
}

#[test]
fn output_file_holds_the_report_and_the_exit_code_is_the_same() {
    let d = cert_manager_copy();
    for format in ["json", "text", "gitlab"] {
        let to_stdout = edgecheck(d.path(), &["lint", "--format", format, "--now", NOW, "k8s"]);
        let file = format!("report.{format}");
        let r = edgecheck(d.path(), &["lint", "-o", format, "--output-file", &file, "--now", NOW, "k8s"]);
        assert_eq!(r.code, to_stdout.code, "{}", r.stderr);
        assert_eq!(r.stdout, "", "the report went to the file");
        let written = std::fs::read_to_string(d.path().join(&file)).expect("the report file");
        assert_eq!(written, to_stdout.stdout, "{format}");
    }
    let r = edgecheck(d.path(), &["lint", "--format", "json", "--output-file", "r.json", "--color", "always", "k8s"]);
    assert_eq!(r.code, 1);
    // trace and probe take it too.
    let r = edgecheck(
        d.path(),
        &["trace", "https://www.example.com/", "--from", "k8s", "--no-probe", "--output-file", "t.txt", "--now", NOW],
    );
    assert_ne!(r.code, 2, "{}", r.stderr);
    assert!(std::fs::read_to_string(d.path().join("t.txt")).expect("trace file").contains("www.example.com"));
    // A file that cannot be created is exit 2, naming it.
    let r = edgecheck(d.path(), &["lint", "--output-file", "no/such/dir/r.txt", "k8s"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--output-file no/such/dir/r.txt"), "{}", r.stderr);
}

/// `.pre-commit-hooks.yaml` at the repository root declares the hook (#20); its entry, run as pre-commit
/// runs it (`pass_filenames: false`: the entry and its args, nothing appended), lints a git repository.
#[test]
fn the_pre_commit_hook_runs_in_a_repository() {
    let text = std::fs::read_to_string(repo_root().join(".pre-commit-hooks.yaml")).expect(".pre-commit-hooks.yaml");
    let docs = yaml_rust2::YamlLoader::load_from_str(&text).expect("the hooks file is YAML");
    let hooks = docs[0].as_vec().expect("a list of hooks");
    let hook = hooks.iter().find(|h| h["id"].as_str() == Some("edgecheck")).expect("the edgecheck hook");
    for key in ["id", "name", "entry", "language", "description"] {
        assert!(hook[key].as_str().is_some(), "the hook lacks {key}");
    }
    assert_eq!(hook["pass_filenames"].as_bool(), Some(false));
    assert!(matches!(hook["language"].as_str(), Some("system" | "rust")));
    let mut argv: Vec<String> =
        hook["entry"].as_str().unwrap_or_default().split_whitespace().map(String::from).collect();
    argv.extend(hook["args"].as_vec().into_iter().flatten().filter_map(|a| a.as_str().map(String::from)));
    assert_eq!(argv.first().map(String::as_str), Some("edgecheck"));

    let d = Dir::new();
    if available("git") {
        let (code, _, err) = run(Command::new("git").args(["init", "-q"]).current_dir(d.path()));
        assert_eq!(code, 0, "{err}");
    } else {
        d.write(".git/HEAD", "ref: refs/heads/main\n");
    }
    d.write(
        "apps/web.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec: {ports: [{port: 80}]}\n",
    );
    let bin_dir = binary().parent().expect("bin dir").to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("PATH");
    let hook_run = || {
        run(Command::new(&argv[0])
            .args(&argv[1..])
            .current_dir(d.path())
            .env("PATH", &path)
            .env("XDG_CACHE_HOME", crate::support::test_cache()))
    };
    let (code, out, err) = hook_run();
    assert_eq!(code, 0, "a clean repository passes:\n{out}\n{err}");
    // A broken manifest fails the commit, naming file and line.
    d.write("apps/broken.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: [unclosed\n");
    let (code, out, err) = hook_run();
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("apps/broken.yaml:"), "{out}");
}

/// The CI examples and the krew manifest template parse, and the edgecheck commands the CI examples run
/// are valid command lines that write what the next step reads.
#[test]
fn the_ci_examples_and_the_krew_template_hold_together() {
    let load = |rel: &str| {
        let text = std::fs::read_to_string(repo_root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let docs = yaml_rust2::YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
        (text, docs.into_iter().next().expect("one document"))
    };
    let (krew, plugin) = load("deploy/krew/edgecheck.yaml");
    assert_eq!(plugin["kind"].as_str(), Some("Plugin"));
    assert_eq!(plugin["metadata"]["name"].as_str(), Some("edgecheck"));
    for placeholder in ["{{VERSION}}", "{{URI_LINUX_AMD64}}", "{{SHA256_LINUX_AMD64}}"] {
        assert!(krew.contains(placeholder), "{placeholder}");
    }
    for platform in plugin["spec"]["platforms"].as_vec().expect("platforms") {
        assert!(platform["bin"].as_str().is_some_and(|b| b.starts_with("kubectl-edgecheck")), "{platform:?}");
    }

    let (_, github) = load("docs/ci/github-actions.yml");
    let steps = github["jobs"]["edgecheck"]["steps"].as_vec().expect("steps");
    // The `--diff-base` step needs a git history and GITHUB_BASE_REF: tests/cli/diff.rs runs it.
    let runs: Vec<&str> = steps
        .iter()
        .filter_map(|s| s["run"].as_str())
        .filter(|r| r.starts_with("edgecheck ") && !r.contains("--diff-base"))
        .collect();
    let upload =
        steps.iter().find(|s| s["uses"].as_str().is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif")));
    let sarif_file = upload.expect("the SARIF upload step")["with"]["sarif_file"].as_str().expect("sarif_file");
    let (_, gitlab) = load("docs/ci/gitlab-ci.yml");
    let gl_runs: Vec<&str> =
        gitlab["edgecheck"]["script"].as_vec().expect("script").iter().filter_map(|s| s.as_str()).collect();
    let report = gitlab["edgecheck"]["artifacts"]["reports"]["codequality"].as_str().expect("codequality report");

    let d = cert_manager_copy();
    for cmd in runs.iter().chain(&gl_runs) {
        let argv: Vec<&str> = cmd.split_whitespace().skip(1).collect();
        let r = edgecheck(d.path(), &argv);
        assert!(r.code == 0 || r.code == 1, "{cmd}: {}", r.stderr);
        if cmd.contains("--format github") {
            assert!(r.stdout.starts_with("::error file=k8s/"), "{cmd}: {}", r.stdout);
        }
    }
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join(sarif_file)).expect("the SARIF file"))
            .expect("sarif");
    assert_eq!(sarif["version"], "2.1.0");
    let quality: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join(report)).expect("the report")).expect("gitlab");
    assert_eq!(quality.as_array().map(Vec::len), Some(5));
}
