//! Loads live objects from a Kubernetes cluster into an edgecheck [`Inventory`], read-only.
//!
//! Only GET requests: discovery (`/api`, `/apis` and the preferred version of each group edgecheck
//! knows), then `list` of every kind of [`K::KNOWN`] that the cluster serves, in that version, in
//! parallel, paginated (`limit`/`continue`). Every request has one deadline for all of it (connect,
//! headers, body), every answer a byte cap, every kind a cap on pages and objects, and a repeated
//! continue token ends its list ([`Limits`]). A kind the server refuses (403), that fails or that
//! exceeds a bound is recorded in [`Inventory::unchecked`] — unknown, never absent; when every kind
//! fails the scan is an error ([`ScanError::NothingListed`]). Items are summarised as each is parsed
//! ([`edgecheck_load::object_from_live_value`]: Secret values dropped), never held twice.
//!
//! [`watch`] keeps the same kinds current for `edgecheck serve`: the same discovery and lists, then a
//! streaming GET `?watch=1` per kind, each event bounded and summarised as it arrives.
//!
//! This is its own crate (not a feature of `edgecheck_load`) so the file loader and the check engine
//! stay free of tokio, hyper and rustls; only the CLI (and `edgecheck_serve`) links it.

mod files;
mod page;
pub mod watch;

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;
use std::time::Duration;

use edgecheck_core::kind::K;
use edgecheck_core::Value;
use edgecheck_core::{Inventory, Kind, Unchecked};
use futures::StreamExt as _;
use http_body_util::BodyExt as _;
use kube::api::ListParams;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

/// Objects per list page.
pub const PAGE_SIZE: u32 = 500;

/// Secrets read: all but Helm's release records. Checks read TLS Secrets, Argo CD repository
/// Secrets and Opaque Secrets alike (a TLS Secret of the wrong type, an ExternalSecret's target, a
/// store's credentials), so the scan cannot narrow further by type without reporting present Secrets
/// as missing; values are summarised and dropped as they arrive.
pub const SECRET_FIELD_SELECTOR: &str = "type!=helm.sh/release.v1";

/// Lists in flight at once.
pub const PARALLEL_LISTS: usize = 8;

/// Pages read of one kind at most [`Limits::max_pages`] (a server whose continue tokens never end).
pub const MAX_PAGES: usize = 1_000;
/// Objects read of one kind at most [`Limits::max_items`].
pub const MAX_ITEMS: usize = 200_000;
/// Bytes of one answer (a list page, a discovery document) at most [`Limits::max_body_bytes`].
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Bounds on what a scan reads from the API server. A kind over one is not checked (LOD007, with the
/// bound in the reason), never half-read.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Pages per kind [default [`MAX_PAGES`]].
    pub max_pages: usize,
    /// Objects per kind [default [`MAX_ITEMS`]].
    pub max_items: usize,
    /// Bytes per answer [default [`MAX_BODY_BYTES`]].
    pub max_body_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_pages: MAX_PAGES, max_items: MAX_ITEMS, max_body_bytes: MAX_BODY_BYTES }
    }
}

/// Where and what to scan.
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// A kubeconfig file (`--kubeconfig`); else `KUBECONFIG`, `~/.kube/config`, or the in-cluster
    /// service account.
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context (`--context`); else the current one.
    pub context: Option<String>,
    /// List only this namespace (`-n`); `None`: all namespaces.
    pub namespace: Option<String>,
    /// Deadline of each request, discovery included, from connecting to the last byte [default 30 s].
    pub timeout: Option<Duration>,
    /// Objects per page [default [`PAGE_SIZE`]].
    pub page_size: Option<u32>,
    /// Bounds on pages, objects and bytes.
    pub limits: Limits,
    /// Called after each kind is listed, with (kinds done, kinds in all, the kind): a progress bar.
    pub progress: Option<Progress>,
}

/// The function behind [`Progress`]: (kinds done, kinds in all, the kind just listed).
pub type ProgressFn = dyn Fn(usize, usize, &str) + Send + Sync;

/// A progress callback.
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<ProgressFn>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress(..)")
    }
}

/// What a scan read.
#[derive(Debug)]
pub struct Scan {
    /// The objects, plus the kinds that could not be listed.
    pub inventory: Inventory,
    /// The context (or `in-cluster`) the objects came from.
    pub cluster: String,
    /// The namespace of the context (for objects that name none).
    pub default_namespace: String,
    /// The kinds that were listed in full (every page), as `group/Kind`.
    pub listed: Vec<String>,
    /// Wall time of discovery and listing (waiting on the API server).
    pub api_time: Duration,
    /// Time spent turning the answers into objects (outside API calls).
    pub load_time: Duration,
}

/// Why a scan could not start (no config, discovery failed). Failures of single kinds are not errors.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// No usable kubeconfig or in-cluster config.
    #[error("kubeconfig: {0}")]
    Config(String),
    /// Discovery (`/api`, `/apis`) failed.
    #[error("discovery: {0}")]
    Discovery(String),
    /// Every list failed: nothing was read (not an empty cluster).
    #[error("nothing could be read from the cluster: {}", nothing_listed(.0))]
    NothingListed(Vec<Unchecked>),
}

fn nothing_listed(kinds: &[Unchecked]) -> String {
    kinds.iter().map(|u| format!("{} ({}): {}", u.kind, u.api_version, u.reason)).collect::<Vec<_>>().join("; ")
}

/// One resource to list: what kind, at which version, and its URL pieces.
#[derive(Debug, Clone)]
pub struct Resource {
    /// `group/version` (or `version` for the core group).
    pub api_version: String,
    /// API group (`""` for core).
    pub group: String,
    /// Kind.
    pub kind: String,
    /// Plural (the URL segment and the RBAC resource).
    pub plural: String,
    /// Namespaced.
    pub namespaced: bool,
}

impl Resource {
    /// The collection URL path of the kind (in `namespace` when namespaced and one is given).
    pub fn path(&self, namespace: Option<&str>) -> String {
        let base = if self.group.is_empty() {
            format!("/api/{}", self.api_version)
        } else {
            format!("/apis/{}", self.api_version)
        };
        match (self.namespaced, namespace) {
            (true, Some(ns)) => format!("{base}/namespaces/{ns}/{}", self.plural),
            _ => format!("{base}/{}", self.plural),
        }
    }

    /// The kind as metrics and messages name it: `Kind` for the core group, else `Kind.group`.
    pub fn key(&self) -> String {
        if self.group.is_empty() {
            self.kind.clone()
        } else {
            format!("{}.{}", self.kind, self.group)
        }
    }
}

/// The API groups edgecheck reads (the groups of [`K::KNOWN`]).
pub fn groups() -> Vec<&'static str> {
    K::KNOWN.iter().map(|k| k.group).collect::<BTreeSet<_>>().into_iter().collect()
}

/// The plural resource names edgecheck reads, per group, for RBAC: the lowercased plural that
/// discovery reports for each kind (guessed as Kubernetes does when not discovered).
pub fn rbac_resources() -> Vec<(&'static str, Vec<String>)> {
    let mut out: Vec<(&'static str, Vec<String>)> = Vec::new();
    for g in groups() {
        let mut plurals: Vec<String> = K::KNOWN.iter().filter(|k| k.group == g).map(|k| plural(k.kind)).collect();
        plurals.sort();
        plurals.dedup();
        out.push((g, plurals));
    }
    out
}

/// Kubernetes' plural of a kind (as `kube::discovery::ApiResource::erase` guesses it).
fn plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if lower == "endpoints" {
        return lower;
    }
    if lower.ends_with('s') || lower.ends_with('x') || lower.ends_with("ch") || lower.ends_with("sh") {
        format!("{lower}es")
    } else if let Some(stem) = lower.strip_suffix('y').filter(|s| !s.ends_with(['a', 'e', 'i', 'o', 'u'])) {
        format!("{stem}ies")
    } else {
        format!("{lower}s")
    }
}

/// Parses kubeconfig text with the parser `scan` reads a kubeconfig with (kube's); no file it names is
/// read. Returns the context names, in order (the fuzz target `kubeconfig`).
pub fn parse_kubeconfig(text: &str) -> Result<Vec<String>, String> {
    let kc = Kubeconfig::from_yaml(text).map_err(|e| e.to_string())?;
    Ok(kc.contexts.into_iter().map(|c| c.name).collect())
}

/// Reads the cluster. Blocking: runs its own tokio runtime.
pub fn scan(options: &ScanOptions) -> Result<Scan, ScanError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| ScanError::Config(format!("cannot start the runtime: {e}")))?;
    rt.block_on(scan_async(options))
}

async fn config(options: &ScanOptions) -> Result<(Config, String), ScanError> {
    files::check_kubeconfig_files(options.kubeconfig.as_deref())?;
    let kc_options = KubeConfigOptions { context: options.context.clone(), ..KubeConfigOptions::default() };
    if let Some(path) = &options.kubeconfig {
        let kc = Kubeconfig::read_from(path).map_err(|e| ScanError::Config(format!("{}: {e}", path.display())))?;
        let name = options.context.clone().or_else(|| kc.current_context.clone()).unwrap_or_else(|| "default".into());
        let cfg =
            Config::from_custom_kubeconfig(kc, &kc_options).await.map_err(|e| ScanError::Config(e.to_string()))?;
        return Ok((cfg, name));
    }
    if options.context.is_some() {
        let name = options.context.clone().unwrap_or_default();
        let cfg = Config::from_kubeconfig(&kc_options).await.map_err(|e| ScanError::Config(e.to_string()))?;
        return Ok((cfg, name));
    }
    let name = Kubeconfig::read().ok().and_then(|k| k.current_context).unwrap_or_else(|| "in-cluster".into());
    let cfg = Config::infer().await.map_err(|e| ScanError::Config(e.to_string()))?;
    Ok((cfg, name))
}

/// The client of a scan or a watch: (the API, the cluster's name, the default namespace).
async fn connect_api(options: &ScanOptions) -> Result<(ApiGet, String, String), ScanError> {
    let (mut cfg, cluster) = config(options).await?;
    let timeout = options.timeout.unwrap_or(Duration::from_secs(30));
    // One deadline per request (ApiGet::get) bounds connect, headers and body; kube's own timeouts
    // would race it with vaguer messages (and its read timeout restarts on every byte).
    cfg.connect_timeout = None;
    cfg.read_timeout = None;
    cfg.write_timeout = None;
    let server = cfg.cluster_url.to_string().trim_end_matches('/').to_string();
    let default_namespace = options.namespace.clone().unwrap_or_else(|| cfg.default_namespace.clone());
    let client = Client::try_from(cfg).map_err(|e| ScanError::Config(e.to_string()))?;
    Ok((ApiGet { client, server, timeout, limits: options.limits }, cluster, default_namespace))
}

async fn scan_async(options: &ScanOptions) -> Result<Scan, ScanError> {
    let (api, cluster, default_namespace) = connect_api(options).await?;
    let t_api = std::time::Instant::now();
    let (resources, undiscovered) = discover(&api).await?;
    let total = resources.len();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let page = options.page_size.unwrap_or(PAGE_SIZE);
    let lists = resources.iter().map(|r| {
        let (api, cluster) = (&api, cluster.as_str());
        let ns = options.namespace.clone();
        let (progress, done) = (options.progress.clone(), done.clone());
        async move {
            let result = list_all(api, r, ns.as_deref(), page, cluster).await;
            if let Some(p) = progress {
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                (p.0)(n, total, &r.kind);
            }
            (r, result)
        }
    });
    // A few lists at a time (in discovery order, so the inventory's order does not depend on timing).
    let results: Vec<_> = futures::stream::iter(lists).buffered(PARALLEL_LISTS).collect().await;
    let api_time = t_api.elapsed();
    let mut inventory = Inventory::default();
    let mut listed = Vec::new();
    let mut load_time = Duration::ZERO;
    for (r, result) in results {
        match result {
            Ok(kind) => {
                listed.push(format!("{}/{}", r.group, r.kind));
                inventory.objects.extend(kind.objects);
                inventory.problems.extend(kind.problems);
                load_time += kind.load_time;
            }
            Err(reason) => inventory.unchecked.push(unchecked(r, options, &cluster, reason)),
        }
    }
    for (r, reason) in undiscovered {
        inventory.unchecked.push(unchecked(&r, options, &cluster, reason));
    }
    // Nothing read at all is not an empty cluster.
    if listed.is_empty() && !inventory.unchecked.is_empty() {
        return Err(ScanError::NothingListed(inventory.unchecked));
    }
    Ok(Scan { inventory, cluster, default_namespace, listed, api_time: api_time.saturating_sub(load_time), load_time })
}

fn unchecked(r: &Resource, options: &ScanOptions, cluster: &str, reason: String) -> Unchecked {
    Unchecked {
        api_version: r.api_version.clone(),
        kind: r.kind.clone(),
        namespace: if r.namespaced { options.namespace.clone() } else { None },
        reason,
        cluster: Some(cluster.to_string()),
    }
}

/// GET requests to the API server, each bounded as a whole (connect, headers and body) by one
/// deadline and its body by [`Limits::max_body_bytes`].
struct ApiGet {
    client: Client,
    /// The server URL, for messages.
    server: String,
    timeout: Duration,
    limits: Limits,
}

impl ApiGet {
    /// The body of a successful GET of `path`; `Err` says why not, without the URL.
    async fn get(&self, path: &str) -> Result<Vec<u8>, String> {
        let cap = self.limits.max_body_bytes;
        let fetch = async {
            let req = http::Request::get(path).body(kube::client::Body::empty()).map_err(|e| e.to_string())?;
            let resp = self.client.send(req).await.map_err(|e| describe(&e))?;
            let status = resp.status().as_u16();
            let mut body = resp.into_body();
            let mut buf = Vec::new();
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| format!("reading the answer: {}", describe(&e)))?;
                if let Ok(data) = frame.into_data() {
                    if buf.len().saturating_add(data.len()) > cap {
                        return Err(format!("the answer exceeds the limit of {} bytes per list", cap));
                    }
                    buf.extend_from_slice(&data);
                }
            }
            if !(200..300).contains(&status) {
                return Err(status_error(status, &buf));
            }
            Ok(buf)
        };
        match tokio::time::timeout(self.timeout, fetch).await {
            Err(_) => Err(format!("no complete answer within {} s (--request-timeout)", self.timeout.as_secs_f64())),
            Ok(r) => r,
        }
    }

    /// A discovery document.
    async fn discovery<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T, String> {
        let body = self.get(path).await.map_err(|e| format!("GET {}{path}: {e}", self.server))?;
        serde_json::from_slice(&body)
            .map_err(|e| format!("GET {}{path}: not a discovery document ({})", self.server, json_error(&e)))
    }
}

/// An API error answer as `kubectl` words it: `forbidden: <message>` for 403, else the code, reason
/// and message of the Status (or of the code alone when the body is not one).
fn status_error(code: u16, body: &[u8]) -> String {
    let status: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let message = status["message"].as_str().unwrap_or("");
    match (code, message) {
        (403, m) => format!("forbidden: {m}"),
        (c, "") => format!("{c}: the API server answered with an error (no Status)"),
        (c, m) => format!("{c} {}: {m}", status["reason"].as_str().unwrap_or("")),
    }
}

/// A JSON error without the input (positions only: a value could be a secret).
fn json_error(e: &serde_json::Error) -> String {
    let what = match e.classify() {
        serde_json::error::Category::Io => "cannot read",
        serde_json::error::Category::Syntax => "malformed JSON",
        serde_json::error::Category::Data => "unexpected JSON types",
        serde_json::error::Category::Eof => "truncated JSON",
    };
    format!("{what} at line {} column {}", e.line(), e.column())
}

#[derive(serde::Deserialize)]
struct ApiVersions {
    #[serde(default)]
    versions: Vec<String>,
}

#[derive(serde::Deserialize)]
struct ApiGroupList {
    #[serde(default)]
    groups: Vec<ApiGroup>,
}

#[derive(serde::Deserialize)]
struct ApiGroup {
    name: String,
    #[serde(default)]
    versions: Vec<GroupVersion>,
    #[serde(rename = "preferredVersion")]
    preferred: Option<GroupVersion>,
}

#[derive(serde::Deserialize)]
struct GroupVersion {
    version: String,
}

#[derive(serde::Deserialize)]
struct ApiResourceList {
    #[serde(default)]
    resources: Vec<ApiResourceEntry>,
}

#[derive(serde::Deserialize)]
struct ApiResourceEntry {
    name: String,
    kind: String,
    #[serde(default)]
    namespaced: bool,
    #[serde(default)]
    verbs: Vec<String>,
}

/// The kinds of [`K::KNOWN`] the cluster serves with `list`, each in its preferred served version;
/// and the known kinds of a group whose resource list could not be read, with the reason.
async fn discover(api: &ApiGet) -> Result<(Vec<Resource>, Vec<(Resource, String)>), ScanError> {
    let ours = groups();
    let core: ApiVersions = api.discovery("/api").await.map_err(ScanError::Discovery)?;
    let named: ApiGroupList = api.discovery("/apis").await.map_err(ScanError::Discovery)?;
    // (group, preferred version), the core group first, then alphabetically as kubectl lists them.
    let mut chosen: Vec<(String, String)> = Vec::new();
    if let Some(v) = core.versions.iter().find(|v| *v == "v1").or(core.versions.first()) {
        chosen.push((String::new(), v.clone()));
    }
    let mut named: Vec<ApiGroup> = named.groups.into_iter().filter(|g| ours.contains(&g.name.as_str())).collect();
    named.sort_by(|a, b| a.name.cmp(&b.name));
    for g in named {
        if let Some(v) = g.preferred.or_else(|| g.versions.into_iter().next()) {
            chosen.push((g.name, v.version));
        }
    }
    let mut out = Vec::new();
    let mut failed = Vec::new();
    for (group, version) in chosen {
        let api_version = if group.is_empty() { version.clone() } else { format!("{group}/{version}") };
        let path = if group.is_empty() { format!("/api/{version}") } else { format!("/apis/{api_version}") };
        let list: ApiResourceList = match api.discovery(&path).await {
            Ok(l) => l,
            Err(reason) => {
                // Its kinds are unknown, not absent: each known kind of the group is not checked.
                for k in K::KNOWN.iter().filter(|k| k.group == group) {
                    let kind = Kind { group: group.as_str().into(), kind: k.kind.into() };
                    let r = Resource {
                        api_version: api_version.clone(),
                        group: group.clone(),
                        kind: k.kind.to_string(),
                        plural: plural(k.kind),
                        namespaced: kind.namespaced(),
                    };
                    if !failed.iter().any(|(f, _): &(Resource, String)| f.kind == r.kind) {
                        failed.push((r, reason.clone()));
                    }
                }
                continue;
            }
        };
        for res in list.resources {
            // Subresources (`pods/log`) are not kinds to list.
            if res.name.contains('/') || !res.verbs.iter().any(|v| v == "list") {
                continue;
            }
            if !K::KNOWN.iter().any(|k| k.group == group && k.kind == res.kind) {
                continue;
            }
            out.push(Resource {
                api_version: api_version.clone(),
                group: group.clone(),
                kind: res.kind,
                plural: res.name,
                namespaced: res.namespaced,
            });
        }
    }
    // The same objects served under two groups: read them once. Events as core/v1 (what
    // `kubectl get events -o yaml` dumps, so a scan and a lint of its dump agree); Ingresses from
    // networking.k8s.io rather than the old extensions group.
    for (old, new) in [(K::EVENT_V1, K::EVENT), (K::INGRESS_EXTENSIONS, K::INGRESS)] {
        let served = |k: K| out.iter().any(|r: &Resource| r.group == k.group && r.kind == k.kind);
        if served(new) {
            out.retain(|r| !(r.group == old.group && r.kind == old.kind));
        }
    }
    Ok((out, failed))
}

/// What one kind's list gave.
struct Listed {
    objects: Vec<edgecheck_core::Object>,
    problems: Vec<edgecheck_core::LoadProblem>,
    /// Time spent parsing and summarising (not waiting on the server).
    load_time: Duration,
    /// The list's `resourceVersion` (of its first page): where a watch of the kind starts.
    resource_version: Option<String>,
}

/// Every page of one kind, each item summarised as it is parsed (Secret values dropped there);
/// `Err` says why not (403, timeout, a malformed answer, a bound of [`Limits`] exceeded).
async fn list_all(
    api: &ApiGet,
    r: &Resource,
    namespace: Option<&str>,
    page: u32,
    cluster: &str,
) -> Result<Listed, String> {
    let path = r.path(namespace);
    let limits = api.limits;
    let mut out =
        Listed { objects: Vec::new(), problems: Vec::new(), load_time: Duration::ZERO, resource_version: None };
    let mut items = 0usize;
    let mut seen_tokens: HashSet<String> = HashSet::new();
    // Shared by every object listed.
    let cluster: std::sync::Arc<str> = std::sync::Arc::from(cluster);
    let mut token: Option<String> = None;
    for pages in 1.. {
        let mut lp = ListParams::default().limit(page);
        if r.group.is_empty() && r.kind == "Secret" {
            // Helm's release records are the bulk of a cluster's Secrets and no check reads them.
            lp = lp.fields(SECRET_FIELD_SELECTOR);
        }
        if let Some(t) = &token {
            lp = lp.continue_token(t);
        }
        let req = kube::core::Request::new(&path).list(&lp).map_err(|e| e.to_string())?;
        let body = api.get(&req.uri().to_string()).await?;
        let t_load = std::time::Instant::now();
        let mut on_item = |mut v: Value| -> Result<(), String> {
            items += 1;
            if items > limits.max_items {
                return Err(format!("more than {} objects (the limit per kind)", limits.max_items));
            }
            let Value::Object(m) = &mut v else { return Err(format!("item {items} of the list is not an object")) };
            m.insert("apiVersion".into(), Value::from(r.api_version.clone()));
            m.insert("kind".into(), Value::from(r.kind.clone()));
            // managedFields and the last-applied copy are dropped as every object is loaded.
            if let Some(o) = edgecheck_load::object_from_live_value(&cluster, v, &mut out.problems) {
                out.objects.push(o);
            }
            Ok(())
        };
        let next = page::parse_page(&body, &mut on_item);
        drop(body);
        out.load_time += t_load.elapsed();
        let next = next?;
        if out.resource_version.is_none() {
            out.resource_version = next.resource_version;
        }
        match next.continue_.filter(|c| !c.is_empty()) {
            None => return Ok(out),
            Some(_) if pages >= limits.max_pages => {
                return Err(format!("the list did not end after {} pages (the limit per kind)", limits.max_pages))
            }
            Some(c) if !seen_tokens.insert(c.clone()) => {
                return Err(format!(
                    "the API server repeated a continue token after {pages} pages: the list would never end"
                ))
            }
            Some(c) => token = Some(c),
        }
    }
    Err("unreachable: the page loop is endless".into())
}

fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    if let Some(kube::Error::Api(r)) = e.downcast_ref::<kube::Error>() {
        return if r.code == 403 {
            format!("forbidden: {}", r.message)
        } else {
            format!("{} {}: {}", r.code, r.reason, r.message)
        };
    }
    // The whole chain: hyper's "client error (Connect)" alone does not say that the certificate is
    // not trusted.
    let mut parts: Vec<String> = Vec::new();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = err.source();
    }
    let text = parts.join(": ");
    match tls_problem(&text) {
        Some(p) => format!("{p} ({text})"),
        None => text,
    }
}

/// The certificate problem in a rustls error text, as kubectl names it.
fn tls_problem(text: &str) -> Option<&'static str> {
    if !text.contains("invalid peer certificate") {
        return None;
    }
    Some(if text.contains("UnknownIssuer") {
        "x509: certificate signed by unknown authority (the kubeconfig's certificate-authority does not trust the server's certificate)"
    } else if text.contains("certificate expired") || text.contains("Expired") {
        "x509: the server's certificate has expired"
    } else if text.contains("not valid yet") || text.contains("NotValidYet") {
        "x509: the server's certificate is not yet valid"
    } else if text.contains("NotValidForName") || text.contains("not valid for name") {
        "x509: the server's certificate is not valid for the server's host name"
    } else {
        "x509: the server's certificate was rejected"
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn plurals_follow_kubernetes() {
        assert_eq!(super::plural("Ingress"), "ingresses");
        assert_eq!(super::plural("NetworkPolicy"), "networkpolicies");
        assert_eq!(super::plural("Gateway"), "gateways");
        assert_eq!(super::plural("Endpoints"), "endpoints");
        assert!(super::groups().contains(&""));
    }
}
