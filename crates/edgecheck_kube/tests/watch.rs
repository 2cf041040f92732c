//! Watches (`edgecheck_kube::watch`) against the test API server: a list, then the changes made while it
//! runs; a relist on 410 Gone; a refused kind is "could not check" and asked again; an event over the
//! line bound restarts the watch (counted) instead of being read; GETs only.

mod api_server;

use std::collections::BTreeMap;
use std::time::Duration;

use api_server::{Cluster, Server};
use edgecheck_kube::watch::{WatchEvent, WatchLimits};
use edgecheck_kube::ScanOptions;
use serde_json::{json, Value};
use tokio::sync::mpsc;

fn service(name: &str, port: u16) -> Value {
    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "shop"},
           "spec": {"ports": [{"port": port}]}})
}

/// What the events say, folded as a store folds them: (kind, name) -> port of Services, and the log.
#[derive(Default)]
struct Seen {
    services: BTreeMap<String, u64>,
    unchecked: Vec<String>,
    errors: Vec<String>,
    restarts: usize,
    listed: usize,
}

impl Seen {
    fn apply(&mut self, ev: WatchEvent) {
        let port = |o: &edgecheck_core::Object| {
            o.value.pointer("/spec/ports/0/port").and_then(edgecheck_core::ValueRef::as_u64).unwrap_or(0)
        };
        match ev {
            WatchEvent::Listed { kind, objects, .. } if kind == "Service" => {
                self.listed += 1;
                self.services = objects.iter().map(|o| (o.name.to_string(), port(o))).collect();
            }
            WatchEvent::Applied { kind, object } if kind == "Service" => {
                self.services.insert(object.name.to_string(), port(&object));
            }
            WatchEvent::Deleted { kind, name, .. } if kind == "Service" => {
                self.services.remove(&name);
            }
            WatchEvent::Unchecked { kind, unchecked } => self.unchecked.push(format!("{kind}: {}", unchecked.reason)),
            WatchEvent::ApiError { kind, code } => self.errors.push(format!("{kind} {code}")),
            WatchEvent::Restarted { .. } => self.restarts += 1,
            _ => {}
        }
    }
}

fn options(server: &Server, dir: &std::path::Path) -> ScanOptions {
    ScanOptions {
        kubeconfig: Some(server.kubeconfig(dir)),
        timeout: Some(Duration::from_secs(10)),
        ..Default::default()
    }
}

/// Receives events until `done` holds (or fails after 20 s).
async fn until(rx: &mut mpsc::Receiver<WatchEvent>, seen: &mut Seen, what: &str, done: impl Fn(&Seen) -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !done(seen) {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(ev)) => seen.apply(ev),
            _ => panic!(
                "{what}: not seen; services {:?}, errors {:?}, unchecked {:?}",
                seen.services, seen.errors, seen.unchecked
            ),
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
}

#[test]
fn changes_arrive_through_the_watch_and_410_relists() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(Cluster {
        objects: vec![
            service("web", 80),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "shop"}}),
        ],
        forbidden: vec!["configmaps".into()],
        ..Default::default()
    });
    let limits = WatchLimits { first_backoff: Duration::from_millis(100), ..WatchLimits::default() };
    runtime().block_on(async {
        let w = edgecheck_kube::watch::connect(&options(&server, dir.path())).await.expect("connect");
        assert!(w.resources.iter().any(|r| r.key() == "Service"));
        let (tx, mut rx) = mpsc::channel(16);
        let tasks = w.spawn(tx, limits);
        let mut seen = Seen::default();
        until(&mut rx, &mut seen, "the list", |s| s.services.get("web") == Some(&80)).await;
        // A refused kind: could not check, with the server's reason; asked again after the backoff.
        until(&mut rx, &mut seen, "the refusal", |s| s.unchecked.len() >= 2).await;
        assert!(seen.unchecked[0].starts_with("ConfigMap: forbidden: configmaps is forbidden"), "{:?}", seen.unchecked);
        assert!(seen.errors.iter().any(|e| e == "ConfigMap 403"));
        server.create(service("api", 8080));
        until(&mut rx, &mut seen, "the created Service", |s| s.services.get("api") == Some(&8080)).await;
        server.update(service("api", 9090));
        until(&mut rx, &mut seen, "the changed Service", |s| s.services.get("api") == Some(&9090)).await;
        // Bookmarks while idle move the resourceVersion on; they are no errors.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        while let Ok(ev) = rx.try_recv() {
            seen.apply(ev);
        }
        assert_eq!(seen.restarts, 0, "{:?}", seen.errors);
        let lists = seen.listed;
        server.compact();
        server.delete("v1", "Service", Some("shop"), "web");
        until(&mut rx, &mut seen, "the relist after 410 and the deletion", |s| {
            s.listed > lists && !s.services.contains_key("web") && s.services.get("api") == Some(&9090)
        })
        .await;
        assert!(seen.errors.iter().any(|e| e == "Service 410"), "{:?}", seen.errors);
        assert_eq!(seen.restarts, 0, "a 410 relists at once, it is no restart");
        for t in tasks {
            t.abort();
        }
    });
    assert_eq!(server.non_get(), 0);
    assert!(server.requests().iter().all(|r| r.starts_with("GET ")));
    assert!(server.requests().iter().any(|r| r.contains("watch=") && r.contains("allowWatchBookmarks=true")));
}

#[test]
fn an_event_over_the_line_bound_restarts_the_watch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(Cluster { objects: vec![service("web", 80)], ..Default::default() });
    let limits =
        WatchLimits { max_event_bytes: 2048, first_backoff: Duration::from_millis(100), ..WatchLimits::default() };
    runtime().block_on(async {
        let w = edgecheck_kube::watch::connect(&options(&server, dir.path())).await.expect("connect");
        let (tx, mut rx) = mpsc::channel(16);
        let tasks = w.spawn(tx, limits);
        let mut seen = Seen::default();
        until(&mut rx, &mut seen, "the list", |s| s.services.contains_key("web")).await;
        let mut big = service("big", 443);
        big["metadata"]["annotations"] = json!({"filler": "x".repeat(10_000)});
        server.create(big);
        // The event is refused (counted, the watch restarts) and the relist reads the object.
        until(&mut rx, &mut seen, "the restart and relist", |s| s.restarts >= 1 && s.services.get("big") == Some(&443))
            .await;
        assert!(seen.errors.iter().any(|e| e == "Service transport"), "{:?}", seen.errors);
        for t in tasks {
            t.abort();
        }
    });
    assert_eq!(server.non_get(), 0);
}
