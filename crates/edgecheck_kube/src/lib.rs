//! Loads live objects from a Kubernetes cluster into an edgecheck [`Inventory`], read-only.
//!
//! Only GET requests: discovery (`/api`, `/apis` and each group version of the groups edgecheck knows),
//! then `list` of every kind of [`K::KNOWN`] that the cluster serves, in its preferred served version,
//! in parallel, paginated (`limit`/`continue`), each with a timeout. A kind the server refuses (403) or
//! that fails is recorded in [`Inventory::unchecked`] — unknown, never absent. Secret values are
//! summarised and dropped as the file loader does ([`edgecheck_load::object_from_live_value`]).
//!
//! This is its own crate (not a feature of `edgecheck_load`) so the file loader and the check engine
//! stay free of tokio, hyper and rustls; only the CLI links it.

mod files;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use edgecheck_core::kind::K;
use edgecheck_core::{Inventory, Kind, Unchecked};
use futures::StreamExt as _;
use kube::api::{Api, DynamicObject, ListParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::discovery::{verbs, ApiResource, Discovery, Scope};
use kube::{Client, Config};
use serde_json::Value;

/// Objects per list page.
pub const PAGE_SIZE: u32 = 500;

/// Secrets read: all but Helm's release records. Checks read TLS Secrets, Argo CD repository
/// Secrets and Opaque Secrets alike (a TLS Secret of the wrong type, an ExternalSecret's target, a
/// store's credentials), so the scan cannot narrow further by type without reporting present Secrets
/// as missing; values are summarised and dropped as they arrive.
pub const SECRET_FIELD_SELECTOR: &str = "type!=helm.sh/release.v1";

/// Lists in flight at once.
pub const PARALLEL_LISTS: usize = 8;

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
    /// Per-request timeout [default 30 s].
    pub timeout: Option<Duration>,
    /// Objects per page [default [`PAGE_SIZE`]].
    pub page_size: Option<u32>,
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

async fn scan_async(options: &ScanOptions) -> Result<Scan, ScanError> {
    let (mut cfg, cluster) = config(options).await?;
    let timeout = options.timeout.unwrap_or(Duration::from_secs(30));
    cfg.connect_timeout = Some(timeout);
    cfg.read_timeout = Some(timeout);
    let default_namespace = options.namespace.clone().unwrap_or_else(|| cfg.default_namespace.clone());
    let client = Client::try_from(cfg).map_err(|e| ScanError::Config(e.to_string()))?;
    let t_api = std::time::Instant::now();
    let resources = discover(&client).await?;
    let total = resources.len();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let page = options.page_size.unwrap_or(PAGE_SIZE);
    let lists = resources.iter().map(|(r, ar)| {
        let client = client.clone();
        let ns = options.namespace.clone();
        let (progress, done) = (options.progress.clone(), done.clone());
        async move {
            let result = list_all(client, ar, r.namespaced, ns.as_deref(), page, timeout).await;
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
    let t_load = std::time::Instant::now();
    let mut inventory = Inventory::default();
    let mut listed = Vec::new();
    for (r, result) in results {
        match result {
            Ok(items) => {
                listed.push(format!("{}/{}", r.group, r.kind));
                for mut v in items {
                    if let Value::Object(m) = &mut v {
                        m.insert("apiVersion".into(), Value::String(r.api_version.clone()));
                        m.insert("kind".into(), Value::String(r.kind.clone()));
                        // As `kubectl get -o yaml` prints them: without managedFields (bulk no check reads).
                        if let Some(Value::Object(meta)) = m.get_mut("metadata") {
                            meta.remove("managedFields");
                        }
                    }
                    if let Some(o) = edgecheck_load::object_from_live_value(&cluster, v, &mut inventory.problems) {
                        inventory.objects.push(o);
                    }
                }
            }
            Err(reason) => inventory.unchecked.push(Unchecked {
                api_version: r.api_version.clone(),
                kind: r.kind.clone(),
                namespace: if r.namespaced { options.namespace.clone() } else { None },
                reason,
                cluster: Some(cluster.clone()),
            }),
        }
    }
    Ok(Scan { inventory, cluster, default_namespace, listed, api_time, load_time: t_load.elapsed() })
}

/// The kinds of [`K::KNOWN`] the cluster serves with `list`, each in its preferred served version.
async fn discover(client: &Client) -> Result<Vec<(Resource, ApiResource)>, ScanError> {
    let groups = groups();
    let discovery =
        Discovery::new(client.clone()).filter(&groups).run().await.map_err(|e| ScanError::Discovery(e.to_string()))?;
    let mut out = Vec::new();
    for group in discovery.groups_alphabetical() {
        for (ar, caps) in group.recommended_resources() {
            // Subresources (`pods/log`) are not kinds to list.
            if ar.plural.contains('/') || !caps.supports_operation(verbs::LIST) {
                continue;
            }
            let kind = Kind { group: ar.group.clone(), kind: ar.kind.clone() };
            if !K::KNOWN.iter().any(|k| k.group == kind.group && k.kind == kind.kind) {
                continue;
            }
            let r = Resource {
                api_version: ar.api_version.clone(),
                group: ar.group.clone(),
                kind: ar.kind.clone(),
                plural: ar.plural.clone(),
                namespaced: caps.scope == Scope::Namespaced,
            };
            out.push((r, ar));
        }
    }
    // The same objects served under two groups: read them once. Events as core/v1 (what
    // `kubectl get events -o yaml` dumps, so a scan and a lint of its dump agree); Ingresses from
    // networking.k8s.io rather than the old extensions group.
    for (old, new) in [(K::EVENT_V1, K::EVENT), (K::INGRESS_EXTENSIONS, K::INGRESS)] {
        let served = |k: K| out.iter().any(|(r, _): &(Resource, ApiResource)| r.group == k.group && r.kind == k.kind);
        if served(new) {
            out.retain(|(r, _)| !(r.group == old.group && r.kind == old.kind));
        }
    }
    Ok(out)
}

/// Every page of one kind, as JSON values; `Err` says why not (403, timeout, another error).
async fn list_all(
    client: Client,
    ar: &ApiResource,
    namespaced: bool,
    namespace: Option<&str>,
    page: u32,
    timeout: Duration,
) -> Result<Vec<Value>, String> {
    let api: Api<DynamicObject> = match (namespaced, namespace) {
        (true, Some(ns)) => Api::namespaced_with(client, ns, ar),
        _ => Api::all_with(client, ar),
    };
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut lp = ListParams::default().limit(page);
        if ar.group.is_empty() && ar.kind == "Secret" {
            // Helm's release records are the bulk of a cluster's Secrets and no check reads them.
            lp = lp.fields(SECRET_FIELD_SELECTOR);
        }
        if let Some(t) = &token {
            lp = lp.continue_token(t);
        }
        let list = match tokio::time::timeout(timeout, api.list(&lp)).await {
            Err(_) => return Err(format!("timed out after {}s", timeout.as_secs())),
            Ok(Err(e)) => return Err(describe(&e)),
            Ok(Ok(l)) => l,
        };
        for item in list.items {
            match serde_json::to_value(&item) {
                Ok(v) => out.push(v),
                Err(e) => return Err(format!("cannot read an item: {e}")),
            }
        }
        match list.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(c) => token = Some(c),
            None => return Ok(out),
        }
    }
}

fn describe(e: &kube::Error) -> String {
    match e {
        kube::Error::Api(r) if r.code == 403 => format!("forbidden: {}", r.message),
        kube::Error::Api(r) => format!("{} {}: {}", r.code, r.reason, r.message),
        other => other.to_string(),
    }
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
