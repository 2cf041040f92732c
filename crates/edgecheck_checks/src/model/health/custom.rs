//! Argo CD's bundled resource customizations (`resource_customizations/<group>/<Kind>/health.lua`),
//! reimplemented, and the Application health enabled by `argocd-cm`.
//!
//! Lua semantics kept: a condition's missing `message` is Lua `nil`, so the health message is empty
//! (edgecheck then appends the condition's type and reason); absent `status` falls through to the
//! script's final "Waiting for ..." result.

use edgecheck_core::kind::K;
use edgecheck_core::Graph;
use serde_json::Value;

use super::{arr, health, s};
use crate::model::{Health, HealthStatus};

use HealthStatus::{Degraded, Healthy, Progressing};

const GW: &str = "gateway.networking.k8s.io";

/// True for the group/kinds that have a bundled health customization (and Application when
/// enabled).
pub(super) fn handles(group: &str, kind: &str, app_health: bool) -> bool {
    matches!(
        (group, kind),
        ("cert-manager.io", "Certificate" | "Issuer" | "ClusterIssuer")
            | (
                "external-secrets.io",
                "ExternalSecret" | "ClusterExternalSecret" | "SecretStore" | "ClusterSecretStore" | "PushSecret"
            )
            | (GW, "GatewayClass" | "Gateway" | "HTTPRoute" | "GRPCRoute" | "BackendTLSPolicy")
            | ("certmanager.k8s.io", "Certificate" | "Issuer")
            | ("argoproj.io", "ApplicationSet")
            | ("networking.gke.io", "ManagedCertificate")
            | ("route.openshift.io", "Route")
    ) || (app_health && group == "argoproj.io" && kind == "Application")
}

/// True when an `argocd-cm` ConfigMap in the inventory enables Application health, either with the
/// flat key `resource.customizations.health.argoproj.io_Application` or in the nested
/// `resource.customizations` block (`argoproj.io/Application:` with `health.lua:`).
pub(super) fn application_health_enabled(graph: &Graph) -> bool {
    graph.ids(K::CONFIG_MAP).iter().any(|id| {
        let cm = graph.obj(*id);
        if cm.name != "argocd-cm" {
            return false;
        }
        let data = cm.value.get("data");
        let flat = data
            .and_then(|d| d.get("resource.customizations.health.argoproj.io_Application"))
            .and_then(Value::as_str)
            .is_some_and(|t| !t.trim().is_empty());
        let nested = data
            .and_then(|d| d.get("resource.customizations"))
            .and_then(Value::as_str)
            .is_some_and(nested_application_health);
        flat || nested
    })
}

fn nested_application_health(text: &str) -> bool {
    let mut in_app = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if let Some(app_indent) = in_app {
            if indent <= app_indent {
                in_app = None;
            } else if t.starts_with("health.lua:") {
                return true;
            }
        }
        if t.trim_matches(['"', '\'']).starts_with("argoproj.io/Application") && t.ends_with(':') {
            in_app = Some(indent);
        }
    }
    false
}

pub(super) fn assess(obj: &edgecheck_core::Object, group: &str, kind: &str, app_health: bool) -> Option<Health> {
    if !handles(group, kind, app_health) {
        return None;
    }
    let v = &obj.value;
    Some(match (group, kind) {
        ("cert-manager.io", "Certificate") => {
            let issuing = conditions(v).find(|c| s(c, "/type") == "Issuing" && s(c, "/status") == "True");
            if let Some(c) = issuing {
                cond_health(Progressing, c, group, kind)
            } else {
                ready(v, group, kind).unwrap_or_else(|| waiting("Waiting for certificate", group, kind))
            }
        }
        // The pre-1.0 group: Ready alone decides (no Issuing condition).
        ("certmanager.k8s.io", "Certificate") => {
            ready(v, group, kind).unwrap_or_else(|| waiting("Waiting for certificate", group, kind))
        }
        ("cert-manager.io" | "certmanager.k8s.io", "Issuer") => {
            ready(v, group, kind).unwrap_or_else(|| waiting("Initializing issuer", group, kind))
        }
        ("cert-manager.io", _) => {
            ready(v, group, kind).unwrap_or_else(|| waiting("Initializing ClusterIssuer", group, kind))
        }
        ("external-secrets.io", "ClusterExternalSecret") => {
            let conds = v.pointer("/status/conditions").and_then(Value::as_array);
            if conds.is_some_and(Vec::is_empty) {
                // The script indexes the last condition of an empty list and fails.
                return Some(lua_error("attempt to index a nil value (status.conditions is empty)", group, kind));
            }
            let last = conds.and_then(|c| c.last());
            let verdict = last.and_then(|c| {
                let st = match (s(c, "/type"), s(c, "/status")) {
                    ("Ready", "True") => Healthy,
                    ("PartiallyReady" | "NotReady", "True") => Degraded,
                    _ => return None,
                };
                Some(cond_health(st, c, group, kind))
            });
            verdict.unwrap_or_else(|| waiting("Waiting for ClusterExternalSecret", group, kind))
        }
        ("external-secrets.io", _) => {
            let fallback = format!("Waiting for {kind}");
            ready(v, group, kind).unwrap_or_else(|| waiting(&fallback, group, kind))
        }
        ("argoproj.io", "ApplicationSet") => application_set(v, group, kind),
        ("networking.gke.io", _) => managed_certificate(v, group, kind),
        ("route.openshift.io", _) => openshift_route(v, group, kind),
        (GW, "GatewayClass") => gateway_class(v, group, kind),
        (GW, "Gateway") => gateway(v, group, kind),
        (GW, "HTTPRoute") => route(v, group, kind, true),
        (GW, "GRPCRoute") => route(v, group, kind, false),
        (GW, _) => backend_tls_policy(v, group, kind),
        _ => application(v, group, kind),
    })
}

fn conditions(v: &Value) -> impl Iterator<Item = &Value> {
    arr(v, "/status/conditions").iter()
}

/// Where the bundled script itself fails, Argo CD reports Unknown with the Lua error.
fn lua_error(message: &str, group: &str, kind: &str) -> Health {
    health(HealthStatus::Unknown, message, group, kind, None, false)
}

fn waiting(message: &str, group: &str, kind: &str) -> Health {
    health(Progressing, message, group, kind, None, false)
}

/// A result decided by one condition: its message (Lua), the layer from its reason.
fn cond_health(status: HealthStatus, c: &Value, group: &str, kind: &str) -> Health {
    let mut message = s(c, "/message").to_string();
    if message.is_empty() && status != Healthy {
        message = format!("{}={} {}", s(c, "/type"), s(c, "/status"), s(c, "/reason")).trim_end().to_string();
    }
    health(status, message, group, kind, Some((s(c, "/type"), s(c, "/reason"))), false)
}

/// The common "first Ready condition decides" script.
fn ready(v: &Value, group: &str, kind: &str) -> Option<Health> {
    conditions(v).find_map(|c| match (s(c, "/type"), s(c, "/status")) {
        ("Ready", "False") => Some(cond_health(Degraded, c, group, kind)),
        ("Ready", "True") => Some(cond_health(Healthy, c, group, kind)),
        _ => None,
    })
}

fn generation(v: &Value) -> Option<i64> {
    v.pointer("/metadata/generation").and_then(Value::as_i64)
}

fn gateway_class(v: &Value, group: &str, kind: &str) -> Health {
    let gen = generation(v);
    for c in conditions(v).filter(|c| s(c, "/type") == "Accepted") {
        let observed = c.get("observedGeneration").and_then(Value::as_i64);
        if let (Some(g), Some(o)) = (gen, observed) {
            if g != o {
                continue;
            }
        }
        let has_msg = c.get("message").and_then(Value::as_str).is_some();
        let reason = Some(("Accepted", s(c, "/reason")));
        return match s(c, "/status") {
            "True" => {
                let m = if has_msg { s(c, "/message") } else { "GatewayClass is accepted" };
                health(Healthy, m, group, kind, None, false)
            }
            "False" => {
                let m = if has_msg { s(c, "/message") } else { "GatewayClass is not accepted" };
                health(Degraded, m, group, kind, reason, false)
            }
            _ => {
                let m = if has_msg { s(c, "/message") } else { "Waiting for GatewayClass status" };
                health(Progressing, m, group, kind, reason, false)
            }
        };
    }
    waiting("Waiting for GatewayClass status", group, kind)
}

/// The Lua `checkConditions`: the first condition of `ty` with status "False".
fn failed<'a>(conds: &'a [Value], ty: &str) -> Option<(&'a Value, String)> {
    conds.iter().find(|c| s(c, "/type") == ty && s(c, "/status") == "False").map(|c| {
        let m = match c.get("message").and_then(Value::as_str) {
            Some(m) => m.to_string(),
            None => format!("Failed condition: {ty}"),
        };
        (c, m)
    })
}

fn not_programmed<'a>(conds: &'a [Value], default: &str) -> Option<(&'a Value, String)> {
    conds.iter().find(|c| s(c, "/type") == "Programmed" && s(c, "/status") != "True").map(|c| {
        let m = c.get("message").and_then(Value::as_str).unwrap_or(default).to_string();
        (c, m)
    })
}

fn reason_of(c: &Value) -> Option<(&str, &str)> {
    Some((s(c, "/type"), s(c, "/reason")))
}

fn gateway(v: &Value, group: &str, kind: &str) -> Health {
    let Some(status) = v.get("status").filter(|s| !s.is_null()) else {
        return waiting("Waiting for Gateway status", group, kind);
    };
    let conds = status.get("conditions").and_then(Value::as_array);
    if let Some(conds) = conds {
        for ty in ["ResolvedRefs", "Accepted"] {
            if let Some((c, m)) = failed(conds, ty) {
                return health(Degraded, m, group, kind, reason_of(c), false);
            }
        }
        if let Some((c, m)) = not_programmed(conds, "Gateway is still being programmed") {
            return health(Progressing, m, group, kind, reason_of(c), false);
        }
    }
    let listeners = arr(status, "/listeners");
    for l in listeners {
        let Some(lc) = l.get("conditions").and_then(Value::as_array) else {
            continue;
        };
        for ty in ["ResolvedRefs", "Accepted"] {
            if let Some((c, m)) = failed(lc, ty) {
                return health(Degraded, format!("Listener: {m}"), group, kind, reason_of(c), false);
            }
        }
        if let Some((c, m)) = not_programmed(lc, "Listener is still being programmed") {
            return health(Progressing, format!("Listener: {m}"), group, kind, reason_of(c), false);
        }
    }
    if conds.is_some() || !listeners.is_empty() {
        return health(Healthy, "Gateway is healthy", group, kind, None, false);
    }
    waiting("Waiting for Gateway status", group, kind)
}

fn route(v: &Value, group: &str, kind: &str, observe_generation: bool) -> Health {
    let gen = generation(v);
    let observed = |parent: &Value| -> bool {
        if !observe_generation {
            return true;
        }
        let Some(g) = gen else { return true };
        let conds = arr(parent, "/conditions");
        !conds.is_empty()
            && conds.iter().all(|c| c.get("observedGeneration").and_then(Value::as_i64).is_none_or(|o| o == g))
    };
    let parents = arr(v, "/status/parents");
    for p in parents {
        let Some(conds) = p.get("conditions").and_then(Value::as_array) else {
            continue;
        };
        if !observed(p) {
            continue;
        }
        let name = s(p, "/parentRef/name");
        for ty in ["ResolvedRefs", "Accepted"] {
            if let Some((c, m)) = failed(conds, ty) {
                return health(Degraded, format!("Parent {name}: {m}"), group, kind, reason_of(c), false);
            }
        }
        if let Some((c, m)) = not_programmed(conds, "Route is still being programmed") {
            return health(Progressing, format!("Parent {name}: {m}"), group, kind, reason_of(c), false);
        }
    }
    let healthy = parents.iter().any(|p| !arr(p, "/conditions").is_empty() && observed(p));
    if healthy {
        return health(Healthy, format!("{kind} is healthy"), group, kind, None, false);
    }
    waiting(&format!("Waiting for {kind} status"), group, kind)
}

fn backend_tls_policy(v: &Value, group: &str, kind: &str) -> Health {
    let mut result = waiting("Waiting for BackendTLSPolicy status", group, kind);
    let Some(ancestors) = v.pointer("/status/ancestors").and_then(Value::as_array) else {
        return result;
    };
    if let Some(g) = generation(v) {
        for a in ancestors {
            let stale = arr(a, "/conditions")
                .iter()
                .any(|c| c.get("observedGeneration").and_then(Value::as_i64).is_some_and(|o| o != g));
            if stale {
                let name = s(a, "/ancestorRef/name");
                return waiting(&format!("Waiting for Ancestor {name} to update BackendTLSPolicy status"), group, kind);
            }
        }
    }
    for a in ancestors {
        let name = s(a, "/ancestorRef/name");
        for c in arr(a, "/conditions") {
            match s(c, "/type") {
                "Accepted" | "ResolvedRefs" if s(c, "/status") != "True" => {
                    let Some(msg) = c.get("message").and_then(Value::as_str) else {
                        // The script concatenates the missing message and fails.
                        let m = format!(
                            "attempt to concatenate a nil value (Ancestor {name}: {}={} {} has no message)",
                            s(c, "/type"),
                            s(c, "/status"),
                            s(c, "/reason")
                        );
                        return lua_error(&m, group, kind);
                    };
                    let m = format!("Ancestor {name}: {msg}");
                    return health(Degraded, m, group, kind, reason_of(c), false);
                }
                "Accepted" => result = health(Healthy, "BackendTLSPolicy is healthy", group, kind, None, false),
                _ => {}
            }
        }
    }
    result
}

fn application(v: &Value, group: &str, kind: &str) -> Health {
    let Some(h) = v.pointer("/status/health").filter(|h| !h.is_null()) else {
        return health(Progressing, "", group, kind, None, false);
    };
    let status = match s(h, "/status") {
        "Healthy" => Healthy,
        "Degraded" => Degraded,
        "Suspended" => HealthStatus::Suspended,
        "Missing" => HealthStatus::Missing,
        "Progressing" => Progressing,
        "Unknown" => HealthStatus::Unknown,
        other => {
            // Argo CD rejects a status the script returns that is not one of its codes.
            let m = format!("Lua returned an invalid health status ({other:?})");
            return health(HealthStatus::Unknown, m, group, kind, None, false);
        }
    };
    health(status, s(h, "/message"), group, kind, None, false)
}

fn application_set(v: &Value, group: &str, kind: &str) -> Health {
    let rules = [
        ("ErrorOccurred", "True", Degraded),
        ("ResourcesUpToDate", "False", Degraded),
        ("RolloutProgressing", "True", Progressing),
        ("ResourcesUpToDate", "True", Healthy),
    ];
    for (ty, st, status) in rules {
        if let Some(c) = conditions(v).find(|c| s(c, "/type") == ty && s(c, "/status") == st) {
            return cond_health(status, c, group, kind);
        }
    }
    waiting("Waiting for the status to be reported", group, kind)
}

fn managed_certificate(v: &Value, group: &str, kind: &str) -> Health {
    if arr(v, "/status/domainStatus").iter().any(|d| s(d, "/status") == "FailedNotVisible") {
        return health(Degraded, "At least one certificate has failed to be provisioned", group, kind, None, false);
    }
    if s(v, "/status/certificateStatus") == "Active" {
        return health(Healthy, "All certificates are active", group, kind, None, false);
    }
    waiting("At least one certificate is still being provisioned", group, kind)
}

fn openshift_route(v: &Value, group: &str, kind: &str) -> Health {
    let Some(ingress) = v.pointer("/status/ingress").and_then(Value::as_array) else {
        return waiting("Route is still getting admitted", group, kind);
    };
    let admitted = |want: &str| {
        ingress
            .iter()
            .flat_map(|i| arr(i, "/conditions"))
            .filter(|c| s(c, "/type") == "Admitted" && s(c, "/status") == want)
            .count()
    };
    if admitted("True") == ingress.len() {
        health(Healthy, "Route is healthy", group, kind, None, false)
    } else if admitted("False") > 0 {
        health(Degraded, "Route is degraded", group, kind, None, false)
    } else {
        waiting("Route is still getting admitted", group, kind)
    }
}
