//! `edgecheck serve`: continuous diagnosis of a cluster.
//!
//! ```text
//! watches (edgecheck_kube::watch, one task per kind) ──events──> Store ──dirty──┐
//! probe loop (interval, jitter, bounded) ──observations──────────────────────────┤
//!                                                 debounce ──> evaluation (eval: the engine, as trace)
//!                                                                     │
//!                                     Snapshot (verdicts, certificates, findings, rendered reports)
//!                                                                     │
//!                   HTTP (/metrics /healthz /readyz /report /report.json /trace?url=)
//! ```
//!
//! The CLI (`crates/edgecheck/src/commands/serve.rs`) only turns flags into a [`Config`].

pub mod eval;
mod http;
pub mod metrics;
pub mod probe;
pub mod store;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use edgecheck_core::observation::TargetObservation;
use edgecheck_kube::watch::{WatchEvent, WatchLimits};
use edgecheck_kube::ScanOptions;
use tokio::sync::Notify;

pub use eval::Engine;
pub use probe::ProbeConfig;

/// Requests handled at once; more wait for a slot ([`Limits::max_requests`]).
pub const MAX_REQUESTS: usize = 32;
/// `/trace` requests running at once; more are refused with 429 ([`Limits::max_traces`]).
pub const MAX_TRACES: usize = 2;
/// The longest `/trace?url=` accepted, in bytes.
pub const MAX_URL_BYTES: usize = 2048;
/// Watch events queued between the watches and the store.
pub const EVENT_QUEUE: usize = 1024;

/// Bounds of the HTTP server.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Requests handled at once [default [`MAX_REQUESTS`]].
    pub max_requests: usize,
    /// Traces at once [default [`MAX_TRACES`]].
    pub max_traces: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_requests: MAX_REQUESTS, max_traces: MAX_TRACES }
    }
}

/// Everything `serve` runs with.
#[derive(Debug, Clone)]
pub struct Config {
    /// The cluster, namespace and request bounds (as `scan`).
    pub scan: ScanOptions,
    /// Where to listen (`:9813`, `127.0.0.1:0`, `[::]:9813`).
    pub listen: String,
    /// Quiet time after a change before the checks run again.
    pub debounce: Duration,
    /// Time between probe rounds (jittered by a tenth); `None`: never probe.
    pub probe_interval: Option<Duration>,
    /// How hosts are probed.
    pub probe: ProbeConfig,
    /// The engine's settings.
    pub engine: Engine,
    /// Watch bounds.
    pub watch: WatchLimits,
    /// HTTP bounds.
    pub limits: Limits,
}

/// Why `serve` could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The cluster could not be reached or discovered.
    #[error(transparent)]
    Cluster(#[from] edgecheck_kube::ScanError),
    /// The listen address is not one.
    #[error("--listen `{0}`: expected [HOST]:PORT (`:9813`, `127.0.0.1:9813`, `[::]:9813`)")]
    Listen(String),
    /// The socket could not be bound or served.
    #[error("{0}")]
    Io(String),
}

/// What the tasks share.
pub(crate) struct Shared {
    pub(crate) config: Config,
    pub(crate) store: Mutex<store::Store>,
    pub(crate) snapshot: RwLock<Option<Arc<eval::Snapshot>>>,
    pub(crate) observations: Mutex<BTreeMap<String, TargetObservation>>,
    pub(crate) counters: Mutex<metrics::Counters>,
    pub(crate) ready: AtomicBool,
    /// The inventory or the observations changed: evaluate again (after the debounce).
    pub(crate) dirty: Notify,
    /// An evaluation claimed hosts never probed: probe them now.
    pub(crate) new_hosts: Notify,
    pub(crate) traces: tokio::sync::Semaphore,
    pub(crate) requests: Arc<tokio::sync::Semaphore>,
}

impl Shared {
    pub(crate) fn snapshot(&self) -> Option<Arc<eval::Snapshot>> {
        self.snapshot.read().ok().and_then(|s| s.clone())
    }

    /// The inventory now and whether it is complete.
    pub(crate) fn inventory(&self) -> Option<(edgecheck_core::Inventory, bool)> {
        let store = self.store.lock().ok()?;
        let complete = self.config.scan.namespace.is_none() && store.complete();
        Some((store.inventory(), complete))
    }
}

/// Parses `--listen`: `:PORT` is every IPv4 address.
pub fn listen_addr(s: &str) -> Result<std::net::SocketAddr, ServeError> {
    let full = if s.starts_with(':') { format!("0.0.0.0{s}") } else { s.to_string() };
    full.parse().map_err(|_| ServeError::Listen(s.to_string()))
}

/// Runs `serve` until SIGTERM or SIGINT. Blocking: builds its own runtime. Logs go to stderr.
pub fn run(config: Config) -> Result<(), ServeError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| ServeError::Io(format!("cannot start the runtime: {e}")))?;
    rt.block_on(run_async(config))
}

async fn run_async(config: Config) -> Result<(), ServeError> {
    let addr = listen_addr(&config.listen)?;
    let listener =
        tokio::net::TcpListener::bind(addr).await.map_err(|e| ServeError::Io(format!("--listen {addr}: {e}")))?;
    let bound = listener.local_addr().map_err(|e| ServeError::Io(e.to_string()))?;
    let watch = edgecheck_kube::watch::connect(&config.scan).await?;
    for u in &watch.undiscovered {
        eprintln!("edgecheck: could not check {} ({}): {}", u.kind, u.api_version, u.reason);
    }
    let kinds: Vec<String> = watch.resources.iter().map(edgecheck_kube::Resource::key).collect();
    let store = store::Store::new(kinds, watch.undiscovered.clone(), config.scan.limits.max_items);
    let mut config = config;
    config.engine.options.default_namespace = watch.default_namespace.clone();
    let shared = Arc::new(Shared {
        store: Mutex::new(store),
        snapshot: RwLock::new(None),
        observations: Mutex::new(BTreeMap::new()),
        counters: Mutex::new(metrics::Counters::default()),
        ready: AtomicBool::new(false),
        dirty: Notify::new(),
        new_hosts: Notify::new(),
        traces: tokio::sync::Semaphore::new(config.limits.max_traces.max(1)),
        requests: Arc::new(tokio::sync::Semaphore::new(config.limits.max_requests.max(1))),
        config,
    });
    let (tx, rx) = tokio::sync::mpsc::channel(EVENT_QUEUE);
    let watches = watch.spawn(tx, shared.config.watch);
    eprintln!(
        "edgecheck: watching {} kinds of {} (namespace {})",
        watch.resources.len(),
        watch.cluster,
        shared.config.scan.namespace.as_deref().unwrap_or("all")
    );
    tokio::spawn(apply_events(shared.clone(), rx));
    tokio::spawn(evaluate_loop(shared.clone()));
    // A cluster that serves none of the kinds is synced at once: evaluate it (an empty inventory).
    shared.dirty.notify_one();
    if shared.config.probe_interval.is_some() {
        tokio::spawn(probe_loop(shared.clone()));
    }
    eprintln!("edgecheck: listening on {bound}");
    let app = http::router(shared.clone());
    let served = axum::serve(listener, app).with_graceful_shutdown(shutdown()).await;
    for w in watches {
        w.abort();
    }
    eprintln!("edgecheck: stopped");
    served.map_err(|e| ServeError::Io(e.to_string()))
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// Watch events into the store; counters for errors and restarts; a change marks the inventory dirty.
async fn apply_events(shared: Arc<Shared>, mut rx: tokio::sync::mpsc::Receiver<WatchEvent>) {
    while let Some(ev) = rx.recv().await {
        match &ev {
            WatchEvent::ApiError { kind, code } => {
                if let Ok(mut c) = shared.counters.lock() {
                    *c.api_errors.entry((kind.clone(), code.clone())).or_default() += 1;
                }
            }
            WatchEvent::Restarted { kind, reason } => {
                eprintln!("edgecheck: the watch of {kind} restarts: {reason}");
                if let Ok(mut c) = shared.counters.lock() {
                    *c.watch_restarts.entry(kind.clone()).or_default() += 1;
                }
            }
            WatchEvent::Unchecked { unchecked: u, .. } => {
                eprintln!("edgecheck: could not check {} ({}): {}", u.kind, u.api_version, u.reason);
            }
            _ => {}
        }
        let changed = shared.store.lock().is_ok_and(|mut s| s.apply(ev));
        if changed {
            shared.dirty.notify_one();
        }
    }
}

/// Evaluates after each change, once the store is synced: waits for the debounce's quiet time (at most
/// ten debounces while changes keep coming), then runs the engine off the async threads.
async fn evaluate_loop(shared: Arc<Shared>) {
    let debounce = shared.config.debounce;
    loop {
        shared.dirty.notified().await;
        let deadline = tokio::time::Instant::now() + debounce * 10;
        loop {
            let quiet = tokio::time::timeout(debounce, shared.dirty.notified()).await.is_err();
            if quiet || tokio::time::Instant::now() >= deadline {
                break;
            }
        }
        let synced = shared.store.lock().is_ok_and(|s| s.synced());
        if !synced {
            continue;
        }
        let Some((inventory, complete)) = shared.inventory() else { continue };
        let observations: Vec<TargetObservation> =
            shared.observations.lock().map(|o| o.values().cloned().collect()).unwrap_or_default();
        let engine = shared.config.engine.clone();
        let result =
            tokio::task::spawn_blocking(move || eval::evaluate(inventory, complete, &engine, &observations)).await;
        let snapshot = match result {
            Ok(s) => Arc::new(s),
            Err(e) => {
                eprintln!("edgecheck: the evaluation failed: {e}");
                continue;
            }
        };
        // Hosts to probe that never were (newly claimed); excluded hosts never are.
        let probe = &shared.config.probe;
        let unprobed = shared.config.probe_interval.is_some()
            && shared
                .observations
                .lock()
                .map(|o| snapshot.targets.iter().any(|t| probe.included(&t.host) && !o.contains_key(&t.target)))
                .unwrap_or(false);
        if let Ok(mut c) = shared.counters.lock() {
            c.evaluations += 1;
        }
        let first = shared.snapshot().is_none();
        if let Ok(mut s) = shared.snapshot.write() {
            *s = Some(snapshot.clone());
        }
        if first {
            shared.ready.store(true, Ordering::SeqCst);
            eprintln!(
                "edgecheck: ready: {} hosts claimed, {} broken",
                snapshot.hosts.len(),
                snapshot.hosts.iter().filter(|h| !h.ok).count()
            );
        }
        if unprobed {
            shared.new_hosts.notify_one();
        }
    }
}

/// Probes every claimed host each interval (jittered); hosts newly claimed at once.
async fn probe_loop(shared: Arc<Shared>) {
    let Some(interval) = shared.config.probe_interval else { return };
    let mut next_round = tokio::time::Instant::now();
    loop {
        let full = tokio::select! {
            () = tokio::time::sleep_until(next_round) => true,
            () = shared.new_hosts.notified() => false,
        };
        let Some(snapshot) = shared.snapshot() else {
            // Not ready: nothing claimed yet. The first evaluation wakes this loop.
            if full {
                next_round = tokio::time::Instant::now() + Duration::from_millis(200);
            }
            continue;
        };
        let known: Vec<String> = shared.observations.lock().map(|o| o.keys().cloned().collect()).unwrap_or_default();
        let targets: Vec<_> = snapshot
            .targets
            .iter()
            .filter(|t| shared.config.probe.included(&t.host))
            .filter(|t| full || !known.contains(&t.target))
            .cloned()
            .collect();
        if full {
            next_round = tokio::time::Instant::now() + probe::jittered(interval);
            // Hosts no longer claimed (or now excluded) are not kept.
            if let Ok(mut map) = shared.observations.lock() {
                map.retain(|k, _| targets.iter().any(|t| &t.target == k));
            }
        }
        if targets.is_empty() {
            continue;
        }
        let observations = shared.config.probe.probe(&targets).await;
        let (mut ok, mut failed) = (0u64, 0u64);
        for o in &observations {
            if eval::phases(o).last().is_some_and(|p| p.2) {
                ok += 1;
            } else {
                failed += 1;
            }
        }
        if let Ok(mut c) = shared.counters.lock() {
            c.probes_ok += ok;
            c.probes_failed += failed;
        }
        if let Ok(mut map) = shared.observations.lock() {
            for o in observations {
                map.insert(o.target.clone(), o);
            }
        }
        shared.dirty.notify_one();
    }
}
