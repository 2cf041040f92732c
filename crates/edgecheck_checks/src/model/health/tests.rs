//! Health fixtures (`resources/health/<kind>_<case>.yaml`) and unit tests for the tricky rules.
//!
//! A fixture declares, per object, `# health: Kind/namespace/name Status "message prefix"` (or
//! `Kind/name` for any namespace, `none` for no health; after the status `own` for edgecheck's own
//! health and `layer=<layer>` for the expected layer).

use edgecheck_core::json;
use edgecheck_core::Layer;

use super::*;
use crate::model::Model;
use crate::test_support::{graph_from_text, resources_dir, NOW};

struct Expect {
    kind: String,
    namespace: Option<String>,
    name: String,
    status: Option<String>,
    prefix: String,
    own: bool,
    layer: Option<String>,
}

fn parse_expect(line: &str) -> Expect {
    let (head, prefix) = match line.split_once('"') {
        Some((h, rest)) => {
            let rest = rest.trim_end();
            (h, rest.strip_suffix('"').unwrap_or(rest).to_string())
        }
        None => (line, String::new()),
    };
    let mut words = head.split_whitespace();
    let obj = words.next().unwrap_or_else(|| panic!("bad health line {line}"));
    let status = words.next().unwrap_or_else(|| panic!("no status in {line}"));
    let rest: Vec<&str> = words.collect();
    let own = rest.contains(&"own");
    let layer = rest.iter().find_map(|w| w.strip_prefix("layer=")).map(str::to_string);
    let parts: Vec<&str> = obj.split('/').collect();
    let (kind, namespace, name) = match parts.as_slice() {
        [k, n] => (*k, None, *n),
        [k, ns, n] => (*k, Some(ns.to_string()), *n),
        _ => panic!("bad object {obj}"),
    };
    Expect {
        kind: kind.to_string(),
        namespace,
        name: name.to_string(),
        status: (status != "none").then(|| status.to_string()),
        prefix: prefix.replace("\\\"", "\""),
        own,
        layer,
    }
}

#[test]
fn fixtures() {
    let dir = resources_dir().join("health");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() > 20, "health fixtures missing");
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let expects: Vec<Expect> =
            text.lines().filter_map(|l| l.strip_prefix("# health:")).map(|l| parse_expect(l.trim())).collect();
        assert!(!expects.is_empty(), "{name}: no `# health:` lines");
        let (graph, _) = graph_from_text(&name, &text);
        let model = Model::compute(&graph, NOW);
        for e in &expects {
            let found = graph.iter().find(|(_, o)| {
                o.kind.kind == e.kind
                    && o.name == e.name
                    && (e.namespace.is_none() || o.namespace.as_deref() == e.namespace.as_deref())
            });
            let Some((id, _)) = found else {
                failures.push(format!("{name}: {}/{} not loaded", e.kind, e.name));
                continue;
            };
            checked += 1;
            let got = model.health_of(id);
            match (&e.status, got) {
                (None, None) => {}
                (None, Some(h)) => failures.push(format!("{name}: {} expected no health, got {h:?}", e.name)),
                (Some(s), None) => failures.push(format!("{name}: {} expected {s}, got none", e.name)),
                (Some(s), Some(h)) => {
                    if h.status.as_str() != s || !h.message.starts_with(&e.prefix) || h.own != e.own {
                        failures.push(format!(
                            "{name}: {}/{} expected {s} {:?} own={}, got {} {:?} own={}",
                            e.kind,
                            e.name,
                            e.prefix,
                            e.own,
                            h.status.as_str(),
                            h.message,
                            h.own
                        ));
                    }
                    if let Some(l) = &e.layer {
                        if h.layer.map(Layer::as_str) != Some(l.as_str()) {
                            failures.push(format!("{name}: {} expected layer {l}, got {:?}", e.name, h.layer));
                        }
                    }
                    if h.status != HealthStatus::Healthy && h.layer.is_none() {
                        failures.push(format!("{name}: {} non-Healthy without layer", e.name));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(checked > 60, "only {checked} objects checked");
}

fn obj(api_version: &str, kind: &str, body: edgecheck_core::Value) -> Option<Health> {
    let mut v = body;
    v["apiVersion"] = json!(api_version);
    v["kind"] = json!(kind);
    if v.get("metadata").is_none() {
        v["metadata"] = json!({"name": "x", "namespace": "ns"});
    }
    // Status from a file: trusted as live, as a dump's would be.
    let text = format!("# options: live\n{}", serde_json::to_string(&v).unwrap());
    let (graph, _) = graph_from_text("unit.yaml", &text);
    let model = Model::compute(&graph, NOW);
    model.health.into_iter().next().flatten()
}

fn status_msg(h: &Option<Health>) -> (HealthStatus, String) {
    let h = h.as_ref().expect("health");
    (h.status, h.message.to_string())
}

#[test]
fn deployment_paused_is_suspended_before_anything_else() {
    let h = obj(
        "apps/v1",
        "Deployment",
        json!({"metadata": {"name": "w", "generation": 5}, "spec": {"paused": true, "replicas": 3},
               "status": {"observedGeneration": 1}}),
    );
    assert_eq!(status_msg(&h), (HealthStatus::Suspended, "Deployment is paused".into()));
}

#[test]
fn deployment_generation_lag_wins_over_deadline() {
    let h = obj(
        "apps/v1",
        "Deployment",
        json!({"metadata": {"name": "w", "generation": 3}, "spec": {"replicas": 1},
               "status": {"observedGeneration": 2, "replicas": 1, "updatedReplicas": 1, "availableReplicas": 1,
                          "conditions": [{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}]}}),
    );
    assert_eq!(
        status_msg(&h),
        (
            HealthStatus::Progressing,
            "Waiting for rollout to finish: observed deployment generation less than desired generation".into()
        )
    );
    let h = obj(
        "apps/v1",
        "Deployment",
        json!({"metadata": {"name": "w", "generation": 3}, "spec": {"replicas": 1},
               "status": {"observedGeneration": 3, "replicas": 1, "updatedReplicas": 1, "availableReplicas": 1,
                          "conditions": [{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}]}}),
    );
    assert_eq!(status_msg(&h), (HealthStatus::Degraded, "Deployment \"w\" exceeded its progress deadline".into()));
    assert_eq!(h.unwrap().layer, Some(Layer::Backend));
}

#[test]
fn pod_init_container_failure_message() {
    let h = obj(
        "v1",
        "Pod",
        json!({"spec": {"restartPolicy": "Never"},
               "status": {"phase": "Failed",
                          "initContainerStatuses": [{"name": "migrate", "state": {"terminated": {"exitCode": 2}}}],
                          "containerStatuses": [{"name": "app", "state": {"terminated": {"exitCode": 1, "message": "later"}}}]}}),
    );
    assert_eq!(status_msg(&h), (HealthStatus::Degraded, "container \"migrate\" failed with exit code 2".into()));
}

#[test]
fn pod_crash_loop_joins_waiting_messages_only_with_restart_always() {
    let status = json!({"phase": "Running", "containerStatuses": [
        {"name": "a", "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container=a"}}},
        {"name": "b", "state": {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling image \"b\""}}}]});
    let h = obj("v1", "Pod", json!({"spec": {"restartPolicy": "Always"}, "status": status.clone()}));
    assert_eq!(
        status_msg(&h),
        (HealthStatus::Degraded, "back-off 5m0s restarting failed container=a, Back-off pulling image \"b\"".into())
    );
    // Without restartPolicy (not defaulted in a manifest) the waiting reasons are not looked at.
    let h = obj("v1", "Pod", json!({"spec": {}, "status": status}));
    assert_eq!(status_msg(&h).0, HealthStatus::Unknown);
}

#[test]
fn job_suspended() {
    let h = obj(
        "batch/v1",
        "Job",
        json!({"spec": {"suspend": true}, "status": {"conditions": [
            {"type": "Suspended", "status": "True", "reason": "JobSuspended", "message": "Job suspended"}]}}),
    );
    assert_eq!(status_msg(&h).0, HealthStatus::Suspended);
    // spec.suspend alone, before the controller wrote the condition: still Progressing, as Argo CD says.
    let h = obj("batch/v1", "Job", json!({"spec": {"suspend": true}}));
    assert_eq!(status_msg(&h), (HealthStatus::Progressing, String::new()));
}

#[test]
fn deletion_timestamp_is_pending_deletion_unless_hook_finalizer() {
    let h =
        obj("apps/v1", "Deployment", json!({"metadata": {"name": "w", "deletionTimestamp": "2026-05-01T00:00:00Z"}}));
    assert_eq!(status_msg(&h), (HealthStatus::Progressing, "Pending deletion".into()));
    let h = obj(
        "apps/v1",
        "Deployment",
        json!({"metadata": {"name": "w", "deletionTimestamp": "2026-05-01T00:00:00Z",
                            "finalizers": ["argocd.argoproj.io/hook-finalizer"]}, "spec": {"paused": true}}),
    );
    assert_eq!(status_msg(&h).0, HealthStatus::Suspended);
    // Kinds nobody assesses stay without health even while deleting.
    let h = obj("v1", "ConfigMap", json!({"metadata": {"name": "c", "deletionTimestamp": "2026-05-01T00:00:00Z"}}));
    assert!(h.is_none());
}

#[test]
fn unsupported_versions() {
    let h = obj("apps/v1beta2", "Deployment", json!({}));
    assert_eq!(
        status_msg(&h),
        (HealthStatus::Unknown, "unsupported Deployment GVK: apps/v1beta2, Kind=Deployment".into())
    );
    // gitops-engine does not dispatch extensions Deployments at all.
    assert!(obj("extensions/v1beta1", "Deployment", json!({})).is_none());
    // Ingress is read unstructured in every version.
    assert_eq!(status_msg(&obj("extensions/v1beta1", "Ingress", json!({}))).0, HealthStatus::Progressing);
}

#[test]
fn nested_resource_customizations_enable_application_health() {
    let text = "argoproj.io/Application:\n  health.lua: |\n    hs = {}\n    return hs\n";
    assert!(custom_nested(text));
    assert!(!custom_nested(
        "argoproj.io/Application:\n  ignoreDifferences: |\n    x\napps/Deployment:\n  health.lua: |\n    x\n"
    ));
}

fn custom_nested(text: &str) -> bool {
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "argocd-cm", "namespace": "argocd"},
                    "data": {"resource.customizations": text}});
    let (graph, _) = graph_from_text("cm.yaml", &format!("# options: live\n{}", serde_json::to_string(&cm).unwrap()));
    custom::application_health_enabled(&graph)
}
