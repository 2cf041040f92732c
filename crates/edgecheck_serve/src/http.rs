//! The endpoints. Every answer is built from the latest snapshot (no request runs the engine, but
//! `/trace`), requests are bounded in number ([`crate::Limits::max_requests`]: more wait), traces
//! in number ([`crate::Limits::max_traces`]: more get 429) and in URL size, and only GET (and HEAD)
//! is answered.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use edgecheck_checks::diagnose::TraceTarget;

use crate::{metrics, Shared, MAX_URL_BYTES};

pub(crate) fn router(shared: Arc<Shared>) -> axum::Router {
    axum::Router::new()
        .route("/metrics", get(metrics_endpoint))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .route("/report", get(report_html))
        .route("/report.json", get(report_json))
        .route("/trace", get(trace))
        .fallback(|| async {
            (StatusCode::NOT_FOUND, "not found: /metrics /healthz /readyz /report /report.json /trace?url=\n")
        })
        .layer(axum::middleware::from_fn_with_state(shared.clone(), bounded))
        .layer(axum::extract::DefaultBodyLimit::max(4096))
        .with_state(shared)
}

/// At most `max_requests` requests at once: the others wait for a slot.
async fn bounded(State(s): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let Ok(_permit) = s.requests.clone().acquire_owned().await else {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down\n").into_response();
    };
    next.run(req).await
}

async fn metrics_endpoint(State(s): State<Arc<Shared>>) -> Response {
    let snapshot = s.snapshot();
    let counters = s.counters.lock().map(|c| c.clone()).unwrap_or_default();
    let objects = s.store.lock().map(|st| st.counts()).unwrap_or_default();
    let text = metrics::render(&metrics::Exposition {
        snapshot: snapshot.as_deref(),
        counters: &counters,
        objects: &objects,
        ready: s.ready.load(Ordering::SeqCst),
    });
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text).into_response()
}

async fn readyz(State(s): State<Arc<Shared>>) -> Response {
    if s.ready.load(Ordering::SeqCst) {
        (StatusCode::OK, "ready\n").into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready: the first sync and evaluation are not done\n").into_response()
    }
}

fn not_ready() -> Response {
    (StatusCode::SERVICE_UNAVAILABLE, "not ready: no evaluation yet\n").into_response()
}

async fn report_html(State(s): State<Arc<Shared>>) -> Response {
    let Some(snap) = s.snapshot() else { return not_ready() };
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], snap.html.clone()).into_response()
}

async fn report_json(State(s): State<Arc<Shared>>) -> Response {
    let Some(snap) = s.snapshot() else { return not_ready() };
    ([(header::CONTENT_TYPE, "application/json")], snap.json.clone()).into_response()
}

/// `/trace?url=URL`: one trace of a host the inventory claims, as `edgecheck trace --format json`.
async fn trace(State(s): State<Arc<Shared>>, uri: axum::http::Uri) -> Response {
    let bad = |code: StatusCode, why: String| (code, format!("{why}\n")).into_response();
    let query = uri.query().unwrap_or("");
    if query.len() > MAX_URL_BYTES * 3 {
        return bad(StatusCode::URI_TOO_LONG, format!("the query is longer than {} bytes", MAX_URL_BYTES * 3));
    }
    let Some(raw) = query.split('&').find_map(|kv| kv.strip_prefix("url=")) else {
        return bad(StatusCode::BAD_REQUEST, "expected /trace?url=https://HOST/PATH".into());
    };
    let url = percent_encoding::percent_decode_str(&raw.replace('+', " ")).decode_utf8_lossy().into_owned();
    if url.len() > MAX_URL_BYTES {
        return bad(StatusCode::URI_TOO_LONG, format!("the URL is longer than {MAX_URL_BYTES} bytes"));
    }
    let without = edgecheck_core::secret::without_password(&url);
    let shown = edgecheck_core::redact::controls(&without);
    let Some(target) = TraceTarget::parse(&url).filter(|t| t.port != 0) else {
        return bad(
            StatusCode::BAD_REQUEST,
            format!(
                "`{shown}` is not a URL edgecheck can trace (https://host[:port]/path, http://, grpc://, grpcs://)"
            ),
        );
    };
    let Some(snap) = s.snapshot() else { return not_ready() };
    // Only hosts the inventory claims, on the port it claims them: the pod cannot be made to probe
    // anything else.
    if !snap.targets.iter().any(|t| t.host == target.host && t.port == target.port && t.scheme == target.scheme) {
        let why = if snap.claimed.contains(&target.host) {
            format!(
                "{} is claimed, but not as {}://{}:{}; trace the claimed URL",
                target.host, target.scheme, target.host, target.port
            )
        } else {
            format!(
                "{} is not claimed by any object of the inventory: serve traces only the hosts it watches",
                target.host
            )
        };
        return bad(StatusCode::FORBIDDEN, format!("refused: {}", edgecheck_core::redact::controls(&why)));
    }
    let Ok(_permit) = s.traces.try_acquire() else {
        return bad(
            StatusCode::TOO_MANY_REQUESTS,
            format!("{} traces are running: try again", s.config.limits.max_traces),
        );
    };
    let observations = if s.config.probe.included(&target.host) && s.config.probe_interval.is_some() {
        s.config.probe.probe(std::slice::from_ref(&target)).await
    } else {
        Vec::new()
    };
    let Some((inventory, complete)) = s.inventory() else { return not_ready() };
    let engine = s.config.engine.clone();
    let t = target.clone();
    match tokio::task::spawn_blocking(move || crate::eval::trace(inventory, complete, &engine, &t, &observations)).await
    {
        Ok(json) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        Err(e) => bad(StatusCode::INTERNAL_SERVER_ERROR, format!("the trace failed: {e}")),
    }
}
