//! Hostile text in objects and status must not reach any output as it is: credentials in URLs and in the
//! status messages controllers write (issue 16, items 1–3), values of wrongly typed fields, and terminal
//! control sequences in names.

use crate::support::{codes, edgecheck, json, Dir};

const PASSWORD: &str = "Pw-CANARY-9c2e71";
/// A numeric value: the canary for wrongly typed fields (env values, ConfigMap data), which serde quotes.
const NUMBER: &str = "8675309123456";

const FORMATS: [&str; 9] = ["text", "json", "sarif", "markdown", "dot", "mermaid", "html", "github", "gitlab"];

fn status_dump() -> String {
    let url = format!("https://bot:{PASSWORD}@git.example.internal/acme/platform.git");
    format!(
        r#"apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {{name: shop, namespace: argocd, resourceVersion: "1"}}
spec:
  destination: {{server: https://kubernetes.default.svc, namespace: shop}}
  source: {{repoURL: "{url}", path: apps/does-not-exist, targetRevision: HEAD}}
status:
  sync: {{status: OutOfSync}}
  health:
    status: Degraded
    message: "health check failed: cannot reach {url}"
  conditions:
  - type: ComparisonError
    message: "rpc error: code = Unknown desc = failed to list refs: {url}: authentication required"
  operationState:
    phase: Failed
    message: "one or more objects failed to apply: fetch {url} failed"
---
apiVersion: v1
kind: Service
metadata: {{name: web, namespace: shop}}
spec:
  selector: {{app: web}}
  ports: [{{port: 80, targetPort: 8080}}]
---
apiVersion: v1
kind: Pod
metadata: {{name: web-1, namespace: shop, resourceVersion: "2", labels: {{app: web}}}}
spec:
  restartPolicy: Always
  containers: [{{name: web, image: web:1}}]
status:
  phase: Running
  conditions: [{{type: Ready, status: "False"}}]
  containerStatuses:
  - name: web
    restartCount: 4
    state: {{waiting: {{reason: CrashLoopBackOff, message: "back-off restarting; last clone of {url} failed"}}}}
    lastState:
      terminated: {{reason: Error, message: "clone of {url} failed"}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: web, namespace: shop}}
spec:
  rules: [{{host: shop.example.com, http: {{paths: [{{path: /, pathType: Prefix, backend: {{service: {{name: web, port: {{number: 80}}}}}}}}]}}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: api, namespace: shop}}
spec:
  selector: {{matchLabels: {{app: api}}}}
  template:
    metadata: {{labels: {{app: api}}}}
    spec:
      containers:
      - name: api
        image: api:1
        env:
        - {{name: PASSWORD, value: {NUMBER}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: settings, namespace: shop}}
data:
  pin: {NUMBER}
"#
    )
}

#[test]
fn credentials_in_urls_and_status_text_are_masked_in_every_format() {
    let d = Dir::new();
    d.write("dump.yaml", status_dump());
    d.write(".edgecheck.toml", "repo-urls = [\"https://git.example.internal/acme/platform.git\"]\n");
    d.write("apps/shop/.keep", "");
    for format in FORMATS {
        let r = edgecheck(d.path(), &["lint", "--format", format, "."]);
        assert_ne!(r.code, 101, "panic: {}", r.stderr);
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(!all.contains(PASSWORD), "{format} output contains the password:\n{all}");
        assert!(!all.contains(NUMBER), "{format} output contains the value of a wrongly typed field:\n{all}");
        if format == "json" {
            let v = json(&r);
            let codes = codes(&v);
            // The findings that quote the URL and the status text are still there, masked.
            for code in ["GIT001", "GIT020", "GIT021", "GIT022", "BKD011", "LOD006"] {
                assert!(codes.contains(&code.to_string()), "{code} missing: {codes:?}");
            }
            let text = r.stdout.as_str();
            assert!(text.contains("https://bot:***@git.example.internal/acme/platform.git"), "{text}");
            let pod = v["objects"]
                .as_array()
                .expect("objects")
                .iter()
                .find(|o| o["kind"] == "Pod")
                .expect("the Pod in objects[]");
            let msg = pod["health_message"].as_str().expect("health_message");
            assert!(msg.contains("bot:***@"), "health_message masked, not dropped: {msg}");
            // LOD006 names the field and the type it should have.
            let lod006: Vec<&serde_json::Value> =
                v["findings"].as_array().expect("f").iter().filter(|f| f["code"] == "LOD006").collect();
            assert!(
                lod006.iter().any(|f| f["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("env[0].value") && m.contains("an integer, expected a string"))),
                "{lod006:#?}"
            );
            assert!(
                lod006.iter().any(|f| f["message"].as_str().is_some_and(|m| m.contains("data.pin"))),
                "the ConfigMap's numeric data is reported too: {lod006:#?}"
            );
        }
    }
    // trace shows the same objects on the path (the Application, the Pods): masked there too.
    for format in FORMATS {
        let r = edgecheck(
            d.path(),
            &["trace", "http://shop.example.com/", "--from", ".", "--no-probe", "--format", format],
        );
        assert_ne!(r.code, 101, "panic: {}", r.stderr);
        assert_ne!(r.code, 2, "{}", r.stderr);
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(!all.contains(PASSWORD), "trace {format} output contains the password:\n{all}");
    }
}

#[test]
fn control_characters_in_names_and_messages_are_escaped() {
    let d = Dir::new();
    // An OSC title change and a clear-screen in a name, and a bidi override in a status message.
    d.write(
        "evil.yaml",
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: \"web\\e]0;pwned\\a\\e[2J\"\n  namespace: shop\nspec:\n  ingressClassName: nope\n  rules: [{host: shop.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: \"svc\\e[31m\", port: {number: 80}}}}]}}]\n---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a, namespace: argocd, resourceVersion: \"1\"}\nspec: {destination: {namespace: shop}, source: {repoURL: https://x/y.git, path: p}}\nstatus:\n  sync: {status: Synced}\n  health: {status: Degraded, message: \"bad \\u202e gnp.exe\\e[2K\"}\n",
    );
    for format in FORMATS {
        // The diagrams draw diagnoses: trace the host, whose path runs through the hostile Ingress.
        let r = if matches!(format, "dot" | "mermaid") {
            edgecheck(d.path(), &["trace", "http://shop.example.com/", "--from", ".", "--no-probe", "--format", format])
        } else {
            edgecheck(d.path(), &["lint", "--format", format, "."])
        };
        assert_ne!(r.code, 101, "panic: {}", r.stderr);
        // JSON escapes control characters; a bidi override is printable there, and escaped by the human formats.
        let hostile: &[char] = if matches!(format, "json" | "sarif" | "gitlab") {
            &['\u{1b}', '\u{7}']
        } else {
            &['\u{1b}', '\u{7}', '\u{202e}']
        };
        for &c in hostile {
            assert!(!r.stdout.contains(c), "{format} output holds a raw {c:?}:\n{}", r.stdout);
            assert!(!r.stderr.contains(c), "{format} stderr holds a raw {c:?}:\n{}", r.stderr);
        }
        match format {
            // JSON keeps the real name, as JSON escapes (lossless for programs).
            "json" | "sarif" | "gitlab" => assert!(r.stdout.contains("\\u001b"), "{format}: {}", r.stdout),
            // The human formats show the escape.
            // Mermaid writes the backslash and braces as entities.
            "mermaid" => assert!(r.stdout.contains("#92;u#123;1b#125;"), "{format}: {}", r.stdout),
            _ => assert!(r.stdout.contains("\\u{1b}"), "{format}: {}", r.stdout),
        }
    }
    let r = edgecheck(d.path(), &["trace", "http://shop.example.com/", "--from", ".", "--no-probe"]);
    assert!(!r.stdout.contains('\u{1b}'), "{}", r.stdout);
}

/// Issue 19, item 8: a snippet of a line inside a Secret's `data` or `stringData` (or its
/// last-applied-configuration annotation) shows the key, never the value, in every text layout.
#[test]
fn snippets_never_show_a_secret_value() {
    let d = Dir::new();
    d.write(
        "secret.yaml",
        format!(
            r#"apiVersion: v1
kind: Secret
metadata:
  name: web-tls
  namespace: shop
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {{"data":{{"tls.key":"{PASSWORD}"}}}}
type: kubernetes.io/tls
data:
  tls.crt: {PASSWORD}!!
  tls.key: {PASSWORD}
stringData:
  token: {PASSWORD}
  config.yaml: |
    password: {PASSWORD}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: web, namespace: shop}}
spec:
  tls: [{{hosts: [shop.example.com], secretName: web-tls}}]
  rules: [{{host: shop.example.com, http: {{paths: [{{path: /, pathType: Prefix, backend: {{service: {{name: web, port: {{number: 80}}}}}}}}]}}}}]
"#
        ),
    );
    for args in [
        &["lint", "."][..],
        &["lint", "--format", "concise", "."],
        &["trace", "https://shop.example.com/", "--from", ".", "--no-probe"],
    ] {
        let r = edgecheck(d.path(), args);
        assert_ne!(r.code, 101, "panic: {}", r.stderr);
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(!all.contains(PASSWORD), "{args:?} shows a Secret value:\n{all}");
        if args.len() == 2 {
            assert!(all.contains("|   tls.crt: ***"), "the snippet shows the Secret's line, masked:\n{all}");
        }
    }
}
