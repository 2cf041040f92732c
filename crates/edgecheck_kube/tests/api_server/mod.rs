//! A test API server: a fake Kubernetes API on 127.0.0.1 that serves discovery (`/api`, `/apis`, each
//! group version) and list endpoints from fixture objects, paginates with `limit`/`continue`, answers
//! 403 for chosen resources, and records every request (a scan must send GETs only). [`Hostile`]
//! makes it answer as a broken or hostile API server does.
//!
//! Watches (`?watch=1`): every object carries a `resourceVersion` from one counter; lists answer with
//! the current one; a watch streams `{"type":..,"object":..}` lines of every change after the
//! resourceVersion it asks from ([`Server::create`], [`Server::update`], [`Server::delete`] make
//! them while a test runs), a `BOOKMARK` when idle for a second, ends after `timeoutSeconds`, and
//! answers a resourceVersion older than the last [`Server::compact`] with an `ERROR` event of code 410
//! (`Expired`), as etcd's compaction makes a real one do.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use edgecheck_core::Kind;
use serde_json::{json, Value};

/// What the server serves.
#[derive(Default)]
pub struct Cluster {
    /// Objects, as `kubectl get -o json` prints them (with apiVersion and kind).
    pub objects: Vec<Value>,
    /// Plurals (`secrets`) answered with 403.
    pub forbidden: Vec<String>,
    /// Extra, non-preferred versions served for a group (same kinds, same objects), as (group, version).
    pub older_versions: Vec<(String, String)>,
    /// How it misbehaves.
    pub hostile: Hostile,
}

/// A hostile or broken API server.
#[allow(dead_code)] // the module is shared with the CLI's tests, which use some of them
#[derive(Default, Clone, Debug)]
pub enum Hostile {
    /// Answers as a real one does.
    #[default]
    None,
    /// Lists of this plural always answer with a new continue token (and the first page again).
    EndlessTokens(&'static str),
    /// Lists of this plural always answer with the same continue token.
    SameToken(&'static str),
    /// `/apis` drips its answer a byte every 300 ms.
    DripDiscovery,
    /// Lists of this plural answer with a body that never ends (`{"items":[{},{},...`).
    EndlessBody(&'static str),
    /// Every list fails this way.
    FailLists(Failure),
}

/// How a list fails.
#[allow(dead_code)] // the module is shared with the CLI's tests, which use some of them
#[derive(Clone, Copy, Debug)]
pub enum Failure {
    /// 500 with a Status.
    Status500,
    /// `{"items": [` and then garbage.
    MalformedJson,
    /// A JSON body of the wrong shape (`items` a string).
    WrongTypes,
    /// A protobuf answer (`k8s\0...`), as a server answers `application/vnd.kubernetes.protobuf`.
    Protobuf,
    /// No answer at all.
    Stall,
}

/// A served kind.
#[derive(Clone)]
struct Served {
    group: String,
    kind: String,
    plural: String,
    namespaced: bool,
}

/// One change, as a watch streams it.
#[derive(Clone)]
struct Change {
    rv: u64,
    kind: &'static str,
    object: Value,
}

/// The objects as they are now, and their history.
struct Live {
    objects: Vec<Value>,
    /// The last resourceVersion given out.
    rv: u64,
    /// Changes since the start, oldest first.
    changes: Vec<Change>,
    /// Watches from a resourceVersion below this get 410.
    compacted: u64,
}

struct State {
    cluster: Cluster,
    live: Mutex<Live>,
    changed: tokio::sync::Notify,
    watches: AtomicUsize,
    /// group -> (preferred version, every version)
    groups: BTreeMap<String, (String, Vec<String>)>,
    kinds: Vec<Served>,
    requests: Mutex<Vec<String>>,
    non_get: AtomicUsize,
}

/// A running server; it stops with the test process.
pub struct Server {
    pub url: String,
    state: Arc<State>,
}

impl Server {
    /// Starts the server on 127.0.0.1 (a free port) in a thread of its own.
    pub fn start(cluster: Cluster) -> Server {
        let mut groups: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
        let mut kinds: Vec<Served> = Vec::new();
        for o in &cluster.objects {
            let av = o["apiVersion"].as_str().unwrap_or("v1");
            let kind = o["kind"].as_str().unwrap_or("");
            let (group, version) = av.rsplit_once('/').map_or(("", av), |(g, v)| (g, v));
            let entry = groups.entry(group.to_string()).or_insert_with(|| (version.to_string(), Vec::new()));
            if !entry.1.iter().any(|v| v == version) {
                entry.1.push(version.to_string());
            }
            if !kinds.iter().any(|k| k.group == group && k.kind == kind) {
                let namespaced = Kind { group: group.into(), kind: kind.into() }.namespaced();
                kinds.push(Served { group: group.into(), kind: kind.into(), plural: plural(kind), namespaced });
            }
        }
        for (g, v) in &cluster.older_versions {
            if let Some(e) = groups.get_mut(g) {
                e.1.push(v.clone());
            }
        }
        let mut objects = cluster.objects.clone();
        let mut rv = 100u64;
        for o in &mut objects {
            rv += 1;
            set_rv(o, rv);
        }
        let live = Mutex::new(Live { objects, rv, changes: Vec::new(), compacted: 0 });
        let state = Arc::new(State {
            cluster,
            live,
            changed: tokio::sync::Notify::new(),
            watches: AtomicUsize::new(0),
            groups,
            kinds,
            requests: Mutex::new(Vec::new()),
            non_get: AtomicUsize::new(0),
        });
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        listener.set_nonblocking(true).expect("nonblocking");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let s = state.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                let app = axum::Router::new().fallback(handle).with_state(s);
                let _ = axum::serve(listener, app).await;
            });
        });
        Server { url, state }
    }

    /// Every request, as `METHOD path?query`.
    pub fn requests(&self) -> Vec<String> {
        self.state.requests.lock().expect("lock").clone()
    }

    /// Requests that were not GET.
    pub fn non_get(&self) -> usize {
        self.state.non_get.load(Ordering::SeqCst)
    }

    /// Watch requests answered so far.
    #[allow(dead_code)]
    pub fn watches(&self) -> usize {
        self.state.watches.load(Ordering::SeqCst)
    }

    /// Adds an object (of a kind the server serves): an `ADDED` event.
    #[allow(dead_code)]
    pub fn create(&self, object: Value) {
        self.change("ADDED", object);
    }

    /// Replaces the object of the same kind, namespace and name: a `MODIFIED` event.
    #[allow(dead_code)]
    pub fn update(&self, object: Value) {
        self.change("MODIFIED", object);
    }

    /// Removes an object: a `DELETED` event.
    #[allow(dead_code)]
    pub fn delete(&self, api_version: &str, kind: &str, namespace: Option<&str>, name: &str) {
        let key = json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "namespace": namespace}});
        self.change("DELETED", key);
    }

    /// Forgets the history: a watch from an older resourceVersion gets 410 Gone.
    #[allow(dead_code)]
    pub fn compact(&self) {
        let mut live = self.state.live.lock().expect("lock");
        live.compacted = live.rv + 1;
        live.changes.clear();
        drop(live);
        self.state.changed.notify_waiters();
    }

    fn change(&self, kind: &'static str, mut object: Value) {
        let mut live = self.state.live.lock().expect("lock");
        live.rv += 1;
        let rv = live.rv;
        let same = |o: &Value| {
            o["apiVersion"] == object["apiVersion"]
                && o["kind"] == object["kind"]
                && o["metadata"]["name"] == object["metadata"]["name"]
                && o["metadata"]["namespace"].as_str().unwrap_or("")
                    == object["metadata"]["namespace"].as_str().unwrap_or("")
        };
        let at = live.objects.iter().position(same);
        match (kind, at) {
            ("DELETED", Some(i)) => {
                let mut old = live.objects.remove(i);
                set_rv(&mut old, rv);
                object = old;
            }
            ("DELETED", None) => panic!("delete: no such object {object}"),
            (_, Some(i)) => {
                set_rv(&mut object, rv);
                live.objects[i] = object.clone();
            }
            (_, None) => {
                set_rv(&mut object, rv);
                live.objects.push(object.clone());
            }
        }
        let kind = if kind == "ADDED" && at.is_some() { "MODIFIED" } else { kind };
        live.changes.push(Change { rv, kind, object });
        drop(live);
        self.state.changed.notify_waiters();
    }

    /// A kubeconfig pointing at the server, written to `dir`.
    pub fn kubeconfig(&self, dir: &std::path::Path) -> std::path::PathBuf {
        let text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: {}\n\
             contexts:\n- name: test-ctx\n  context:\n    cluster: test\n    user: test\n    namespace: shop\n\
             current-context: test-ctx\nusers:\n- name: test\n  user:\n    token: not-a-secret\n",
            self.url
        );
        let path = dir.join("kubeconfig");
        std::fs::write(&path, text).expect("write kubeconfig");
        path
    }
}

fn set_rv(o: &mut Value, rv: u64) {
    if let Some(Value::Object(m)) = o.get_mut("metadata") {
        m.insert("resourceVersion".into(), json!(rv.to_string()));
    }
}

fn plural(kind: &str) -> String {
    let l = kind.to_ascii_lowercase();
    if l == "endpoints" {
        l
    } else if l.ends_with('s') {
        format!("{l}es")
    } else if let Some(stem) = l.strip_suffix('y').filter(|s| !s.ends_with(['a', 'e', 'o', 'u'])) {
        format!("{stem}ies")
    } else {
        format!("{l}s")
    }
}

async fn handle(axum::extract::State(s): axum::extract::State<Arc<State>>, method: Method, uri: Uri) -> Response {
    s.requests.lock().expect("lock").push(format!("{method} {uri}"));
    if method != Method::GET {
        s.non_get.fetch_add(1, Ordering::SeqCst);
        return (StatusCode::METHOD_NOT_ALLOWED, "read-only test server").into_response();
    }
    let path = uri.path().trim_end_matches('/');
    if matches!(s.cluster.hostile, Hostile::DripDiscovery) && path == "/apis" {
        return drip(b"{\"kind\":\"APIGroupList\",\"groups\":[]}");
    }
    let query: BTreeMap<&str, &str> =
        uri.query().unwrap_or("").split('&').filter_map(|kv| kv.split_once('=')).collect();
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segs.as_slice() {
        ["api"] => {
            Json(json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})).into_response()
        }
        ["apis"] => {
            let groups: Vec<Value> = s
                .groups
                .iter()
                .filter(|(g, _)| !g.is_empty())
                .map(|(g, (pref, versions))| {
                    json!({
                        "name": g,
                        "versions": versions.iter().map(|v| json!({"groupVersion": format!("{g}/{v}"), "version": v})).collect::<Vec<_>>(),
                        "preferredVersion": {"groupVersion": format!("{g}/{pref}"), "version": pref},
                    })
                })
                .collect();
            Json(json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})).into_response()
        }
        ["api", "v1"] => resource_list(&s, "", "v1"),
        ["apis", g, v] => resource_list(&s, g, v),
        ["api", "v1", rest @ ..] => list(&s, "", "v1", rest, &query),
        ["apis", g, v, rest @ ..] => list(&s, g, v, rest, &query),
        _ => not_found(),
    }
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, Json(json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404, "message": "not found"}))).into_response()
}

fn resource_list(s: &State, group: &str, version: &str) -> Response {
    let Some((_, versions)) = s.groups.get(group) else { return not_found() };
    if !versions.iter().any(|v| v == version) {
        return not_found();
    }
    let gv = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    let resources: Vec<Value> = s
        .kinds
        .iter()
        .filter(|k| k.group == group)
        .map(|k| {
            json!({"name": k.plural, "singularName": k.kind.to_ascii_lowercase(), "namespaced": k.namespaced,
                   "kind": k.kind, "verbs": ["get", "list", "watch", "create", "delete"]})
        })
        .collect();
    Json(json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}))
        .into_response()
}

fn list(s: &Arc<State>, group: &str, version: &str, rest: &[&str], query: &BTreeMap<&str, &str>) -> Response {
    let (namespace, plural) = match rest {
        [p] => (None, *p),
        ["namespaces", ns, p] => (Some(*ns), *p),
        _ => return not_found(),
    };
    let Some(k) = s.kinds.iter().find(|k| k.group == group && k.plural == plural) else { return not_found() };
    if let Some(r) = hostile_list(&s.cluster.hostile, plural, query) {
        return r;
    }
    if s.cluster.forbidden.iter().any(|f| f == plural) {
        let msg = format!("{plural} is forbidden: User \"scanner\" cannot list resource \"{plural}\" in API group \"{group}\" at the cluster scope");
        return (StatusCode::FORBIDDEN, Json(json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403, "message": msg}))).into_response();
    }
    if query.get("watch").is_some_and(|w| *w == "1" || *w == "true") {
        return watch(s, group, k.kind.clone(), namespace.map(str::to_string), query);
    }
    let gv = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    let live = s.live.lock().expect("lock");
    let current_rv = live.rv;
    let all: Vec<Value> = live
        .objects
        .iter()
        .filter(|o| {
            let av = o["apiVersion"].as_str().unwrap_or("");
            av.rsplit_once('/').map_or("", |(g, _)| g) == group && o["kind"] == k.kind.as_str()
        })
        .filter(|o| namespace.is_none_or(|ns| o["metadata"]["namespace"] == ns))
        .filter(|o| field_selector_matches(query.get("fieldSelector").copied(), o))
        .map(|o| {
            // Items of a list carry no apiVersion/kind, as a real API server sends them.
            let mut o = o.clone();
            if let Value::Object(m) = &mut o {
                m.remove("apiVersion");
                m.remove("kind");
            }
            o
        })
        .collect();
    drop(live);
    let start: usize = query.get("continue").and_then(|c| c.parse().ok()).unwrap_or(0);
    let limit: usize = query.get("limit").and_then(|c| c.parse().ok()).unwrap_or(usize::MAX);
    let end = start.saturating_add(limit).min(all.len());
    let items = all.get(start.min(end)..end).unwrap_or(&[]).to_vec();
    let mut meta = json!({"resourceVersion": current_rv.to_string()});
    if end < all.len() {
        meta["continue"] = json!(end.to_string());
    }
    Json(json!({"kind": format!("{}List", k.kind), "apiVersion": gv, "metadata": meta, "items": items})).into_response()
}

/// A watch of one kind from `resourceVersion`: the changes after it, as lines, then every new one.
fn watch(
    s: &Arc<State>,
    group: &str,
    kind: String,
    namespace: Option<String>,
    query: &BTreeMap<&str, &str>,
) -> Response {
    s.watches.fetch_add(1, Ordering::SeqCst);
    let from: u64 = query.get("resourceVersion").and_then(|v| v.parse().ok()).unwrap_or(0);
    let timeout = query.get("timeoutSeconds").and_then(|v| v.parse::<u64>().ok()).unwrap_or(290);
    let bookmarks = query.get("allowWatchBookmarks").is_some_and(|v| *v == "true");
    let selector = query.get("fieldSelector").map(|v| v.to_string());
    let group = group.to_string();
    let state = s.clone();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(timeout);
    let stream = futures::stream::unfold((from, false), move |(mut last, gone)| {
        let (group, kind, namespace, selector) = (group.clone(), kind.clone(), namespace.clone(), selector.clone());
        let state = state.clone();
        async move {
            if gone {
                return None;
            }
            loop {
                let notified = state.changed.notified();
                {
                    let live = state.live.lock().expect("lock");
                    if last < live.compacted {
                        let status = json!({"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                            "message": format!("too old resource version: {last} ({})", live.compacted), "reason": "Expired", "code": 410}});
                        return Some((Ok::<_, std::io::Error>(line(&status)), (last, true)));
                    }
                    let mut out = Vec::new();
                    let from = last;
                    for c in live.changes.iter().filter(|c| c.rv > from) {
                        last = c.rv;
                        let o = &c.object;
                        let av = o["apiVersion"].as_str().unwrap_or("");
                        if av.rsplit_once('/').map_or("", |(g, _)| g) != group || o["kind"] != kind.as_str() {
                            continue;
                        }
                        if namespace.as_deref().is_some_and(|ns| o["metadata"]["namespace"] != ns) {
                            continue;
                        }
                        if !field_selector_matches(selector.as_deref(), o) {
                            continue;
                        }
                        out.extend_from_slice(&line(&json!({"type": c.kind, "object": o})));
                    }
                    if live.rv > last && live.changes.last().is_none_or(|c| c.rv <= last) {
                        last = live.rv;
                    }
                    if !out.is_empty() {
                        return Some((Ok(axum::body::Bytes::from(out)), (last, false)));
                    }
                }
                let now = tokio::time::Instant::now();
                if now >= deadline {
                    return None;
                }
                let wait = (deadline - now).min(std::time::Duration::from_secs(1));
                if tokio::time::timeout(wait, notified).await.is_err()
                    && bookmarks
                    && tokio::time::Instant::now() < deadline
                {
                    let rv = last;
                    let bm = json!({"type": "BOOKMARK", "object": {"kind": kind, "apiVersion": "v1", "metadata": {"resourceVersion": rv.to_string()}}});
                    return Some((Ok(line(&bm)), (rv, false)));
                }
            }
        }
    });
    ([("content-type", "application/json")], axum::body::Body::from_stream(stream)).into_response()
}

fn line(v: &Value) -> axum::body::Bytes {
    let mut b = serde_json::to_vec(v).expect("json");
    b.push(b'\n');
    axum::body::Bytes::from(b)
}

/// The one field selector a scan sends: `type!=X` (URL-encoded).
fn field_selector_matches(selector: Option<&str>, o: &Value) -> bool {
    let Some(sel) = selector else { return true };
    let sel = sel.replace("%21", "!").replace("%3D", "=").replace("%2F", "/");
    match sel.strip_prefix("type!=") {
        Some(t) => o["type"].as_str() != Some(t),
        None => true,
    }
}

/// The answer of a hostile server to a list of `plural`, if it misbehaves there.
fn hostile_list(h: &Hostile, plural: &str, query: &BTreeMap<&str, &str>) -> Option<Response> {
    let json = |body: Value| Some(Json(body).into_response());
    match h {
        Hostile::EndlessTokens(p) if *p == plural => {
            let n: u64 = query.get("continue").and_then(|c| c.parse().ok()).unwrap_or(0);
            json(json!({"kind": "List", "metadata": {"continue": (n + 1).to_string()}, "items": [{"metadata": {"name": format!("page-{n}"), "namespace": "shop", "uid": format!("u{n}")}}]}))
        }
        Hostile::SameToken(p) if *p == plural => {
            json(json!({"kind": "List", "metadata": {"continue": "again"}, "items": []}))
        }
        Hostile::EndlessBody(p) if *p == plural => {
            let head = futures::stream::once(async { Ok::<_, std::io::Error>(bytes(b"{\"items\":[")) });
            let chunk: Vec<u8> = b"{},".repeat(64 * 1024);
            let tail = futures::stream::repeat_with(move || Ok(bytes(&chunk)));
            Some(axum::body::Body::from_stream(futures::StreamExt::chain(head, tail)).into_response())
        }
        Hostile::FailLists(f) => Some(match f {
            Failure::Status500 => (
                StatusCode::INTERNAL_SERVER_ERROR,
                Json(json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "InternalError", "code": 500, "message": "etcdserver: request timed out"})),
            )
                .into_response(),
            Failure::MalformedJson => ([("content-type", "application/json")], "{\"items\": [{\"metadata\": ").into_response(),
            Failure::WrongTypes => Json(json!({"kind": "List", "metadata": {}, "items": "not-a-list"})).into_response(),
            Failure::Protobuf => {
                ([("content-type", "application/vnd.kubernetes.protobuf")], b"k8s\0\n\x0b\n\x02v1\x12\x04List".to_vec())
                    .into_response()
            }
            Failure::Stall => drip(b""),
        }),
        _ => None,
    }
}

fn bytes(b: &[u8]) -> axum::body::Bytes {
    axum::body::Bytes::copy_from_slice(b)
}

/// A 200 whose body comes a byte every 300 ms, then never ends.
fn drip(body: &'static [u8]) -> Response {
    let stream = futures::stream::unfold(0usize, move |i| async move {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        if i < body.len() {
            Some((Ok::<_, std::io::Error>(bytes(&body[i..=i])), i + 1))
        } else {
            // Silence forever after the body (a server that never finishes its answer).
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
            None
        }
    });
    ([("content-type", "application/json")], axum::body::Body::from_stream(stream)).into_response()
}
