use base64::Engine as _;

use crate::support::{cert, codes, edgecheck, files_with, json, Dir};

const CANARY: &str = "EDGECHECK-CANARY-4f1c9e2b7a";

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

#[test]
fn secret_values_appear_in_no_output_format() {
    let d = Dir::new();
    let (crt, key) = cert("shop.example.com");
    let last_applied = format!("{{\"data\":{{\"password\":\"{}\"}}}}", b64(CANARY));
    d.write(
        "secrets.yaml",
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-tls\n  namespace: shop\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{last_applied}'\ntype: kubernetes.io/tls\ndata:\n  tls.crt: {}\n  tls.key: {}\n  password: {}\nstringData:\n  token: {CANARY}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: broken\n  namespace: shop\ndata:\n  password: \"{CANARY}!!\"\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: repo\n  namespace: argocd\n  labels: {{argocd.argoproj.io/secret-type: repository}}\nstringData:\n  url: ssh://git:{CANARY}@git.example.internal/acme/platform.git\n  sshPrivateKey: {CANARY}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: argocd-ssh-known-hosts-cm, namespace: argocd}}\ndata:\n  ssh_known_hosts: \"github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\"\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {{name: web, namespace: shop}}\nspec:\n  tls: [{{hosts: [shop.example.com], secretName: web-tls}}]\n  rules: [{{host: shop.example.com, http: {{paths: [{{path: /, pathType: Prefix, backend: {{service: {{name: web, port: {{number: 80}}}}}}}}]}}}}]\n",
            b64(&crt),
            b64(&key),
            b64(CANARY)
        ),
    );
    let key_body: String = key.lines().filter(|l| !l.starts_with("-----")).collect();
    let formats = ["text", "json", "sarif", "markdown", "dot", "mermaid", "html"];
    // `trace` draws the Secret on the path with its certificate details: still no values.
    for format in formats {
        let r = edgecheck(
            d.path(),
            &["trace", "https://shop.example.com/", "--from", ".", "--no-probe", "--format", format],
        );
        assert_ne!(r.code, 101, "panic: {}", r.stderr);
        assert_ne!(r.code, 2, "{}", r.stderr);
        let all = format!("{}{}", r.stdout, r.stderr);
        for needle in [CANARY.to_string(), b64(CANARY), key_body.chars().take(40).collect()] {
            assert!(!all.contains(&needle), "trace {format} output contains a secret value `{needle}`:\n{all}");
        }
        if format == "text" {
            assert!(all.contains("Secret shop/web-tls") && all.contains("sha256"), "{all}");
        }
    }
    for format in formats {
        let r = edgecheck(d.path(), &["lint", "--format", format, "."]);
        assert_ne!(r.code, 101, "panic: {}", r.stderr);
        let all = format!("{}{}", r.stdout, r.stderr);
        for needle in [CANARY.to_string(), b64(CANARY), key_body.chars().take(40).collect()] {
            assert!(!all.contains(&needle), "{format} output contains a secret value `{needle}`:\n{all}");
        }
        if format == "json" {
            let v = json(&r);
            assert_eq!(v["summary"]["objects"], 5);
            assert!(codes(&v).contains(&"LOD003".to_string()), "the bad base64 is still reported");
            assert!(codes(&v).contains(&"GIT003".to_string()), "the repository URL is still judged (and shown)");
        }
    }
}

#[test]
fn broken_files_are_reported_and_the_run_goes_on() {
    let d = Dir::new();
    d.write(
        "good.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec: {ports: [{port: 80}]}\n",
    );
    d.write("bad.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: [oops\n");
    d.write("bad.json", "{\"apiVersion\": \"v1\", \"kind\": \"Service\",, }");
    d.write("binary.yaml", [0u8, 159, 146, 150, 0, 1, 2]);
    d.write("latin1.yaml", b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: caf\xe9}\n");
    d.write("empty.yaml", "");
    d.write("values.yaml", "replicaCount: 3\nimage: nginx\n");
    d.write("notk8s.json", "[1, 2, 3]");
    d.write("pem.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: t, namespace: shop}\ntype: kubernetes.io/tls\nstringData:\n  tls.crt: |\n    -----BEGIN CERTIFICATE-----\n    MIIB\n");
    d.write("deep/nested/ok.yml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: shop}\n");
    std::os::unix::fs::symlink(d.path().join("nowhere.yaml"), d.path().join("dangling.yaml")).expect("symlink");
    let r = edgecheck(d.path(), &["lint", "--format", "json", "."]);
    assert_eq!(r.code, 1, "errors were found; stderr: {}", r.stderr);
    let v = json(&r);
    let by_file = |file: &str| -> Vec<String> {
        v["findings"]
            .as_array()
            .expect("f")
            .iter()
            .filter(|f| f["file"] == file)
            .map(|f| f["code"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(by_file("bad.yaml"), vec!["LOD001"]);
    assert_eq!(by_file("bad.json"), vec!["LOD001"]);
    assert_eq!(by_file("binary.yaml"), vec!["LOD002"]);
    assert_eq!(by_file("latin1.yaml"), vec!["LOD002"]);
    assert_eq!(by_file("dangling.yaml"), vec!["LOD002"]);
    assert_eq!(by_file("pem.yaml"), vec!["LOD003"]);
    assert!(by_file("empty.yaml").is_empty() && by_file("values.yaml").is_empty());
    let bad = v["findings"].as_array().expect("f").iter().find(|f| f["file"] == "bad.yaml").expect("bad.yaml finding");
    assert_eq!(bad["line"], 4);
    // good.yaml, pem.yaml and deep/nested/ok.yml still loaded.
    assert_eq!(v["summary"]["objects"], 3);
    assert_eq!(v["summary"]["skipped_documents"], 2, "values.yaml and notk8s.json are not Kubernetes objects");
}

#[test]
fn exit_codes() {
    let d = Dir::new();
    d.write("ok.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n");
    // A copy that differs, in the same directory: applied together, a duplicate.
    d.write("dup.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop, labels: {v: \"2\"}}\n");
    assert_eq!(edgecheck(d.path(), &["lint", "ok.yaml"]).code, 0);
    assert_eq!(edgecheck(d.path(), &["lint", "."]).code, 0, "a duplicate is a warning; default fail level is error");
    assert_eq!(edgecheck(d.path(), &["lint", "--fail-on", "warning", "."]).code, 1);
    assert_eq!(edgecheck(d.path(), &["lint", "--fail-on", "warning", "--ignore", "LOD004", "."]).code, 0);
    let missing = edgecheck(d.path(), &["lint", "nope/"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("nope"), "{}", missing.stderr);
    let partial = edgecheck(d.path(), &["lint", "nope/", "ok.yaml"]);
    assert_eq!(partial.code, 0, "one readable path is enough; the missing one is named on stderr");
    assert!(partial.stderr.contains("nope"));
    assert_eq!(edgecheck(d.path(), &["lint", "--select", "NOPE999", "."]).code, 2);
    assert_eq!(edgecheck(d.path(), &["explain", "LOD004"]).code, 0);
    assert_eq!(edgecheck(d.path(), &["explain", "XYZ123"]).code, 2);
}

#[test]
fn config_and_annotations_suppress() {
    let d = Dir::new();
    let svc = "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n";
    d.write("repo/a.yaml", svc);
    d.write(
        "repo/b.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop, labels: {v: \"2\"}}\n",
    );
    d.write("repo/.edgecheck.toml", "fail-on = \"warning\"\n");
    let r = edgecheck(d.path(), &["lint", "--format", "json", "repo"]);
    assert_eq!(r.code, 1, "config fail-on applies");
    assert_eq!(codes(&json(&r)), vec!["LOD004"]);
    d.write(
        "repo/.edgecheck.toml",
        "fail-on = \"warning\"\nignore = [{ code = \"LOD004\", object = \"Service/shop/web\", reason = \"known\" }]\n",
    );
    let r = edgecheck(d.path(), &["lint", "--format", "json", "repo"]);
    assert_eq!(r.code, 0);
    let v = json(&r);
    assert!(codes(&v).is_empty());
    assert_eq!(v["summary"]["suppressed"], 1);
    d.write(
        "repo/.edgecheck.toml",
        "fail-on = \"warning\"\nignore = [{ code = \"LOD004\", object = \"Service/other/web\" }]\n",
    );
    assert_eq!(edgecheck(d.path(), &["lint", "repo"]).code, 1, "a suppression scoped to another object does not apply");
    d.write("repo/.edgecheck.toml", "bogus-key = 1\n");
    let r = edgecheck(d.path(), &["lint", "repo"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains(".edgecheck.toml"), "{}", r.stderr);
    d.write("repo/.edgecheck.toml", "");
    d.write("repo/b.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    edgecheck.io/ignore: \"LOD004 renamed next release\"\n");
    let r = edgecheck(d.path(), &["lint", "--fail-on", "warning", "repo"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

#[test]
fn stdin_lists_and_helm_templates() {
    let d = Dir::new();
    let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a, namespace: shop}\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a, namespace: shop, labels: {v: \"2\"}}\n";
    let out = assert_cmd::Command::cargo_bin("edgecheck")
        .expect("bin")
        .args(["lint", "--format", "json", "-"])
        .write_stdin(list)
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["summary"]["objects"], 2);
    let f = &v["findings"][0];
    assert_eq!(f["code"], "LOD004");
    assert_eq!(f["file"], "-");
    assert_eq!(f["line"], 7, "the second List item starts at line 7");
    d.write("chart/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n");
    d.write("chart/templates/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n");
    d.write("chart/values.yaml", "replicas: 1\n");
    let r = edgecheck(d.path(), &["lint", "--format", "json", "."]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let v = json(&r);
    assert_eq!(v["summary"]["skipped_templates"], 1);
    assert_eq!(v["summary"]["objects"], 0);
}

#[test]
fn templated_documents_outside_charts_are_counted_not_reported() {
    let d = Dir::new();
    // An Ansible role's Jinja template and a Go template: they do not parse until rendered.
    d.write(
        "roles/cilium/templates/pool.yaml",
        "apiVersion: cilium.io/v2alpha1\nkind: CiliumLoadBalancerIPPool\nmetadata:\n  name: default\nspec:\n  blocks:\n    {% for cidr in pools %}\n    - cidr: {{ cidr }}\n    {% endfor %}\n",
    );
    d.write("plugin/krew.yaml", "apiVersion: krew.googlecontainertools.github.com/v1alpha2\nkind: Plugin\nmetadata: {name: x}\nspec:\n  platforms:\n  - selector: {}\n    {{addURIAndSha \"https://example.com/x.tar.gz\" .TagName }}\n");
    // Flux postBuild variables break a flow sequence until substituted.
    d.write("values.yaml", "scrape:\n  static_configs:\n  - targets: [vault.${CLUSTER_DOMAIN}:8200]\n");
    // Near miss: a plain syntax error stays an input error naming file and line.
    d.write("broken.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n   bad: [\n");
    let r = edgecheck(d.path(), &["lint", "--format", "json", "."]);
    let v = json(&r);
    assert_eq!(v["summary"]["skipped_templates"], 3, "{}", r.stdout);
    assert_eq!(files_with(&v, "LOD001"), ["broken.yaml"], "{}", r.stdout);
    let text = edgecheck(d.path(), &["lint", "."]);
    assert!(text.stdout.contains("3 templates skipped"), "{}", text.stdout);
}

#[test]
fn null_fields_are_absent_and_tool_configs_are_not_objects() {
    let d = Dir::new();
    // `data:` with nothing under it is no data, as the API server reads it.
    d.write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ingress-nginx-controller\n  namespace: ingress-nginx\n  annotations:\ndata:\n");
    // kind's and kubeadm's configs and a kubeconfig share the manifest shape but are never applied.
    d.write("kind.yaml", "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n- role: control-plane\n");
    d.write(
        "kubeadm.yaml",
        "apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nnetworking: {podSubnet: 10.244.0.0/16}\n",
    );
    d.write("kubeconfig.yaml", "apiVersion: v1\nkind: Config\nclusters: []\n");
    // Talos machine config documents (core-group shape, version v1alpha1) and Envoy Gateway's own config.
    d.write("talos/node.yaml", "apiVersion: v1alpha1\nkind: HostnameConfig\nhostname: node-1\n---\napiVersion: v1alpha1\nkind: LinkAliasConfig\nname: net0\n");
    d.write("envoy-gateway.yaml", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyGateway\nprovider: {type: Kubernetes}\ngateway: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n");
    // Near misses: an EnvoyProxy in the same group, and a core `v1` object, are cluster objects.
    d.write(
        "proxy.yaml",
        "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: p, namespace: eg}\nspec: {}\n",
    );
    // Near miss: a value of the wrong type is still a schema error.
    d.write("bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad, namespace: shop}\ndata: [a, b]\n");
    let r = edgecheck(d.path(), &["lint", "--format", "json", "."]);
    let v = json(&r);
    assert_eq!(v["summary"]["objects"], 3, "{}", r.stdout);
    assert_eq!(v["summary"]["skipped_documents"], 6, "{}", r.stdout);
    let lod: Vec<(String, String)> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"].as_str().is_some_and(|c| c.starts_with("LOD")))
        .map(|f| (f["code"].as_str().unwrap_or("").to_string(), f["file"].as_str().unwrap_or("").to_string()))
        .collect();
    assert_eq!(lod, vec![("LOD006".to_string(), "bad.yaml".to_string())], "{}", r.stdout);
}

#[test]
fn catalogue_lists_every_check() {
    let d = Dir::new();
    let r = edgecheck(d.path(), &["checks", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let n = v.as_array().expect("list").len();
    assert!(n >= 6);
    let e = edgecheck(d.path(), &["explain", "object-duplicate"]);
    assert!(e.stdout.contains("## How to fix"), "{}", e.stdout);
}

#[test]
fn suppressions_cannot_be_wrong_silently() {
    let d = Dir::new();
    let svc = "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n";
    d.write("repo/a.yaml", svc);
    // An annotation naming a code that does not exist: an input error, and the duplicate stays reported.
    d.write("repo/b.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    edgecheck.io/ignore: \"LOD0004 renamed next release\"\n");
    let r = edgecheck(d.path(), &["lint", "-o", "json", "repo"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v = json(&r);
    assert_eq!(codes(&v), ["LOD008", "LOD004"]);
    assert_eq!(v["findings"][0]["line"], 7);
    assert!(v["findings"][0]["message"].as_str().unwrap_or("").contains("names `LOD0004`"), "{}", v["findings"][0]);
    // A config entry with a misspelt key is an error naming the key, never a global ignore.
    d.write("repo/.edgecheck.toml", "ignore = [{ code = \"LOD004\", objekt = \"Service/shop/web\" }]\n");
    let r = edgecheck(d.path(), &["lint", "repo"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("unknown key `objekt` (expected code, object, reason)"), "{}", r.stderr);
    assert!(r.stderr.contains(".edgecheck.toml"), "{}", r.stderr);
    // A scoped entry naming no check is as wrong as `--ignore NOPE999`.
    d.write("repo/.edgecheck.toml", "ignore = [{ code = \"LOD0004\", object = \"Service/shop/web\" }]\n");
    let r = edgecheck(d.path(), &["lint", "repo"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("config ignore `LOD0004`: names no check"), "{}", r.stderr);
}

#[test]
fn unused_suppressions_are_infos_when_asked_in_every_format() {
    let d = Dir::new();
    d.write("repo/a.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    edgecheck.io/ignore: \"TLS013 private CA\"\n");
    d.write(
        "repo/.edgecheck.toml",
        "ignore = [{ code = \"BKD001\", object = \"Ingress/shop/*\", reason = \"migrating\" }]\n",
    );
    let r = edgecheck(d.path(), &["lint", "-o", "json", "repo"]);
    assert_eq!((r.code, codes(&json(&r))), (0, vec![]), "not reported unless asked");
    let r = edgecheck(d.path(), &["lint", "-o", "json", "--show-unused-ignores", "repo"]);
    assert_eq!(r.code, 0, "infos do not fail the run");
    let v = json(&r);
    assert_eq!(codes(&v), ["LOD009", "LOD009"], "{}", r.stdout);
    let messages: Vec<&str> =
        v["findings"].as_array().expect("f").iter().filter_map(|f| f["message"].as_str()).collect();
    assert!(
        messages.contains(&"Service `shop/web`: `edgecheck.io/ignore: TLS013` suppressed no finding"),
        "{messages:?}"
    );
    assert!(messages.contains(&"config ignore `BKD001` for Ingress/shop/* suppressed no finding"), "{messages:?}");
    assert!(v["findings"].as_array().expect("f").iter().all(|f| f["severity"] == "info"));
    for format in ["text", "markdown", "sarif"] {
        let r = edgecheck(d.path(), &["lint", "-o", format, "--show-unused-ignores", "repo"]);
        assert!(r.stdout.matches("LOD009").count() >= 2, "{format}: {}", r.stdout);
        assert!(r.stdout.contains("suppressed no finding"), "{format}: {}", r.stdout);
    }
}

/// Issue 19, items 8 and 9: text shows the YAML lines a finding points at (the field marked, the related
/// object's field as a note), wrapped to 100 columns off a terminal; `--no-snippets` leaves the places
/// only; `--format concise` is one `file:line:col: CODE message` line per finding.
#[test]
fn snippets_concise_and_wrapping() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let r = edgecheck(&root, &["lint", "examples/alb-https-503"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.lines().all(|l| l.chars().count() <= 100), "{}", r.stdout);
    let lsn030 = &r.stdout[r.stdout.find("error[LSN030]").expect("LSN030")..];
    let lsn030 = &lsn030[..lsn030.find("\n\n").unwrap_or(lsn030.len())];
    insta::assert_snapshot!(lsn030);
    let plain = edgecheck(&root, &["lint", "--no-snippets", "examples/alb-https-503"]);
    assert!(!plain.stdout.contains(" | ") && plain.stdout.contains("  --> examples/alb-https-503/alb.yaml:37:3\n"));
    let concise = edgecheck(&root, &["lint", "--format", "concise", "examples/alb-https-503"]);
    assert_eq!(concise.code, 1);
    let lines: Vec<&str> = concise.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{}", concise.stdout);
    assert!(
        lines.iter().any(|l| l.starts_with("examples/alb-https-503/alb.yaml:37:3: LSN030 Ingress `shop/shop` needs")),
        "{}",
        concise.stdout
    );
    assert_eq!(lines[4], "4 errors, 0 warnings, 0 infos in 7 objects from 1 file");
}
