//! `edgecheck serve` against the test API server of edgecheck_kube's tests (with watches), a loopback
//! HTTPS endpoint (test PKI generated here), a real Prometheus scraping it, and the binary run as a
//! non-root user with nothing writable.

use std::io::{BufRead as _, Read as _, Write as _};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::scan::api_server::{Cluster, Server};
use base64::Engine as _;
use serde_json::{json, Value};

use crate::support::{Dir, Pki};

/// A secret value planted in a Secret and in an Application's status: no endpoint may show it.
const PLANTED: &str = "PLANTED-S3CRET-4d1e";

/// A test PKI: a root and a leaf for `*.example.com`.
fn pki() -> Pki {
    crate::support::pki("Serve Test Root", &["*.example.com"])
}

/// A loopback HTTPS server answering 200 until `stop` is set; then its port refuses connections.
fn https_server(p: &Pki) -> (u16, Arc<AtomicBool>) {
    let cfg = p.server_config();
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.set_nonblocking(true).expect("nonblocking");
    let port = l.local_addr().expect("addr").port();
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        while !stopped.load(Ordering::SeqCst) {
            let Ok((s, _)) = l.accept() else {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            };
            let _ = s.set_nonblocking(false);
            let cfg = cfg.clone();
            std::thread::spawn(move || {
                let Ok(conn) = rustls::ServerConnection::new(cfg) else { return };
                let mut tls = rustls::StreamOwned::new(conn, s);
                let mut buf = [0u8; 4096];
                if tls.read(&mut buf).is_ok() {
                    let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
                    tls.conn.send_close_notify();
                    let _ = tls.flush();
                }
            });
        }
        // The listener is dropped here: the port now refuses.
    });
    (port, stop)
}

/// A healthy cluster: a Gateway (Envoy Gateway) terminating TLS for `*.example.com` with a Secret holding
/// the PKI's leaf, an HTTPRoute for shop.example.com to a Service of a Deployment; a ConfigMap (its kind
/// is refused when asked), an Opaque Secret and an Argo CD Application that carry the planted secret.
fn objects(p: &Pki) -> Vec<Value> {
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "edge"}}),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "argocd"}}),
        json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass", "metadata": {"name": "eg"},
               "spec": {"controllerName": "gateway.envoyproxy.io/gatewayclass-controller"}}),
        json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
               "metadata": {"name": "public", "namespace": "edge"},
               "spec": {"gatewayClassName": "eg", "listeners": [{"name": "https", "port": 443, "protocol": "HTTPS",
                   "hostname": "*.example.com", "allowedRoutes": {"namespaces": {"from": "All"}},
                   "tls": {"mode": "Terminate", "certificateRefs": [{"name": "wildcard-tls"}]}}]}}),
        json!({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
               "metadata": {"name": "wildcard-tls", "namespace": "edge"},
               "data": {"tls.crt": b64(&format!("{}{}", p.leaf, p.root)), "tls.key": b64(&p.key)}}),
        json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
               "metadata": {"name": "db", "namespace": "shop"},
               "data": {"password": b64(PLANTED)}}),
        route("shop", "shop.example.com", "shop"),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "shop", "namespace": "shop"},
               "spec": {"selector": {"app": "shop"}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "shop", "namespace": "shop"},
               "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "shop"}},
                   "template": {"metadata": {"labels": {"app": "shop"}}, "spec": {"containers": [{"name": "shop",
                       "image": "ghcr.io/acme/shop:1.4.2", "ports": [{"name": "http", "containerPort": 8080}],
                       "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"}}}]}}}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "shop"},
               "data": {"a": "b"}}),
        json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": {"name": "shop", "namespace": "argocd"},
               "spec": {"project": "default", "source": {"repoURL": "https://git.example.com/shop.git", "path": "deploy"},
                        "destination": {"server": "https://kubernetes.default.svc", "namespace": "shop"}},
               "status": {"sync": {"status": "Unknown"}, "health": {"status": "Healthy"},
                   "conditions": [{"type": "ComparisonError",
                       "message": format!("rpc error: failed to fetch https://deploy:{PLANTED}@git.example.com/shop.git: authentication required")}]}}),
    ]
}

fn route(name: &str, host: &str, service: &str) -> Value {
    json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "metadata": {"name": name, "namespace": "shop"},
           "spec": {"parentRefs": [{"name": "public", "namespace": "edge", "sectionName": "https"}],
                    "hostnames": [host], "rules": [{"backendRefs": [{"name": service, "port": 80}]}]}})
}

/// A running `edgecheck serve`, killed when dropped.
struct Serve {
    child: Child,
    addr: String,
    log: Arc<Mutex<String>>,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serve {
    fn start(cmd: &mut Command) -> Serve {
        let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("spawn edgecheck serve");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let l = log.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(a) = line.strip_prefix("edgecheck: listening on ") {
                    let _ = tx.send(a.to_string());
                }
                let mut log = l.lock().expect("log");
                log.push_str(&line);
                log.push('\n');
            }
        });
        let addr = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(a) => a,
            Err(_) => {
                let _ = child.kill();
                panic!("serve did not listen within 60 s:\n{}", log.lock().expect("log"));
            }
        };
        Serve { child, addr, log }
    }

    fn log(&self) -> String {
        self.log.lock().expect("log").clone()
    }

    fn get(&self, path: &str) -> (u16, String) {
        get(&self.addr, path)
    }

    /// Waits up to `secs` for `ok` over the answer of `path`; panics with the last answer and the log.
    fn wait(&self, what: &str, path: &str, secs: u64, ok: impl Fn(u16, &str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let (code, body) = self.get(path);
            if ok(code, &body) {
                return body;
            }
            if start.elapsed() > Duration::from_secs(secs) {
                panic!("{what}: not within {secs} s; last {path} ({code}):\n{body}\n--- log:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// One HTTP/1.1 GET: (status, body).
fn get(addr: &str, path: &str) -> (u16, String) {
    let Ok(mut s) = std::net::TcpStream::connect(addr) else { return (0, String::new()) };
    let _ = s.set_read_timeout(Some(Duration::from_secs(60)));
    let _ = write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let code = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (code, body)
}

/// The value of the sample `name{labels}` (labels as printed, in order), if present.
fn sample(metrics: &str, series: &str) -> Option<f64> {
    metrics.lines().find_map(|l| l.strip_prefix(series).and_then(|v| v.strip_prefix(' ')).and_then(|v| v.parse().ok()))
}

fn serve_cmd(dir: &std::path::Path, kubeconfig: &std::path::Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_edgecheck"));
    cmd.current_dir(dir)
        .env("NO_COLOR", "1")
        .args(["serve", "--no-config", "--listen", "127.0.0.1:0", "--debounce", "200ms", "--kubeconfig"])
        .arg(kubeconfig)
        .args(extra);
    cmd
}

#[test]
fn serve_follows_the_cluster_through_its_watch_and_its_metrics_follow() {
    let d = Dir::new();
    let p = pki();
    d.write("ca.pem", &p.root);
    let (port, stop) = https_server(&p);
    let server =
        Server::start(Cluster { objects: objects(&p), forbidden: vec!["configmaps".into()], ..Default::default() });
    let kc = server.kubeconfig(d.path());
    let connect = format!("shop.example.com:443:127.0.0.1:{port}");
    let s = Serve::start(&mut serve_cmd(
        d.path(),
        &kc,
        &["--probe-interval", "1s", "--connect-to", &connect, "--cacert", "ca.pem", "--probe-exclude", "api.*"],
    ));
    // Not ready answers 503 until the first sync and evaluation; then ready.
    s.wait("ready", "/readyz", 60, |c, _| c == 200);
    assert_eq!(s.get("/healthz").0, 200);
    let ok = "edgecheck_host_ok{host=\"shop.example.com\",layer=\"none\"}";
    let m = s.wait("the probe of shop.example.com", "/metrics", 30, |_, m| {
        sample(m, "edgecheck_probe_success{host=\"shop.example.com\",phase=\"total\"}") == Some(1.0)
    });
    assert_eq!(sample(&m, ok), Some(1.0), "{m}");
    assert_eq!(sample(&m, "edgecheck_ready"), Some(1.0));
    assert_eq!(sample(&m, "edgecheck_inventory_objects{kind=\"HTTPRoute.gateway.networking.k8s.io\"}"), Some(1.0));
    assert_eq!(sample(&m, "edgecheck_inventory_objects{kind=\"ConfigMap\"}"), Some(0.0), "{m}");
    // The served leaf and the Secret's are the same certificate.
    let served =
        sample(&m, "edgecheck_certificate_expiry_timestamp_seconds{host=\"shop.example.com\",source=\"served\"}");
    let secret =
        sample(&m, "edgecheck_certificate_expiry_timestamp_seconds{host=\"shop.example.com\",source=\"secret\"}");
    assert!(served.is_some() && served == secret, "{m}");
    assert!(sample(&m, "edgecheck_api_errors_total{kind=\"ConfigMap\",code=\"403\"}").is_some_and(|n| n >= 1.0), "{m}");
    // The refused kind is "could not check" (LOD007), in the JSON report that follows the schema.
    let (code, report) = s.get("/report.json");
    assert_eq!(code, 200);
    let v: Value = serde_json::from_str(&report).expect("report.json");
    crate::schema::assert_valid(&v);
    assert!(
        v["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["code"] == "LOD007" && f["message"].as_str().is_some_and(|m| m.contains("ConfigMap"))),
        "{report}"
    );
    assert!(s.log().contains("could not check ConfigMap (v1): forbidden"), "{}", s.log());
    let (code, html) = s.get("/report");
    assert!(code == 200 && html.contains("<html") && html.contains("shop.example.com"), "{code}");

    // Created: a new host appears without a restart.
    server.create(route("api", "api.example.com", "shop"));
    let api_ok = "edgecheck_host_ok{host=\"api.example.com\",layer=\"none\"}";
    s.wait("the created route", "/metrics", 30, |_, m| sample(m, api_ok) == Some(1.0));
    // Changed: it claims another host now. (Its backend going missing would only be a warning here: with
    // ConfigMaps refused the inventory is not complete, so absence is not an error.)
    server.update(route("api", "api2.example.com", "shop"));
    let api2_ok = "edgecheck_host_ok{host=\"api2.example.com\",layer=\"none\"}";
    let m = s.wait("the changed route", "/metrics", 30, |_, m| sample(m, api2_ok) == Some(1.0));
    assert!(!m.contains("host=\"api.example.com\""), "the old host's series is gone: {m}");
    // History compacted: the watch answers 410 and serve lists again, then deletes what was deleted.
    server.compact();
    server.delete("gateway.networking.k8s.io/v1", "HTTPRoute", Some("shop"), "api");
    let m = s.wait("the deleted route", "/metrics", 30, |_, m| !m.contains("host=\"api2.example.com\""));
    assert_eq!(sample(&m, "edgecheck_inventory_objects{kind=\"HTTPRoute.gateway.networking.k8s.io\"}"), Some(1.0));
    assert!(
        sample(&m, "edgecheck_api_errors_total{kind=\"HTTPRoute.gateway.networking.k8s.io\",code=\"410\"}")
            .is_some_and(|n| n >= 1.0),
        "{m}"
    );

    // /trace: a claimed host gives trace's JSON; anything else is refused.
    let (code, body) = s.get("/trace?url=https%3A%2F%2Fshop.example.com%2F");
    assert_eq!(code, 200, "{body}");
    let t: Value = serde_json::from_str(&body).expect("trace json");
    crate::schema::assert_valid(&t);
    assert_eq!(t["diagnoses"][0]["target"], "https://shop.example.com/");
    assert_eq!(t["diagnoses"][0]["verdict"], "ok", "{body}");
    for url in ["https://169.254.169.254/latest/", "https://internal.example.net/", "http://127.0.0.1:9/"] {
        let (code, body) = s.get(&format!("/trace?url={url}"));
        assert_eq!(code, 403, "{url}: {body}");
        assert!(body.contains("not claimed"), "{body}");
    }
    assert_eq!(s.get("/trace?url=ftp://x/").0, 400);
    assert_eq!(s.get(&format!("/trace?url=https://{}/", "a".repeat(5000))).0, 414);

    // Nothing shows the planted secret: not the Secret's value, not the password in the Application's status.
    for path in ["/metrics", "/report", "/report.json", "/trace?url=https://shop.example.com/"] {
        let (_, body) = s.get(path);
        assert!(!body.contains(PLANTED), "{path} shows the planted secret");
    }
    assert!(!s.log().contains(PLANTED));

    // The endpoint breaks: its host's metric flips to the listener layer.
    stop.store(true, Ordering::SeqCst);
    let broken = "edgecheck_host_ok{host=\"shop.example.com\",layer=\"listener\"}";
    let m = s.wait("the broken endpoint", "/metrics", 30, |_, m| sample(m, broken) == Some(0.0));
    assert_eq!(sample(&m, ok), None);
    assert!(sample(&m, "edgecheck_probes_total{result=\"failed\"}").is_some_and(|n| n >= 1.0));
    // Read-only: the API server saw GETs only (lists and watches).
    assert_eq!(server.non_get(), 0);
    assert!(server.requests().iter().all(|r| r.starts_with("GET ")));
    assert!(server.watches() > 0);
}

/// The prometheus and promtool binaries, or a failure that says how to install them.
fn prometheus_tools() -> (String, String) {
    let find = |name: &str| {
        std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .map(|d| d.join(name))
            .find(|p| p.is_file())
            .map(|p| p.display().to_string())
    };
    match (find("prometheus"), find("promtool")) {
        (Some(p), Some(t)) => (p, t),
        _ => panic!(
            "prometheus and promtool are needed by this test: `apt-get install -y prometheus` (Debian), or \
             scripts/test.sh installs them"
        ),
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

#[test]
fn prometheus_scrapes_serve_and_finds_the_broken_host_with_its_layer() {
    let (prometheus, promtool) = prometheus_tools();
    let d = Dir::new();
    let p = pki();
    let server = Server::start(Cluster { objects: objects(&p), ..Default::default() });
    let kc = server.kubeconfig(d.path());
    // Nothing listens where shop.example.com is sent: broken at the listener.
    let connect = format!("shop.example.com:443:127.0.0.1:{}", free_port());
    let s = Serve::start(&mut serve_cmd(d.path(), &kc, &["--probe-interval", "1s", "--connect-to", &connect]));
    let m = s.wait("the broken host", "/metrics", 60, |_, m| {
        sample(m, "edgecheck_host_ok{host=\"shop.example.com\",layer=\"listener\"}") == Some(0.0)
    });
    // promtool's linter accepts the exposition.
    let mut check = Command::new(&promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool");
    check.stdin.take().expect("stdin").write_all(m.as_bytes()).expect("write");
    let out = check.wait_with_output().expect("promtool");
    assert!(
        out.status.success(),
        "promtool check metrics:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // A real Prometheus scrapes it every second.
    let web = format!("127.0.0.1:{}", free_port());
    let config = d.write(
        "prometheus.yml",
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: edgecheck\n    \
             static_configs:\n      - targets: ['{}']\n",
            s.addr
        ),
    );
    let storage = d.path().join("tsdb");
    let mut prom = Command::new(&prometheus)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--storage.tsdb.path={}", storage.display()))
        .arg(format!("--web.listen-address={web}"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prometheus");
    let start = Instant::now();
    let found = loop {
        let (code, body) = get(&web, "/api/v1/query?query=edgecheck_host_ok%3D%3D0");
        if code == 200 {
            let v: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            let hit = v["data"]["result"].as_array().and_then(|r| {
                r.iter().find(|x| x["metric"]["host"] == "shop.example.com").map(|x| x["metric"].clone())
            });
            if let Some(h) = hit {
                break h;
            }
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = prom.kill();
            let mut err = String::new();
            let _ = prom.stderr.take().map(|mut e| e.read_to_string(&mut err));
            panic!("Prometheus did not return the broken host within 60 s ({code}: {body})\n{err}");
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    let _ = prom.kill();
    let _ = prom.wait();
    assert_eq!(found["layer"], "listener", "{found}");
    assert_eq!(found["job"], "edgecheck");
}

#[test]
fn serve_runs_as_a_non_root_user_with_nothing_writable() {
    let d = Dir::new();
    let server = Server::start(Cluster { objects: objects(&pki()), ..Default::default() });
    let kc = server.kubeconfig(d.path());
    // A read-only working directory anyone may enter; the kubeconfig readable by all.
    let ro = d.path().join("ro");
    std::fs::create_dir(&ro).expect("mkdir");
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::set_permissions(&kc, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let root = Command::new("id").arg("-u").output().map(|o| o.stdout == b"0\n").unwrap_or(false);
    let mut cmd = if root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]).arg(env!("CARGO_BIN_EXE_edgecheck"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_edgecheck"))
    };
    cmd.current_dir(&ro)
        .env_remove("HOME")
        .env_remove("KUBECONFIG")
        .env_remove("XDG_CACHE_HOME")
        .env("NO_COLOR", "1")
        .args(["serve", "--listen", "127.0.0.1:0", "--debounce", "200ms", "--no-probe", "--kubeconfig"])
        .arg(&kc);
    let s = Serve::start(&mut cmd);
    s.wait("ready as a non-root user", "/readyz", 60, |c, _| c == 200);
    let (code, m) = s.get("/metrics");
    assert_eq!(code, 200);
    assert_eq!(sample(&m, "edgecheck_ready"), Some(1.0), "{m}");
    assert!(m.contains("edgecheck_host_ok{host=\"shop.example.com\""), "{m}");
    if root {
        let uid = Command::new("ps").args(["-o", "uid=", "-p", &s.child.id().to_string()]).output().expect("ps");
        assert_eq!(String::from_utf8_lossy(&uid.stdout).trim(), "65534");
    }
    let entries = std::fs::read_dir(&ro).expect("ro").count();
    assert_eq!(entries, 0, "serve wrote into its working directory");
}

#[test]
fn rbac_watch_grants_get_list_watch_and_nothing_else() {
    let d = Dir::new();
    let r = crate::support::edgecheck(d.path(), &["rbac", "--watch"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let verbs: Vec<&str> = r.stdout.lines().filter(|l| l.trim_start().starts_with("verbs:")).collect();
    assert!(!verbs.is_empty());
    assert!(verbs.iter().all(|l| l.trim() == "verbs: [\"get\", \"list\", \"watch\"]"), "{}", r.stdout);
    assert!(r.stdout.contains("name: edgecheck-scan"));
    let plain = crate::support::edgecheck(d.path(), &["rbac"]);
    assert!(!plain.stdout.contains("watch"), "{}", plain.stdout);
    // The same rules otherwise.
    let rules = |s: &str| {
        s.lines().filter(|l| l.contains("apiGroups") || l.contains("resources")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(rules(&r.stdout), rules(&plain.stdout));
}

#[test]
fn serve_bad_usage_is_exit_2() {
    let d = Dir::new();
    for args in [
        &["serve", "--listen", "nowhere"][..],
        &["serve", "--connect-to", "a:443:127.0.0.1"],
        &["serve", "--debounce", "soon"],
        &["serve", "--kubeconfig", "no-such-file", "--listen", "127.0.0.1:0"],
    ] {
        let r = crate::support::edgecheck(d.path(), args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
    }
}

/// CPU seconds (user + system) and (VmRSS, VmHWM) in MB of a process, from /proc.
fn usage(pid: u32) -> (f64, f64, f64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest.split_whitespace().map(|x| x.parse().unwrap_or(0.0)).collect();
    let ticks = 100.0; // USER_HZ on Linux
    let cpu = (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / ticks;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb = |key: &str| {
        status.lines().find_map(|l| l.strip_prefix(key)).and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
    };
    (cpu, kb("VmRSS:").unwrap_or(0.0) / 1024.0, kb("VmHWM:").unwrap_or(0.0) / 1024.0)
}

/// The benchmark of `benches/serve.sh`: `SERVE_OBJECTS` objects (default 10,000: Services, Secrets with data,
/// and an HTTPRoute claiming a host for every tenth Service) served by the test API server; `serve`
/// (not probing) becomes ready, then `SERVE_CHANGES` (default 10) changes, each waited for, trigger as many
/// evaluations. Prints serve's RSS (its own process: the test API server is not in it) and CPU per evaluation.
#[test]
#[ignore = "benchmark"]
fn serve_benchmark() {
    let n: usize = std::env::var("SERVE_OBJECTS").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let changes: usize = std::env::var("SERVE_CHANGES").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let d = Dir::new();
    let mut objects = objects(&pki());
    for i in 0..n.saturating_sub(objects.len()) {
        let o = match i % 10 {
            0 => route(&format!("r{i}"), &format!("h{i}.example.com"), &format!("s{}", i + 1)),
            1..=3 => json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                            "metadata": {"name": format!("s{i}"), "namespace": "shop"},
                            "data": {"password": base64::engine::general_purpose::STANDARD.encode(format!("secret-{i}"))}}),
            _ => {
                json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": format!("s{i}"), "namespace": "shop"},
                        "spec": {"selector": {"app": "shop"}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]}})
            }
        };
        objects.push(o);
    }
    let total = objects.len();
    let server = Server::start(Cluster { objects, ..Default::default() });
    let kc = server.kubeconfig(d.path());
    let t0 = Instant::now();
    let s = Serve::start(&mut serve_cmd(d.path(), &kc, &["--no-probe"]));
    s.wait("ready", "/readyz", 600, |c, _| c == 200);
    let t_ready = t0.elapsed();
    let pid = s.child.id();
    let evaluations = |m: &str| sample(m, "edgecheck_evaluations_total").unwrap_or(0.0);
    let (_, m) = s.get("/metrics");
    let (e0, (cpu0, rss0, _)) = (evaluations(&m), usage(pid));
    let hosts = m.lines().filter(|l| l.starts_with("edgecheck_host_ok{")).count();
    let mut durations = Vec::new();
    for c in 0..changes {
        server.update(route("r0", &format!("changed{c}.example.com"), "s1"));
        let want = format!("host=\"changed{c}.example.com\"");
        let m = s.wait("an evaluation", "/metrics", 600, |_, m| m.contains(&want));
        durations.push(sample(&m, "edgecheck_evaluation_duration_seconds").unwrap_or(0.0));
    }
    let (_, m) = s.get("/metrics");
    let (e1, (cpu1, rss1, hwm)) = (evaluations(&m), usage(pid));
    let runs = (e1 - e0).max(1.0);
    durations.sort_by(f64::total_cmp);
    println!(
        "{total} objects, {hosts} hosts: ready in {t_ready:.2?}; {runs} evaluations: CPU {:.3} s per evaluation, \
         median wall {:.3} s",
        (cpu1 - cpu0) / runs,
        durations.get(durations.len() / 2).copied().unwrap_or(0.0)
    );
    println!("serve RSS: {rss0:.0} MB after the first sync, {rss1:.0} MB after {runs} evaluations; peak {hwm:.0} MB");
}
