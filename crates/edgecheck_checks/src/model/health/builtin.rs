//! gitops-engine's built-in health checks (`pkg/health`, as vendored in argo-cd's `gitops-engine/` at the
//! pinned release [`super::ARGO_CD_VERSION`]), reimplemented.
//!
//! Where edgecheck says more than that release (listed in docs/design.md, "Argo CD health"): a suspended
//! Job carries its `Suspended` condition's message, or "Job is suspended" (3.5.1 gives an empty message;
//! argo-cd#28738, merged after it, gives the condition's); a Pod's
//! `argocd.argoproj.io/ignore-restart-policy: "true"` is honoured (argo-cd#28249, merged after 3.5.1); a
//! Progressing Service or Ingress, and a PVC that is not Bound, say why where Argo CD's message is empty.
//!
//! Objects are read with Go's zero values for absent fields, as gitops-engine's conversion to typed
//! objects does: a Deployment without `status` has observedGeneration 0 and 0 updated replicas, so it
//! is Progressing when it declares `spec.replicas` or a `metadata.generation`, else Healthy.

use edgecheck_core::Object;
use edgecheck_core::{SeqRef, Value, ValueRef};

use super::{arr, health, i, opt_i, s, version};
use crate::model::{Health, HealthStatus};

use HealthStatus::{Degraded, Healthy, Progressing, Suspended, Unknown};

/// True for the group/kinds gitops-engine dispatches to a check.
pub(super) fn handles(group: &str, kind: &str) -> bool {
    matches!(
        (group, kind),
        ("apps", "Deployment" | "StatefulSet" | "ReplicaSet" | "DaemonSet")
            | ("extensions" | "networking.k8s.io", "Ingress")
            | ("argoproj.io", "Workflow")
            | ("apiregistration.k8s.io", "APIService")
            | ("", "Service" | "PersistentVolumeClaim" | "Pod")
            | ("batch", "Job")
            | ("autoscaling", "HorizontalPodAutoscaler")
    )
}

pub(super) fn assess(obj: &Object, group: &str, kind: &str) -> Option<Health> {
    if !handles(group, kind) {
        return None;
    }
    let v = obj.value.root();
    let ver = version(obj.api_version());
    let supported = match (group, kind) {
        ("extensions" | "networking.k8s.io", "Ingress") | ("argoproj.io", "Workflow") => true,
        ("apiregistration.k8s.io", _) => matches!(ver, "v1" | "v1beta1"),
        ("autoscaling", _) => matches!(ver, "v1" | "v2"),
        _ => ver == "v1",
    };
    if !supported {
        let label = match kind {
            "HorizontalPodAutoscaler" => "HPA",
            k => k,
        };
        return Some(health(
            Unknown,
            format!("unsupported {label} GVK: {}, Kind={kind}", obj.api_version()),
            group,
            kind,
            None,
            false,
        ));
    }
    let h = |status, message: String| health(status, message, group, kind, None, false);
    Some(match kind {
        "Deployment" => deployment(obj, v, &h),
        "StatefulSet" => statefulset(v, &h),
        "DaemonSet" => daemonset(obj, v, &h),
        "ReplicaSet" => replicaset(v, &h),
        "Pod" => pod(obj, v, &h),
        "Job" => job(v, &h),
        "Service" => {
            if s(v, "/spec/type") == "LoadBalancer" && arr(v, "/status/loadBalancer/ingress").is_empty() {
                h(Progressing, "no LoadBalancer address in status.loadBalancer.ingress".into())
            } else {
                h(Healthy, String::new())
            }
        }
        "Ingress" => {
            if arr(v, "/status/loadBalancer/ingress").is_empty() {
                h(Progressing, "no LoadBalancer address in status.loadBalancer.ingress".into())
            } else {
                h(Healthy, String::new())
            }
        }
        "PersistentVolumeClaim" => match s(v, "/status/phase") {
            "Lost" => h(Degraded, "PersistentVolumeClaim phase Lost".into()),
            "Pending" => h(Progressing, "PersistentVolumeClaim phase Pending".into()),
            "Bound" => h(Healthy, String::new()),
            "" => h(Unknown, "no status.phase".into()),
            p => h(Unknown, format!("PersistentVolumeClaim phase {p}")),
        },
        "APIService" => {
            let available = arr(v, "/status/conditions").iter().find(|c| s(c, "/type") == "Available");
            match available {
                Some(c) => {
                    let msg = format!("{}: {}", s(c, "/reason"), s(c, "/message"));
                    h(if s(c, "/status") == "True" { Healthy } else { Progressing }, msg)
                }
                None => h(Progressing, "Waiting to be processed".into()),
            }
        }
        "HorizontalPodAutoscaler" => hpa(v, ver, &h),
        _ => {
            // Workflow
            let msg = s(v, "/status/message").to_string();
            match s(v, "/status/phase") {
                "" | "Pending" | "Running" => h(Progressing, msg),
                "Succeeded" => h(Healthy, msg),
                "Failed" | "Error" => h(Degraded, msg),
                _ => h(Unknown, msg),
            }
        }
    })
}

fn condition<'a>(v: ValueRef<'a>, ty: &str) -> Option<ValueRef<'a>> {
    arr(v, "/status/conditions").iter().find(|c| s(c, "/type") == ty)
}

fn deployment(obj: &Object, v: ValueRef<'_>, h: &dyn Fn(HealthStatus, String) -> Health) -> Health {
    if v.pointer("/spec/paused").and_then(ValueRef::as_bool) == Some(true) {
        return h(Suspended, "Deployment is paused".into());
    }
    if i(v, "/metadata/generation") > i(v, "/status/observedGeneration") {
        return h(
            Progressing,
            "Waiting for rollout to finish: observed deployment generation less than desired generation".into(),
        );
    }
    let replicas = opt_i(v, "/spec/replicas");
    let updated = i(v, "/status/updatedReplicas");
    let current = i(v, "/status/replicas");
    let available = i(v, "/status/availableReplicas");
    if condition(v, "Progressing").is_some_and(|c| s(c, "/reason") == "ProgressDeadlineExceeded") {
        let mut m = h(Degraded, format!("Deployment {:?} exceeded its progress deadline", obj.name));
        m.layer = Some(edgecheck_core::Layer::Backend);
        return m;
    }
    if let Some(r) = replicas.filter(|r| updated < *r) {
        return h(
            Progressing,
            format!("Waiting for rollout to finish: {updated} out of {r} new replicas have been updated..."),
        );
    }
    if current > updated {
        return h(
            Progressing,
            format!("Waiting for rollout to finish: {} old replicas are pending termination...", current - updated),
        );
    }
    if available < updated {
        return h(
            Progressing,
            format!("Waiting for rollout to finish: {available} of {updated} updated replicas are available..."),
        );
    }
    h(Healthy, String::new())
}

fn statefulset(v: ValueRef<'_>, h: &dyn Fn(HealthStatus, String) -> Health) -> Health {
    let observed = i(v, "/status/observedGeneration");
    if observed == 0 || i(v, "/metadata/generation") > observed {
        return h(Progressing, "Waiting for statefulset spec update to be observed...".into());
    }
    let replicas = opt_i(v, "/spec/replicas");
    let ready = i(v, "/status/readyReplicas");
    let updated = i(v, "/status/updatedReplicas");
    if let Some(r) = replicas.filter(|r| ready < *r) {
        return h(Progressing, format!("Waiting for {} pods to be ready...", r - ready));
    }
    let strategy = s(v, "/spec/updateStrategy/type");
    let rolling = v.pointer("/spec/updateStrategy/rollingUpdate").filter(|r| !r.is_null());
    if strategy == "RollingUpdate" && rolling.is_some() {
        if let (Some(r), Some(p)) = (replicas, opt_i(v, "/spec/updateStrategy/rollingUpdate/partition")) {
            if updated < r - p {
                return h(
                    Progressing,
                    format!(
                        "Waiting for partitioned roll out to finish: {updated} out of {} new pods have been updated...",
                        r - p
                    ),
                );
            }
        }
        return h(Healthy, format!("partitioned roll out complete: {updated} new pods have been updated..."));
    }
    if strategy == "OnDelete" {
        return h(Healthy, format!("statefulset has {ready} ready pods"));
    }
    let update_rev = s(v, "/status/updateRevision");
    let current_rev = s(v, "/status/currentRevision");
    if update_rev != current_rev {
        return h(
            Progressing,
            format!("waiting for statefulset rolling update to complete {updated} pods at revision {update_rev}..."),
        );
    }
    h(
        Healthy,
        format!(
            "statefulset rolling update complete {} pods at revision {current_rev}...",
            i(v, "/status/currentReplicas")
        ),
    )
}

fn daemonset(obj: &Object, v: ValueRef<'_>, h: &dyn Fn(HealthStatus, String) -> Health) -> Health {
    if i(v, "/metadata/generation") > i(v, "/status/observedGeneration") {
        return h(
            Progressing,
            "Waiting for rollout to finish: observed daemon set generation less than desired generation".into(),
        );
    }
    let updated = i(v, "/status/updatedNumberScheduled");
    let desired = i(v, "/status/desiredNumberScheduled");
    let available = i(v, "/status/numberAvailable");
    if s(v, "/spec/updateStrategy/type") == "OnDelete" {
        return h(Healthy, format!("daemon set {updated} out of {desired} new pods have been updated"));
    }
    if updated < desired {
        return h(
            Progressing,
            format!(
                "Waiting for daemon set {:?} rollout to finish: {updated} out of {desired} new pods have been updated...",
                obj.name
            ),
        );
    }
    if available < desired {
        return h(
            Progressing,
            format!(
                "Waiting for daemon set {:?} rollout to finish: {available} of {desired} updated pods are available...",
                obj.name
            ),
        );
    }
    h(Healthy, String::new())
}

fn replicaset(v: ValueRef<'_>, h: &dyn Fn(HealthStatus, String) -> Health) -> Health {
    if i(v, "/metadata/generation") > i(v, "/status/observedGeneration") {
        return h(
            Progressing,
            "Waiting for rollout to finish: observed replica set generation less than desired generation".into(),
        );
    }
    if let Some(c) = condition(v, "ReplicaFailure").filter(|c| s(c, "/status") == "True") {
        return h(Degraded, s(c, "/message").to_string());
    }
    let available = i(v, "/status/availableReplicas");
    if let Some(r) = opt_i(v, "/spec/replicas").filter(|r| available < *r) {
        return h(
            Progressing,
            format!("Waiting for rollout to finish: {available} out of {r} new replicas are available..."),
        );
    }
    h(Healthy, String::new())
}

/// True when Argo CD treats the object as a sync hook (`argocd.argoproj.io/hook`, unless its only
/// type is `Skip`; else a Helm hook other than `crd-install`).
fn is_hook(obj: &Object) -> bool {
    if let Some(types) = obj.annotation("argocd.argoproj.io/hook") {
        const TYPES: [&str; 7] = ["PreSync", "Sync", "PostSync", "SyncFail", "PostDelete", "PreDelete", "Skip"];
        let known: Vec<&str> = types.split(',').map(str::trim).filter(|t| TYPES.contains(t)).collect();
        return !(known.len() == 1 && known[0] == "Skip");
    }
    obj.annotation("helm.sh/hook").is_some_and(|v| v != "crd-install")
}

fn pod(obj: &Object, v: ValueRef<'_>, h: &dyn Fn(HealthStatus, String) -> Health) -> Health {
    let ignore_restart_policy =
        obj.annotation("argocd.argoproj.io/ignore-restart-policy") == Some("true") && !is_hook(obj);
    let policy = s(v, "/spec/restartPolicy");
    // With the ignore-restart-policy annotation a finite pod is assessed like a long-running one.
    let restart = if ignore_restart_policy { "Always" } else { policy };
    let containers = arr(v, "/status/containerStatuses");
    let init = arr(v, "/status/initContainerStatuses");
    let message = s(v, "/status/message").to_string();
    if restart == "Always" {
        let waiting: Vec<&str> = containers
            .iter()
            .filter(|c| {
                let r = s(c, "/state/waiting/reason");
                c.pointer("/state/waiting").is_some_and(|w| !w.is_null())
                    && (r.starts_with("Err") || r.ends_with("Error") || r.ends_with("BackOff"))
            })
            .map(|c| s(c, "/state/waiting/message"))
            .collect();
        if !waiting.is_empty() {
            return h(Degraded, waiting.join(", "));
        }
    }
    match s(v, "/status/phase") {
        "Pending" => h(Progressing, message),
        "Succeeded" => h(Healthy, message),
        "Failed" => {
            if !message.is_empty() {
                return h(Degraded, message);
            }
            let fail = init.iter().chain(containers).find_map(|c| {
                let t = c.pointer("/state/terminated").filter(|t| !t.is_null())?;
                if !s(t, "/message").is_empty() {
                    Some(s(t, "/message").to_string())
                } else if s(t, "/reason") == "OOMKilled" {
                    Some("OOMKilled".to_string())
                } else if i(t, "/exitCode") != 0 {
                    Some(format!("container {:?} failed with exit code {}", s(c, "/name"), i(t, "/exitCode")))
                } else {
                    None
                }
            });
            h(Degraded, fail.unwrap_or_default())
        }
        "Running" => match restart {
            "Always" => {
                let ready = condition(v, "Ready").is_some_and(|c| s(c, "/status") == "True");
                if ready {
                    return h(Healthy, message);
                }
                let restarted =
                    containers.iter().any(|c| c.pointer("/lastState/terminated").is_some_and(|t| !t.is_null()));
                h(if restarted { Degraded } else { Progressing }, message)
            }
            "OnFailure" | "Never" => h(Progressing, message),
            _ => h(Unknown, message),
        },
        _ => h(Unknown, message),
    }
}

fn job(v: ValueRef<'_>, h: &dyn Fn(HealthStatus, String) -> Health) -> Health {
    let (mut failed, mut complete, mut suspended) = (false, false, false);
    let (mut fail_msg, mut message) = ("", "");
    for c in arr(v, "/status/conditions") {
        match s(c, "/type") {
            "Failed" => {
                failed = true;
                complete = true;
                fail_msg = s(c, "/message");
            }
            "Complete" => {
                complete = true;
                message = s(c, "/message");
            }
            "Suspended" => {
                complete = true;
                message = s(c, "/message");
                if s(c, "/status") == "True" {
                    suspended = true;
                }
            }
            _ => {}
        }
    }
    if !complete {
        h(Progressing, message.to_string())
    } else if failed {
        h(Degraded, fail_msg.to_string())
    } else if suspended {
        let m = if message.is_empty() { "Job is suspended" } else { message };
        h(Suspended, m.to_string())
    } else {
        h(Healthy, message.to_string())
    }
}

fn hpa(v: ValueRef<'_>, ver: &str, h: &dyn Fn(HealthStatus, String) -> Health) -> Health {
    let progressing = || h(Progressing, "Waiting to Autoscale".into());
    let parsed;
    let conditions: SeqRef<'_> = if ver == "v1" {
        let Some(text) =
            v.pointer("/metadata/annotations/autoscaling.alpha.kubernetes.io~1conditions").and_then(ValueRef::as_str)
        else {
            return progressing();
        };
        match serde_json::from_str::<Vec<Value>>(text) {
            Ok(c) => {
                parsed = edgecheck_core::Doc::from(Value::from(c));
                parsed.root().as_array().unwrap_or_default()
            }
            Err(e) => return h(Unknown, format!("failed to convert conditions annotation to typed: {e}")),
        }
    } else {
        arr(v, "/status/conditions")
    };
    // Every condition is looked at for a degraded reason before any for a healthy one.
    let degraded = conditions.iter().find(|c| {
        matches!(
            (s(c, "/type"), s(c, "/reason")),
            ("AbleToScale", "FailedGetScale" | "FailedUpdateScale")
                | (
                    "ScalingActive",
                    "FailedGetResourceMetric"
                        | "FailedGetObjectMetric"
                        | "FailedGetPodsMetric"
                        | "FailedGetExternalMetric"
                        | "FailedComputeMetricsReplicas"
                        | "InvalidSelector"
                )
        )
    });
    if let Some(c) = degraded {
        return h(Degraded, s(c, "/message").to_string());
    }
    let healthy = conditions
        .iter()
        .find(|c| matches!(s(c, "/type"), "AbleToScale" | "ScalingLimited") && s(c, "/status") == "True");
    if let Some(c) = healthy {
        return h(Healthy, s(c, "/message").to_string());
    }
    progressing()
}
