//! Shipping `edgecheck serve` into a cluster (#13 part 2): the Helm chart `deploy/helm/edgecheck` rendered
//! with the real `helm` and linted with edgecheck itself, its ClusterRole against `edgecheck rbac --watch`,
//! the alerts (`deploy/prometheus`) checked and unit-tested with the real `promtool`, and the invariants of
//! the `Containerfile` and `.dockerignore` (no container engine here: the image is not built).
//!
//! Needs `helm` (scripts/test.sh installs it) and `promtool` (the Debian package `prometheus`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{edgecheck, json, Dir};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn chart_dir() -> PathBuf {
    repo_root().join("deploy/helm/edgecheck")
}

fn rules_dir() -> PathBuf {
    repo_root().join("deploy/prometheus")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

struct Out {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn run_tool(program: &str, install: &str, args: &[&str], dir: &Path) -> Out {
    let out = Command::new(program).args(args).current_dir(dir).output().unwrap_or_else(|e| {
        panic!("`{program}` could not be run ({e}): {install}");
    });
    Out {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn helm(args: &[&str]) -> Out {
    run_tool("helm", "install helm 3 (scripts/test.sh does)", args, &repo_root())
}

fn promtool(args: &[&str], dir: &Path) -> Out {
    run_tool("promtool", "install the Debian package `prometheus` (apt-get install -y prometheus)", args, dir)
}

/// `helm template edgecheck deploy/helm/edgecheck -n edgecheck ARGS...`: the text, or a panic with helm's
/// message.
fn render_text(args: &[&str]) -> String {
    let chart = chart_dir();
    let chart = chart.to_str().expect("utf-8 path");
    let mut all = vec!["template", "edgecheck", chart, "--namespace", "edgecheck"];
    all.extend_from_slice(args);
    let out = helm(&all);
    assert!(out.ok, "helm {all:?} failed:\n{}", out.stderr);
    out.stdout
}

/// The rendered objects, parsed by edgecheck's own YAML loader.
fn render(args: &[&str]) -> Vec<Value> {
    parse_yaml(&render_text(args))
}

fn parse_yaml(text: &str) -> Vec<Value> {
    edgecheck_load::yaml::parse_documents(text)
        .into_iter()
        .map(|d| d.unwrap_or_else(|e| panic!("rendered YAML does not parse: {e:?}\n{text}")).value)
        .filter(|v| !v.is_null())
        .map(Value::from)
        .collect()
}

fn kinds(docs: &[Value]) -> Vec<String> {
    let mut k: Vec<String> = docs.iter().map(|d| d["kind"].as_str().unwrap_or_default().to_string()).collect();
    k.sort();
    k
}

fn one<'a>(docs: &'a [Value], kind: &str) -> &'a Value {
    let found: Vec<&Value> = docs.iter().filter(|d| d["kind"] == kind).collect();
    assert_eq!(found.len(), 1, "one {kind} in {:?}", kinds(docs));
    found[0]
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

const MONITORING: &[&str] = &[
    "--set",
    "serviceMonitor.enabled=true",
    "--set",
    "prometheusRule.enabled=true",
    "--api-versions",
    "monitoring.coreos.com/v1",
];

/// The values the tests render with: defaults, the Prometheus Operator kinds, and no Secrets.
fn variants() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![("default", vec![]), ("monitoring", MONITORING.to_vec()), ("secrets=false", vec!["--set", "secrets=false"])]
}

#[test]
fn chart_passes_helm_lint() {
    let chart = chart_dir();
    let chart = chart.to_str().expect("utf-8 path");
    for args in [
        vec!["lint", "--strict", chart],
        vec!["lint", "--strict", chart, "--set", "secrets=false"],
        vec![
            "lint",
            "--strict",
            chart,
            "--set",
            "serviceMonitor.enabled=true,prometheusRule.enabled=true,prometheusOperator.assumeInstalled=true",
        ],
    ] {
        let out = helm(&args);
        assert!(out.ok, "helm {args:?}:\n{}{}", out.stdout, out.stderr);
        assert!(out.stdout.contains("0 chart(s) failed"), "{}", out.stdout);
    }
    // The values schema refuses what `edgecheck serve` would refuse later, and typos.
    for (set, why) in [
        ("serve.probeInterval=soon", "serve.probeInterval"),
        ("secret=false", "secret"),
        ("port=0", "port"),
        ("serviceMonitor.enabled=yes-please", "serviceMonitor.enabled"),
    ] {
        let out = helm(&["lint", chart, "--set", set]);
        assert!(!out.ok, "helm lint --set {set} passed:\n{}", out.stdout);
        assert!(out.stdout.contains(why) || out.stderr.contains(why), "{set}: {}{}", out.stdout, out.stderr);
    }
}

#[test]
fn chart_renders_the_objects_serve_needs() {
    let docs = render(&[]);
    assert_eq!(kinds(&docs), ["ClusterRole", "ClusterRoleBinding", "Deployment", "Service", "ServiceAccount"]);
    let monitoring = render(MONITORING);
    assert_eq!(
        kinds(&monitoring),
        [
            "ClusterRole",
            "ClusterRoleBinding",
            "Deployment",
            "PrometheusRule",
            "Service",
            "ServiceAccount",
            "ServiceMonitor"
        ]
    );
    let no_secrets = render(&["--set", "secrets=false"]);
    assert_eq!(kinds(&no_secrets), kinds(&docs));
    for d in docs.iter().chain(&monitoring) {
        assert_eq!(d["metadata"]["name"], "edgecheck", "{d}");
        assert_eq!(d["metadata"]["labels"]["app.kubernetes.io/instance"], "edgecheck", "{d}");
        let cluster_scoped = matches!(d["kind"].as_str(), Some("ClusterRole" | "ClusterRoleBinding"));
        assert_eq!(d["metadata"]["namespace"].is_null(), cluster_scoped, "{d}");
    }

    // The names hold together: the binding binds the ServiceAccount the pod runs as to the ClusterRole,
    // the Service selects the pod and targets its named port.
    let sa = one(&docs, "ServiceAccount");
    let role = one(&docs, "ClusterRole");
    let binding = one(&docs, "ClusterRoleBinding");
    let deploy = one(&docs, "Deployment");
    let service = one(&docs, "Service");
    let pod = &deploy["spec"]["template"];
    assert_eq!(binding["roleRef"]["kind"], "ClusterRole");
    assert_eq!(binding["roleRef"]["name"], role["metadata"]["name"]);
    assert_eq!(binding["subjects"][0]["kind"], "ServiceAccount");
    assert_eq!(binding["subjects"][0]["name"], sa["metadata"]["name"]);
    assert_eq!(binding["subjects"][0]["namespace"], "edgecheck");
    assert_eq!(pod["spec"]["serviceAccountName"], sa["metadata"]["name"]);
    let selector = service["spec"]["selector"].as_object().expect("Service selector");
    assert!(!selector.is_empty());
    for (k, v) in selector {
        assert_eq!(&pod["metadata"]["labels"][k], v, "the Service selects the pod by {k}");
        assert_eq!(&deploy["spec"]["selector"]["matchLabels"][k], v);
    }
    assert_eq!(service["spec"]["ports"][0]["name"], "metrics");
    assert_eq!(service["spec"]["ports"][0]["port"], 9813);
    assert_eq!(service["spec"]["ports"][0]["targetPort"], "metrics");

    // The ServiceMonitor scrapes that Service's `metrics` port, in the release's namespace.
    let sm = one(&monitoring, "ServiceMonitor");
    for (k, v) in selector {
        assert_eq!(&sm["spec"]["selector"]["matchLabels"][k], v);
    }
    assert_eq!(strings(&sm["spec"]["namespaceSelector"]["matchNames"]), ["edgecheck"]);
    assert_eq!(sm["spec"]["endpoints"][0]["port"], "metrics");
    assert_eq!(sm["spec"]["endpoints"][0]["path"], "/metrics");
}

#[test]
fn deployment_runs_serve_as_non_root_with_its_token_and_probes() {
    let docs = render(&[]);
    let deploy = one(&docs, "Deployment");
    assert_eq!(deploy["spec"]["replicas"], 1, "one edgecheck per cluster");
    let pod = &deploy["spec"]["template"]["spec"];
    // It reads the cluster with its ServiceAccount's token: never turned off.
    assert_eq!(pod["automountServiceAccountToken"], true);
    assert_eq!(one(&docs, "ServiceAccount")["automountServiceAccountToken"], true);
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    assert_eq!(pod["securityContext"]["runAsUser"], 65532);
    assert_eq!(pod["securityContext"]["seccompProfile"]["type"], "RuntimeDefault");
    let containers = pod["containers"].as_array().expect("containers");
    assert_eq!(containers.len(), 1);
    let c = &containers[0];
    assert_eq!(c["image"], "ghcr.io/edgecheck/edgecheck:0.1.0");
    let sc = &c["securityContext"];
    assert_eq!(sc["readOnlyRootFilesystem"], true);
    assert_eq!(sc["allowPrivilegeEscalation"], false);
    assert_eq!(sc["runAsNonRoot"], true);
    assert_eq!(strings(&sc["capabilities"]["drop"]), ["ALL"]);
    assert!(c["volumeMounts"].is_null() && pod["volumes"].is_null(), "nothing writable is mounted: {pod}");
    for part in ["requests", "limits"] {
        for res in ["cpu", "memory"] {
            assert!(c["resources"][part][res].is_string(), "resources.{part}.{res}: {}", c["resources"]);
        }
    }
    assert_eq!(strings(&c["args"]), ["serve", "--listen=:9813", "--probe-interval=5m"]);
    assert_eq!(c["ports"][0]["name"], "metrics");
    assert_eq!(c["ports"][0]["containerPort"], 9813);
    for (probe, path) in [("startupProbe", "/healthz"), ("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")] {
        assert_eq!(c[probe]["httpGet"]["path"], path, "{probe}");
        assert_eq!(c[probe]["httpGet"]["port"], "metrics", "{probe}");
    }

    // Flags from values.
    let docs = render(&[
        "--set",
        "serve.probeInterval=1m30s",
        "--set",
        "serve.probeExclude={*.internal.example.com,legacy.example.com}",
        "--set",
        "serve.namespace=shop",
        "--set",
        "serve.extraArgs={--probe-concurrency=8}",
        "--set",
        "port=9100",
    ]);
    let deploy = one(&docs, "Deployment");
    let c = &deploy["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(
        strings(&c["args"]),
        [
            "serve",
            "--listen=:9100",
            "--probe-interval=1m30s",
            "--probe-exclude=*.internal.example.com",
            "--probe-exclude=legacy.example.com",
            "--namespace=shop",
            "--probe-concurrency=8"
        ]
    );
    assert_eq!(c["ports"][0]["containerPort"], 9100);
    assert_eq!(one(&docs, "Service")["spec"]["ports"][0]["port"], 9100);
    // They are `edgecheck serve`'s flags: the binary accepts them and goes on to read the kubeconfig.
    let args = strings(&c["args"]);
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    args.extend(["--kubeconfig", "/nonexistent/kubeconfig"]);
    let run = edgecheck(Dir::new().path(), &args);
    assert!(
        run.code != 0 && run.stderr.contains("/nonexistent/kubeconfig") && !run.stderr.contains("Usage:"),
        "edgecheck {args:?}: {}",
        run.stderr
    );

    // An existing ServiceAccount: none rendered, the pod and the binding use it; a missing name is a
    // message, not a ServiceAccount named "".
    let docs = render(&["--set", "serviceAccount.create=false", "--set", "serviceAccount.name=ops-reader"]);
    assert!(!kinds(&docs).contains(&"ServiceAccount".to_string()));
    assert_eq!(one(&docs, "Deployment")["spec"]["template"]["spec"]["serviceAccountName"], "ops-reader");
    assert_eq!(one(&docs, "ClusterRoleBinding")["subjects"][0]["name"], "ops-reader");
    let chart = chart_dir();
    let out = helm(&["template", "edgecheck", chart.to_str().expect("utf-8"), "--set", "serviceAccount.create=false"]);
    assert!(!out.ok && out.stderr.contains("serviceAccount.name"), "{}", out.stderr);
}

/// The Prometheus Operator kinds are rendered only where the cluster serves monitoring.coreos.com/v1 or a
/// value says so; enabled elsewhere, the render fails with a message instead of leaving them out.
#[test]
fn monitoring_kinds_need_the_operator_api_or_an_explicit_value() {
    let chart = chart_dir();
    let chart = chart.to_str().expect("utf-8");
    for enabled in ["serviceMonitor.enabled=true", "prometheusRule.enabled=true"] {
        let out = helm(&["template", "edgecheck", chart, "--set", enabled]);
        assert!(!out.ok, "{enabled} rendered without monitoring.coreos.com/v1:\n{}", out.stdout);
        assert!(
            out.stderr.contains("does not serve monitoring.coreos.com/v1")
                && out.stderr.contains("prometheusOperator.assumeInstalled=true"),
            "{}",
            out.stderr
        );
    }
    let by_kind = render(&[
        "--set",
        "serviceMonitor.enabled=true,prometheusRule.enabled=true",
        "--api-versions",
        "monitoring.coreos.com/v1/ServiceMonitor",
        "--api-versions",
        "monitoring.coreos.com/v1/PrometheusRule",
    ]);
    let assumed = render(&[
        "--set",
        "serviceMonitor.enabled=true,prometheusRule.enabled=true,prometheusOperator.assumeInstalled=true",
    ]);
    assert_eq!(by_kind, render(MONITORING));
    assert_eq!(assumed, render(MONITORING));
    // Near miss: the API alone renders nothing that was not enabled.
    assert_eq!(render(&["--api-versions", "monitoring.coreos.com/v1"]), render(&[]));
    // Labels a Prometheus selects by.
    let labelled = render(&[
        "--set",
        "serviceMonitor.labels.release=kps,prometheusRule.labels.release=kps",
        "--set",
        "serviceMonitor.enabled=true,prometheusRule.enabled=true,prometheusOperator.assumeInstalled=true",
    ]);
    for kind in ["ServiceMonitor", "PrometheusRule"] {
        assert_eq!(one(&labelled, kind)["metadata"]["labels"]["release"], "kps", "{kind}");
    }
}

/// A ClusterRole's rules as a sorted set of (groups, resources, verbs), each sorted.
fn rule_set(role: &Value) -> Vec<(Vec<String>, Vec<String>, Vec<String>)> {
    let mut rules: Vec<_> = role["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| {
            let sorted = |v: &Value| {
                let mut s = strings(v);
                s.sort();
                s
            };
            assert!(r["resourceNames"].is_null() && r["nonResourceURLs"].is_null(), "{r}");
            (sorted(&r["apiGroups"]), sorted(&r["resources"]), sorted(&r["verbs"]))
        })
        .collect();
    rules.sort();
    rules
}

/// The ClusterRole `edgecheck rbac --watch` prints (with `--no-secrets` when asked).
fn rbac_watch_role(secrets: bool) -> Value {
    let d = Dir::new();
    let mut args = vec!["rbac", "--watch"];
    if !secrets {
        args.push("--no-secrets");
    }
    let run = edgecheck(d.path(), &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    one(&parse_yaml(&run.stdout), "ClusterRole").clone()
}

#[test]
fn cluster_role_is_what_rbac_watch_prints() {
    for secrets in [true, false] {
        let expected = rbac_watch_role(secrets);
        let set = format!("secrets={secrets}");
        let docs = render(&["--set", &set]);
        let role = one(&docs, "ClusterRole");
        assert_eq!(rule_set(role), rule_set(&expected), "{set}\nchart: {role}\nrbac: {expected}");
        let verbs: Vec<_> = rule_set(role).into_iter().map(|(_, _, v)| v).collect();
        assert!(verbs.iter().all(|v| v == &["get", "list", "watch"]), "read-only: {verbs:?}");
        let secret_rules = rule_set(role).into_iter().filter(|(_, r, _)| r.contains(&"secrets".to_string())).count();
        assert_eq!(secret_rules, usize::from(secrets), "{set}");
    }
}

/// `edgecheck lint` finds nothing wrong in the chart it ships: no error or warning with any of the values
/// the tests render (infos would be printed in the failure message too).
#[test]
fn rendered_chart_lints_clean_with_edgecheck() {
    for (name, args) in variants() {
        let d = Dir::new();
        d.write("rendered/edgecheck.yaml", render_text(&args));
        let run = edgecheck(d.path(), &["lint", "rendered", "--no-config", "--format", "json", "--fail-on", "warning"]);
        let v = json(&run);
        let findings = v["findings"].as_array().expect("findings");
        assert_eq!(run.code, 0, "{name}: {findings:#?}\n{}", run.stderr);
        assert!(
            findings.iter().all(|f| f["severity"] == "info"),
            "{name}: edgecheck finds fault with its own chart: {findings:#?}"
        );
        assert!(v["summary"]["objects"].as_u64().unwrap_or(0) >= 5, "{name}: {}", v["summary"]);
    }
    // Near miss the other way: the same lint does read the rendered objects (a Service targeting a port
    // name the pod does not declare is BKD003).
    let d = Dir::new();
    d.write("rendered/edgecheck.yaml", render_text(&[]).replace("targetPort: metrics", "targetPort: http"));
    let run = edgecheck(d.path(), &["lint", "rendered", "--no-config", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(crate::support::codes(&json(&run)).contains(&"BKD003".to_string()), "{}", run.stdout);
}

#[test]
fn alert_rules_pass_promtool() {
    let dir = rules_dir();
    let check = promtool(&["check", "rules", "edgecheck-rules.yaml"], &dir);
    assert!(check.ok, "promtool check rules:\n{}{}", check.stdout, check.stderr);
    assert!(check.stdout.contains("SUCCESS: 4 rules found"), "{}", check.stdout);
    let test = promtool(&["test", "rules", "edgecheck-rules.test.yaml"], &dir);
    assert!(test.ok, "promtool test rules:\n{}{}", test.stdout, test.stderr);
    assert!(test.stdout.contains("SUCCESS"), "{}", test.stdout);
}

/// The contract's alerts, each with a test case that fires it and one (a near miss) in which it stays quiet.
#[test]
fn every_alert_has_a_firing_case_and_a_near_miss() {
    let rules = parse_yaml(&read(&rules_dir().join("edgecheck-rules.yaml")));
    let groups = rules[0]["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0]["name"], "edgecheck");
    let alerts: Vec<(String, String)> = groups[0]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| {
            (r["alert"].as_str().expect("alert").to_string(), r["labels"]["severity"].as_str().unwrap_or("").into())
        })
        .collect();
    let expected = [
        ("EdgecheckHostBroken", "critical"),
        ("EdgecheckCertificateExpiringSoon", "warning"),
        ("EdgecheckServedCertificateStale", "warning"),
        ("EdgecheckEvaluationStale", "warning"),
    ];
    assert_eq!(alerts, expected.map(|(a, s)| (a.to_string(), s.to_string())));

    let tests = parse_yaml(&read(&rules_dir().join("edgecheck-rules.test.yaml")));
    assert_eq!(strings(&tests[0]["rule_files"]), ["edgecheck-rules.yaml"]);
    let cases: Vec<&Value> = tests[0]["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .flat_map(|t| t["alert_rule_test"].as_array().into_iter().flatten())
        .collect();
    for (alert, _) in expected {
        let of: Vec<&&Value> = cases.iter().filter(|c| c["alertname"] == alert).collect();
        let fires = of.iter().filter(|c| c["exp_alerts"].as_array().is_some_and(|a| !a.is_empty())).count();
        let quiet = of.iter().filter(|c| c["exp_alerts"].as_array().is_some_and(Vec::is_empty)).count();
        assert!(fires >= 1 && quiet >= 1, "{alert}: {fires} firing and {quiet} quiet cases");
    }
}

/// One source for the alerts: the chart's copy is the rule file byte for byte, the PrometheusRule holds
/// its groups, and the rendered groups pass the same unit tests.
#[test]
fn prometheus_rule_is_the_rule_file() {
    let source = read(&rules_dir().join("edgecheck-rules.yaml"));
    let copy = read(&chart_dir().join("files/edgecheck-rules.yaml"));
    assert!(
        source == copy,
        "deploy/helm/edgecheck/files/edgecheck-rules.yaml differs from deploy/prometheus/edgecheck-rules.yaml: \
         cp deploy/prometheus/edgecheck-rules.yaml deploy/helm/edgecheck/files/"
    );
    let docs = render(MONITORING);
    let rule = one(&docs, "PrometheusRule");
    let groups = &rule["spec"]["groups"];
    assert_eq!(groups, &parse_yaml(&source)[0]["groups"]);

    // The rendered groups as a rule file of their own, under the unit tests of the source.
    let d = Dir::new();
    d.write(
        "edgecheck-rules.yaml",
        serde_json::to_string_pretty(&serde_json::json!({ "groups": groups })).expect("json"),
    );
    d.write("edgecheck-rules.test.yaml", read(&rules_dir().join("edgecheck-rules.test.yaml")));
    let test = promtool(&["test", "rules", "edgecheck-rules.test.yaml"], d.path());
    assert!(test.ok, "promtool test rules on the rendered PrometheusRule:\n{}{}", test.stdout, test.stderr);
}

/// The chart's appVersion (the image tag it defaults to) and the Containerfile's version label are the
/// version of the binary.
#[test]
fn chart_and_image_carry_the_binary_version() {
    let d = Dir::new();
    let run = edgecheck(d.path(), &["--version"]);
    let version = run.stdout.split_whitespace().nth(1).expect("edgecheck VERSION").to_string();
    let chart = &parse_yaml(&read(&chart_dir().join("Chart.yaml")))[0];
    assert_eq!(chart["appVersion"], version.as_str());
    let containerfile = read(&repo_root().join("Containerfile"));
    assert!(containerfile.lines().any(|l| l.trim() == format!("ARG VERSION={version}")), "ARG VERSION={version}");
}

/// A Containerfile instruction: its keyword (upper case) and the rest, continuation lines joined.
fn instructions(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let t = line.trim();
        if current.is_empty() && (t.is_empty() || t.starts_with('#')) {
            continue;
        }
        if t.starts_with('#') {
            continue;
        }
        match t.strip_suffix('\\') {
            Some(part) => {
                current.push_str(part);
                current.push(' ');
            }
            None => {
                current.push_str(t);
                let (kw, rest) = current.split_once(char::is_whitespace).unwrap_or((&current, ""));
                out.push((kw.to_ascii_uppercase(), rest.trim().to_string()));
                current.clear();
            }
        }
    }
    assert!(current.is_empty(), "the Containerfile ends inside a continued line");
    out
}

/// The image cannot be built here (no container engine, no musl target), so what it must keep is checked
/// from its text: a builder that builds the dist profile for musl with OpenSSL vendored, a distroless or
/// scratch final stage that copies that binary, a numeric non-root user, the ENTRYPOINT and CMD.
#[test]
fn containerfile_keeps_its_invariants() {
    let text = read(&repo_root().join("Containerfile"));
    let ins = instructions(&text);
    // Stages: (FROM argument, instructions).
    let mut stages: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for (kw, rest) in ins {
        if kw == "FROM" {
            stages.push((rest, Vec::new()));
        } else if let Some(stage) = stages.last_mut() {
            stage.1.push((kw, rest));
        }
    }
    assert!(stages.len() >= 2, "a builder stage and a final stage: {stages:?}");
    let (builder_from, builder) = &stages[0];
    let builder_name = builder_from.rsplit_once(" AS ").map(|(_, n)| n.trim().to_string()).expect("FROM … AS builder");
    assert!(builder_from.contains("rust:"), "the builder is a rust image: {builder_from}");
    let runs: Vec<&str> = builder.iter().filter(|(k, _)| k == "RUN").map(|(_, r)| r.as_str()).collect();
    let build = runs.iter().find(|r| r.contains("cargo build")).expect("a RUN with cargo build");
    for part in ["--locked", "--profile dist", "-unknown-linux-musl", "rustup target add", "edgecheck_probe/vendored"] {
        assert!(build.contains(part), "the build has `{part}`: {build}");
    }
    // The file the final stage copies is the dist-profile binary the build made.
    let (final_from, last) = stages.last().expect("final stage");
    assert!(
        final_from.starts_with("gcr.io/distroless/static") || final_from == "scratch",
        "the final stage is distroless static or scratch: {final_from}"
    );
    let copies: Vec<&str> = last.iter().filter(|(k, _)| k == "COPY").map(|(_, r)| r.as_str()).collect();
    assert_eq!(copies.len(), 1, "the final stage copies the binary only: {copies:?}");
    let words: Vec<&str> = copies[0].split_whitespace().collect();
    assert_eq!(words.len(), 3, "COPY --from=STAGE SRC DEST: {words:?}");
    assert_eq!(words[0], format!("--from={builder_name}"));
    assert_eq!(words[2], "/edgecheck");
    let src = words[1];
    assert!(
        build.contains(&format!("target/$triple/dist/edgecheck\" {src}"))
            || build.contains(&format!("target/$triple/dist/edgecheck {src}")),
        "the builder puts the dist binary at {src}: {build}"
    );
    // A numeric non-root user (runAsNonRoot can verify a number only), last.
    let user = last.iter().rev().find(|(k, _)| k == "USER").map(|(_, u)| u.as_str()).expect("USER in the final stage");
    let uid: u32 = user.split(':').next().and_then(|u| u.parse().ok()).expect("numeric USER");
    assert_ne!(uid, 0);
    assert_eq!(uid, 65532, "distroless's nonroot, which the chart's runAsUser names");
    let gid: Option<u32> = user.split(':').nth(1).and_then(|g| g.parse().ok());
    assert_ne!(gid, Some(0));
    let get = |kw: &str| last.iter().rev().find(|(k, _)| k == kw).map(|(_, v)| v.as_str());
    assert_eq!(get("ENTRYPOINT"), Some(r#"["/edgecheck"]"#));
    assert_eq!(get("CMD"), Some(r#"["serve"]"#));
    // Nothing in the final stage writes to the image or runs as root after the user is set.
    assert!(!last.iter().any(|(k, _)| k == "RUN" || k == "VOLUME"), "{last:?}");
    for label in ["title", "source", "licenses", "version", "revision"] {
        assert!(text.contains(&format!("org.opencontainers.image.{label}=")), "OCI label {label}");
    }
}

/// `.dockerignore` is an allowlist: what the builder copies is let in, target/ and .git/ are not.
#[test]
fn dockerignore_lets_in_what_the_build_copies() {
    let patterns: Vec<String> = read(&repo_root().join(".dockerignore"))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    // The last pattern that matches a top-level path decides (docker's rule); only top-level paths matter
    // here, so `*`, `name` and `!name` are all this needs to understand.
    let excluded = |path: &str| {
        let mut out = false;
        for p in &patterns {
            let (negated, p) = p.strip_prefix('!').map_or((false, p.as_str()), |p| (true, p));
            let p = p.trim_end_matches('/');
            if p == "*" || p == path {
                out = !negated;
            }
        }
        out
    };
    let text = read(&repo_root().join("Containerfile"));
    let mut sources = Vec::new();
    for (kw, rest) in instructions(&text) {
        if kw == "COPY" && !rest.starts_with("--from") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            sources.extend(words[..words.len() - 1].iter().map(|s| s.trim_end_matches('/').to_string()));
        }
    }
    assert!(sources.contains(&"crates".to_string()) && sources.contains(&"Cargo.lock".to_string()), "{sources:?}");
    for s in &sources {
        assert!(!excluded(s), ".dockerignore leaves out {s}, which the Containerfile copies");
        assert!(repo_root().join(s).exists(), "the Containerfile copies {s}, which does not exist");
    }
    for never in ["target", ".git", "examples", "README.md"] {
        assert!(excluded(never), ".dockerignore lets {never} into the build context");
    }
}
