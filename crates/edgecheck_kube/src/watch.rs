//! Watches of the kinds `scan` lists (`edgecheck serve`): per kind, a paginated list (as `scan` reads
//! it) and then a streaming `?watch=1` from the list's `resourceVersion`, read line by line.
//!
//! Why a raw watch and not `kube::runtime::watcher`: the watcher deserialises every event into a
//! `DynamicObject` and hands it over whole, so a Secret's values would sit in memory until the store
//! summarised them, and neither the size of one event nor the idle time of a stream is bounded. Here
//! each event line is bounded ([`WatchLimits::max_event_bytes`]), parsed once and summarised as it
//! arrives ([`edgecheck_load::object_from_live_value`]: Secret values dropped), through the same
//! GET-only client, deadline, discovery and 403 handling as `scan`.
//!
//! Robustness: a `410 Gone` (answer or `ERROR` event) relists at once; any other error (status,
//! transport, malformed or oversized event, a stream idle too long) is counted
//! ([`WatchEvent::ApiError`], [`WatchEvent::Restarted`]) and the kind is listed again after a jittered
//! exponential backoff; `BOOKMARK` events move the resourceVersion on; a stream the server ends
//! (`timeoutSeconds`) is resumed from the last resourceVersion seen. A kind the server refuses (403)
//! is [`WatchEvent::Unchecked`] — never absent — and asked again after the backoff.

use std::sync::Arc;
use std::time::Duration;

use edgecheck_core::Value;
use edgecheck_core::{LoadProblem, Object, Unchecked};
use http_body_util::BodyExt as _;
use kube::api::WatchParams;
use tokio::sync::mpsc;

use crate::{ApiGet, Resource, ScanError, ScanOptions};

/// Seconds the server keeps one watch open (`timeoutSeconds`; kube's default, under the API server's 5 min).
pub const WATCH_TIMEOUT_SECONDS: u32 = 290;
/// Bytes of one watch event line at most [`WatchLimits::max_event_bytes`] (etcd's object limit is 1.5 MiB).
pub const MAX_EVENT_BYTES: usize = 8 * 1024 * 1024;
/// The first backoff after an error; doubled per failure up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest backoff between restarts of one kind.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Bounds of a watch.
#[derive(Debug, Clone, Copy)]
pub struct WatchLimits {
    /// Bytes of one event line [default [`MAX_EVENT_BYTES`]].
    pub max_event_bytes: usize,
    /// Seconds the server keeps one watch open [default [`WATCH_TIMEOUT_SECONDS`]].
    pub timeout_seconds: u32,
    /// The first backoff after an error [default [`FIRST_BACKOFF`]].
    pub first_backoff: Duration,
    /// The longest backoff [default [`MAX_BACKOFF`]].
    pub max_backoff: Duration,
}

impl Default for WatchLimits {
    fn default() -> Self {
        WatchLimits {
            max_event_bytes: MAX_EVENT_BYTES,
            timeout_seconds: WATCH_TIMEOUT_SECONDS,
            first_backoff: FIRST_BACKOFF,
            max_backoff: MAX_BACKOFF,
        }
    }
}

/// What a watch tells the store. `kind` is [`Resource::key`].
#[derive(Debug)]
#[non_exhaustive]
pub enum WatchEvent {
    /// The kind was listed in full: these objects replace every object of the kind.
    Listed {
        /// The kind.
        kind: String,
        /// Its objects (Secrets summarised).
        objects: Vec<Object>,
        /// What could not be read of them.
        problems: Vec<LoadProblem>,
    },
    /// An object was added or changed.
    Applied {
        /// The kind.
        kind: String,
        /// The object (a Secret summarised).
        object: Box<Object>,
    },
    /// An object was deleted.
    Deleted {
        /// The kind.
        kind: String,
        /// Its namespace.
        namespace: Option<String>,
        /// Its name.
        name: String,
    },
    /// The kind could not be listed (403, an error, a bound): not checked until a list succeeds.
    Unchecked {
        /// The kind.
        kind: String,
        /// Why, as `scan` records it.
        unchecked: Unchecked,
    },
    /// The API server answered a request with an error: `code` is the HTTP status or `transport`.
    ApiError {
        /// The kind.
        kind: String,
        /// HTTP status, or `transport` (connect, TLS, a broken or idle stream, a malformed event).
        code: String,
    },
    /// The kind's watch restarts (after an error, with backoff).
    Restarted {
        /// The kind.
        kind: String,
        /// Why.
        reason: String,
    },
}

/// A connected cluster: discovery done, the kinds to watch known.
pub struct Watch {
    api: Arc<ApiGet>,
    options: ScanOptions,
    /// The context (or `in-cluster`).
    pub cluster: String,
    /// The namespace of the context.
    pub default_namespace: String,
    /// The kinds served (each watched).
    pub resources: Vec<Resource>,
    /// Known kinds whose group's discovery failed: not checked.
    pub undiscovered: Vec<Unchecked>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch").field("cluster", &self.cluster).field("resources", &self.resources.len()).finish()
    }
}

/// Connects and discovers the kinds to watch (as `scan` does).
pub async fn connect(options: &ScanOptions) -> Result<Watch, ScanError> {
    let (api, cluster, default_namespace) = crate::connect_api(options).await?;
    let (resources, undiscovered) = crate::discover(&api).await?;
    let undiscovered =
        undiscovered.into_iter().map(|(r, reason)| crate::unchecked(&r, options, &cluster, reason)).collect();
    Ok(Watch { api: Arc::new(api), options: options.clone(), cluster, default_namespace, resources, undiscovered })
}

impl Watch {
    /// Starts one task per kind on the current runtime; each lists, then watches, until `tx` closes.
    pub fn spawn(&self, tx: mpsc::Sender<WatchEvent>, limits: WatchLimits) -> Vec<tokio::task::JoinHandle<()>> {
        self.resources
            .iter()
            .map(|r| {
                let kind = KindWatch {
                    api: self.api.clone(),
                    resource: r.clone(),
                    options: self.options.clone(),
                    cluster: Arc::from(self.cluster.as_str()),
                    limits,
                    tx: tx.clone(),
                };
                tokio::spawn(kind.run())
            })
            .collect()
    }
}

struct KindWatch {
    api: Arc<ApiGet>,
    resource: Resource,
    options: ScanOptions,
    /// Shared by every object this watch sees.
    cluster: Arc<str>,
    limits: WatchLimits,
    tx: mpsc::Sender<WatchEvent>,
}

/// How one watch stream ended.
enum End {
    /// The server closed it (timeoutSeconds): resume from this resourceVersion.
    Resume(String),
    /// 410 Gone: list again at once.
    Gone,
    /// An error: count it, back off, list again.
    Failed { code: String, reason: String },
    /// The store is gone: stop.
    Closed,
}

impl KindWatch {
    fn key(&self) -> String {
        self.resource.key()
    }

    async fn send(&self, ev: WatchEvent) -> bool {
        self.tx.send(ev).await.is_ok()
    }

    async fn run(self) {
        let mut failures: u32 = 0;
        loop {
            let listed = crate::list_all(
                &self.api,
                &self.resource,
                self.options.namespace.as_deref(),
                self.options.page_size.unwrap_or(crate::PAGE_SIZE),
                &self.cluster,
            )
            .await;
            let mut rv = match listed {
                Ok(l) => {
                    let rv = l.resource_version.unwrap_or_default();
                    let ev = WatchEvent::Listed { kind: self.key(), objects: l.objects, problems: l.problems };
                    if !self.send(ev).await {
                        return;
                    }
                    failures = 0;
                    rv
                }
                Err(reason) => {
                    let code = error_code(&reason);
                    let unchecked = crate::unchecked(&self.resource, &self.options, &self.cluster, reason.clone());
                    if !self.send(WatchEvent::ApiError { kind: self.key(), code }).await
                        || !self.send(WatchEvent::Unchecked { kind: self.key(), unchecked }).await
                    {
                        return;
                    }
                    failures = failures.saturating_add(1);
                    tokio::time::sleep(backoff(&self.limits, failures)).await;
                    continue;
                }
            };
            loop {
                match self.stream(&rv).await {
                    End::Resume(next) => rv = next,
                    End::Gone => {
                        if !self.send(WatchEvent::ApiError { kind: self.key(), code: "410".into() }).await {
                            return;
                        }
                        break;
                    }
                    End::Failed { code, reason } => {
                        let k = self.key();
                        if !self.send(WatchEvent::ApiError { kind: k.clone(), code }).await
                            || !self.send(WatchEvent::Restarted { kind: k, reason }).await
                        {
                            return;
                        }
                        failures = failures.saturating_add(1);
                        tokio::time::sleep(backoff(&self.limits, failures)).await;
                        break;
                    }
                    End::Closed => return,
                }
            }
        }
    }

    /// One watch request from `rv`, its events sent as they arrive.
    async fn stream(&self, rv: &str) -> End {
        let failed = |code: &str, reason: String| End::Failed { code: code.to_string(), reason };
        let mut wp = WatchParams::default().timeout(self.limits.timeout_seconds);
        if self.resource.group.is_empty() && self.resource.kind == "Secret" {
            wp = wp.fields(crate::SECRET_FIELD_SELECTOR);
        }
        let path = self.resource.path(self.options.namespace.as_deref());
        let req = match kube::core::Request::new(&path).watch(&wp, rv) {
            Ok(r) => r,
            Err(e) => return failed("transport", e.to_string()),
        };
        let Ok(req) = http::Request::get(req.uri().to_string()).body(kube::client::Body::empty()) else {
            return failed("transport", "cannot build the watch request".into());
        };
        // Connecting and the headers under the request deadline; the stream then under an idle deadline.
        let resp = match tokio::time::timeout(self.api.timeout, self.api.client.send(req)).await {
            Err(_) => return failed("transport", "no answer to the watch within the request timeout".into()),
            Ok(Err(e)) => return failed("transport", crate::describe(&e)),
            Ok(Ok(r)) => r,
        };
        let status = resp.status().as_u16();
        let mut body = resp.into_body();
        let cap = self.limits.max_event_bytes;
        if !(200..300).contains(&status) {
            let mut buf = Vec::new();
            while let Ok(Some(Ok(frame))) = tokio::time::timeout(self.api.timeout, body.frame()).await {
                if let Ok(data) = frame.into_data() {
                    if buf.len() + data.len() > 64 * 1024 {
                        break;
                    }
                    buf.extend_from_slice(&data);
                }
            }
            if status == 410 {
                return End::Gone;
            }
            return failed(&status.to_string(), crate::status_error(status, &buf));
        }
        let idle = Duration::from_secs(u64::from(self.limits.timeout_seconds)) + self.api.timeout;
        let mut rv = rv.to_string();
        let mut line: Vec<u8> = Vec::new();
        loop {
            let frame = match tokio::time::timeout(idle, body.frame()).await {
                Err(_) => return failed("transport", format!("the watch was silent for {} s", idle.as_secs())),
                Ok(None) => return End::Resume(rv),
                Ok(Some(Err(e))) => return failed("transport", format!("reading the watch: {}", crate::describe(&e))),
                Ok(Some(Ok(f))) => f,
            };
            let Ok(data) = frame.into_data() else { continue };
            let mut rest: &[u8] = &data;
            while !rest.is_empty() {
                let (part, done) = match rest.iter().position(|&b| b == b'\n') {
                    Some(i) => (&rest[..i], Some(i + 1)),
                    None => (rest, None),
                };
                if line.len() + part.len() > cap {
                    return failed("transport", format!("a watch event exceeds the limit of {cap} bytes"));
                }
                line.extend_from_slice(part);
                let Some(n) = done else { break };
                rest = &rest[n..];
                let event = std::mem::take(&mut line);
                if event.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match self.event(&event, &mut rv).await {
                    Ok(true) => {}
                    Ok(false) => return End::Closed,
                    Err(end) => return end,
                }
            }
        }
    }

    /// One event line: sends what it changes, moves `rv` on. `Ok(false)`: the store is gone.
    async fn event(&self, line: &[u8], rv: &mut String) -> Result<bool, End> {
        let failed = |reason: String| End::Failed { code: "transport".into(), reason };
        let v: Value = serde_json::from_slice(line)
            .map_err(|e| failed(format!("a watch event is not JSON ({})", crate::json_error(&e))))?;
        let Value::Object(mut m) = v else { return Err(failed("a watch event is not an object".into())) };
        let kind = m.get("type").and_then(Value::as_str).unwrap_or("").to_string();
        let mut object = m.remove("object").unwrap_or(Value::Null);
        if kind == "ERROR" {
            let code = object.get("code").and_then(Value::as_u64).unwrap_or(0);
            if code == 410 {
                return Err(End::Gone);
            }
            let body = serde_json::to_vec(&object).unwrap_or_default();
            return Err(End::Failed { code: code.to_string(), reason: crate::status_error(code as u16, &body) });
        }
        if let Some(next) = object.pointer("/metadata/resourceVersion").and_then(Value::as_str) {
            *rv = next.to_string();
        }
        if kind == "BOOKMARK" {
            return Ok(true);
        }
        let Value::Object(o) = &mut object else { return Err(failed(format!("a {kind} event without an object"))) };
        o.insert("apiVersion".into(), Value::from(self.resource.api_version.clone()));
        o.insert("kind".into(), Value::from(self.resource.kind.clone()));
        let ev = match kind.as_str() {
            "ADDED" | "MODIFIED" => {
                let mut problems = Vec::new();
                // Summarised here: a Secret's values are dropped before the event leaves this function.
                let Some(obj) = edgecheck_load::object_from_live_value(&self.cluster, object, &mut problems) else {
                    return Ok(true);
                };
                WatchEvent::Applied { kind: self.key(), object: Box::new(obj) }
            }
            "DELETED" => {
                let meta = object.get("metadata");
                let s = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_str).map(str::to_string);
                WatchEvent::Deleted { kind: self.key(), namespace: s("namespace"), name: s("name").unwrap_or_default() }
            }
            other => {
                return Err(failed(format!(
                    "an unknown watch event type `{}`",
                    edgecheck_core::redact::controls(other)
                )))
            }
        };
        Ok(self.send(ev).await)
    }
}

/// The `code` of an API error message as `ApiGet` words them: the status, or `transport`.
fn error_code(reason: &str) -> String {
    if reason.starts_with("forbidden:") {
        return "403".into();
    }
    match reason.split_once([' ', ':']) {
        Some((c, _)) if c.len() == 3 && c.bytes().all(|b| b.is_ascii_digit()) => c.to_string(),
        _ => "transport".into(),
    }
}

/// The wait before restart number `failures` (1-based): doubling from the first backoff, at most the
/// longest, with up to a quarter of jitter so that kinds do not restart in step.
fn backoff(limits: &WatchLimits, failures: u32) -> Duration {
    let base = limits.first_backoff.saturating_mul(1u32 << failures.saturating_sub(1).min(16)).min(limits.max_backoff);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    base + base / 4 * (nanos % 1000) / 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_codes_and_backoff() {
        assert_eq!(error_code("forbidden: secrets is forbidden"), "403");
        assert_eq!(error_code("500 InternalError: etcdserver: request timed out"), "500");
        assert_eq!(error_code("500: the API server answered with an error (no Status)"), "500");
        assert_eq!(error_code("no complete answer within 30 s (--request-timeout)"), "transport");
        let l = WatchLimits::default();
        assert!(backoff(&l, 1) >= FIRST_BACKOFF && backoff(&l, 1) <= FIRST_BACKOFF * 5 / 4);
        assert!(backoff(&l, 3) >= FIRST_BACKOFF * 4);
        assert!(backoff(&l, 40) <= MAX_BACKOFF * 5 / 4);
    }
}
