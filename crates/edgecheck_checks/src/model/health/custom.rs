//! Argo CD's bundled resource customizations (`resource_customizations/<group>/<Kind>/health.lua`),
//! reimplemented, and the Application health enabled by `argocd-cm`.
//!
//! Followed at the pinned Argo CD release ([`super::ARGO_CD_VERSION`]): each function names the
//! script it follows. Lua semantics kept: a condition's missing `message` is Lua `nil`, so the
//! health message is empty (edgecheck then names the deciding condition's type, status and reason
//! instead, for a status other than Healthy); absent `status` falls through to the script's final
//! "Waiting for ..." result; where the script itself fails, the result is Unknown with the error.

use edgecheck_core::kind::K;
use edgecheck_core::Graph;
use edgecheck_core::SeqRef;
use edgecheck_core::ValueRef;

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
            | ("operator.openshift.io", "IngressController")
            | ("projectcontour.io", "HTTPProxy" | "ExtensionService")
            | ("bitnami.com", "SealedSecret")
            | ("kubernetes-client.io", "ExternalSecret")
            | ("onepassword.com", "OnePasswordItem")
            | ("batch", "CronJob")
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
            .and_then(ValueRef::as_str)
            .is_some_and(|t| !t.trim().is_empty());
        let nested = data
            .and_then(|d| d.get("resource.customizations"))
            .and_then(ValueRef::as_str)
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
    let v = obj.value.root();
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
            let conds = v.pointer("/status/conditions").and_then(ValueRef::as_array);
            if conds.is_some_and(SeqRef::is_empty) {
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
        ("operator.openshift.io", _) => ingress_controller(v, group, kind),
        ("projectcontour.io", "HTTPProxy") => contour(v, group, kind, true),
        ("projectcontour.io", _) => contour(v, group, kind, false),
        ("bitnami.com", _) => first_condition(v, group, kind, "Synced", false)
            .unwrap_or_else(|| waiting("Waiting for Sealed Secret to be decrypted", group, kind)),
        ("kubernetes-client.io", _) => kubernetes_external_secret(v, group, kind),
        ("onepassword.com", _) => first_condition(v, group, kind, "Ready", false)
            .unwrap_or_else(|| waiting("Waiting for controller to report status", group, kind)),
        ("batch", _) => cron_job(v, group, kind),
        (GW, "GatewayClass") => gateway_class(v, group, kind),
        (GW, "Gateway") => gateway(v, group, kind),
        (GW, "HTTPRoute") => route(v, group, kind, true),
        (GW, "GRPCRoute") => route(v, group, kind, false),
        (GW, _) => backend_tls_policy(v, group, kind),
        _ => application(v, group, kind),
    })
}

fn conditions(v: ValueRef<'_>) -> impl Iterator<Item = ValueRef<'_>> {
    arr(v, "/status/conditions").iter()
}

/// Where the bundled script itself fails, Argo CD reports Unknown with the Lua error.
fn lua_error(message: &str, group: &str, kind: &str) -> Health {
    health(HealthStatus::Unknown, message.to_string(), group, kind, None, false)
}

fn waiting(message: &str, group: &str, kind: &str) -> Health {
    health(Progressing, message.to_string(), group, kind, None, false)
}

/// A result decided by one condition: its message (Lua), the layer from its reason.
fn cond_health(status: HealthStatus, c: ValueRef<'_>, group: &str, kind: &str) -> Health {
    let mut message = s(c, "/message").to_string();
    if message.is_empty() && status != Healthy {
        message = format!("{}={} {}", s(c, "/type"), s(c, "/status"), s(c, "/reason")).trim_end().to_string();
    }
    health(status, message, group, kind, Some((s(c, "/type"), s(c, "/reason"))), false)
}

/// A result decided by one condition, with the message the script gives (empty when it gives none:
/// edgecheck then says which condition decided); the layer is the kind's own.
fn decided_by(status: HealthStatus, c: ValueRef<'_>, message: &str, group: &str, kind: &str) -> Health {
    let mut message = message.to_string();
    if message.is_empty() && status != Healthy {
        message = format!("{}={} {}", s(c, "/type"), s(c, "/status"), s(c, "/reason")).trim_end().to_string();
    }
    health(status, message, group, kind, None, false)
}

/// The common "first Ready condition decides" script.
fn ready(v: ValueRef<'_>, group: &str, kind: &str) -> Option<Health> {
    first_condition(v, group, kind, "Ready", true)
}

/// The first condition of type `ty` with status False (Degraded) or True (Healthy) decides, with its
/// message; `reason_layer`: the layer follows the condition's reason, else the kind's own.
fn first_condition(v: ValueRef<'_>, group: &str, kind: &str, ty: &str, reason_layer: bool) -> Option<Health> {
    conditions(v).find_map(|c| {
        let status = match (s(c, "/type"), s(c, "/status")) {
            (t, "False") if t == ty => Degraded,
            (t, "True") if t == ty => Healthy,
            _ => return None,
        };
        Some(if reason_layer {
            cond_health(status, c, group, kind)
        } else {
            decided_by(status, c, s(c, "/message"), group, kind)
        })
    })
}

/// Lua's `==` on two fields: absent (or null) equals absent, numbers compare by value, tables never equal.
fn lua_eq(a: Option<ValueRef<'_>>, b: Option<ValueRef<'_>>) -> bool {
    match (a.filter(|v| !v.is_null()), b.filter(|v| !v.is_null())) {
        (None, None) => true,
        (Some(x), Some(y)) if x.is_number() && y.is_number() => x.as_f64() == y.as_f64(),
        (Some(x), Some(y)) if x.is_string() && y.is_string() => x.as_str() == y.as_str(),
        (Some(x), Some(y)) if x.is_boolean() && y.is_boolean() => x.as_bool() == y.as_bool(),
        _ => false,
    }
}

/// A field present and not null (Lua's `~= nil`).
fn present<'a>(v: ValueRef<'a>, key: &str) -> Option<ValueRef<'a>> {
    v.get(key).filter(|x| !x.is_null())
}

/// Contour's `HTTPProxy` and `ExtensionService` scripts: only conditions of the current generation count;
/// `Valid` True is Healthy, False Degraded; an HTTPProxy with `spec.includes` and any False condition is
/// Healthy ("cannot be health checked"); an HTTPProxy's message is `status.description`.
fn contour(v: ValueRef<'_>, group: &str, kind: &str, http_proxy: bool) -> Health {
    let mut result = waiting("Waiting for status", group, kind);
    let Some(status) = present(v, "status") else {
        return result;
    };
    let description = s(status, "/description");
    if let Some(conds) = present(status, "conditions") {
        let generation = v.pointer("/metadata/generation");
        for c in conds.as_array().unwrap_or_default() {
            if !lua_eq(generation, c.get("observedGeneration")) {
                continue;
            }
            let (ty, st) = (s(c, "/type"), s(c, "/status"));
            let message = if http_proxy { description } else { s(c, "/message") };
            if ty == "Valid" && st == "True" {
                return health(Healthy, message.to_string(), group, kind, None, false);
            }
            if http_proxy && st == "False" {
                let Some(spec) = present(v, "spec") else {
                    return lua_error("attempt to index a nil value (field 'spec')", group, kind);
                };
                if present(spec, "includes").is_some() {
                    result = health(Healthy, "HTTPProxy inclusions cannot be health checked", group, kind, None, false);
                    continue;
                }
            }
            if ty == "Valid" && st == "False" {
                return decided_by(Degraded, c, message, group, kind);
            }
        }
    } else if http_proxy {
        if let Some(current) = present(status, "currentStatus") {
            let message = if description.is_empty() {
                format!("currentStatus {}", current.as_str().unwrap_or_default())
            } else {
                description.to_string()
            };
            result = waiting(&message, group, kind);
        }
    }
    result
}

/// OpenShift's `IngressController` script: the first of these conditions, in status order, decides:
/// Degraded True (Degraded, its message), DeploymentReplicasAllAvailable False (Progressing, its
/// message), Progressing True (Progressing, its reason), Available True (Healthy).
fn ingress_controller(v: ValueRef<'_>, group: &str, kind: &str) -> Health {
    for c in conditions(v) {
        match (s(c, "/type"), s(c, "/status")) {
            ("Degraded", "True") => return decided_by(Degraded, c, s(c, "/message"), group, kind),
            ("DeploymentReplicasAllAvailable", "False") => {
                return decided_by(Progressing, c, s(c, "/message"), group, kind);
            }
            ("Progressing", "True") => return decided_by(Progressing, c, s(c, "/reason"), group, kind),
            ("Available", "True") => {
                return health(Healthy, "IngressController is available", group, kind, None, false);
            }
            _ => {}
        }
    }
    waiting("Status of IngressController is not known yet", group, kind)
}

/// The kubernetes-external-secrets (`kubernetes-client.io`) script: `status.status` SUCCESS is Healthy,
/// `ERROR...` Degraded with the text after `ERROR, `, anything else Progressing.
fn kubernetes_external_secret(v: ValueRef<'_>, group: &str, kind: &str) -> Health {
    let Some(status) = present(v, "status") else {
        return waiting("Waiting for ExternalSecret.", group, kind);
    };
    let Some(text) = status.get("status").and_then(ValueRef::as_str) else {
        // The script calls `:find` on `status.status` and fails when it is not a string.
        return lua_error("attempt to index a non-string value (status.status)", group, kind);
    };
    if text == "SUCCESS" {
        health(Healthy, "Fetched ExternalSecret.", group, kind, None, false)
    } else if text.starts_with("ERROR") {
        let message = text.replace("ERROR, ", "");
        let message = if message.is_empty() { text.to_string() } else { message };
        health(Degraded, message, group, kind, None, false)
    } else {
        waiting("Waiting for ExternalSecret.", group, kind)
    }
}

/// The `batch/CronJob` script: suspended is Healthy; without a schedule so far Healthy; a last
/// successful time before the last schedule time, with no active Job, Degraded.
fn cron_job(v: ValueRef<'_>, group: &str, kind: &str) -> Health {
    let Some(spec) = present(v, "spec") else {
        return lua_error("attempt to index a nil value (field 'spec')", group, kind);
    };
    let ok = |m: &str| health(Healthy, m.to_string(), group, kind, None, false);
    if spec.get("suspend").and_then(ValueRef::as_bool) == Some(true) {
        return ok("CronJob is Suspended");
    }
    let Some(status) = present(v, "status") else {
        return waiting("Waiting for CronJob", group, kind);
    };
    let Some(scheduled) = present(status, "lastScheduleTime") else {
        return ok("CronJob has not been scheduled yet");
    };
    let Some(succeeded) = present(status, "lastSuccessfulTime") else {
        return ok("The CronJob never completed successfully. It may not be healthy");
    };
    if present(status, "active").and_then(ValueRef::as_array).is_some_and(|a| !a.is_empty()) {
        return ok("The job is running. Its last execution may not have been successful");
    }
    // Lua compares the two timestamps as strings (RFC 3339 in UTC sorts by time).
    match (succeeded.as_str(), scheduled.as_str()) {
        (Some(a), Some(b)) if a < b => {
            health(Degraded, "CronJob has not completed its last execution successfully", group, kind, None, false)
        }
        (Some(_), Some(_)) => ok("CronJob has completed its last execution successfully"),
        _ => lua_error("attempt to compare two non-string values (status.lastSuccessfulTime)", group, kind),
    }
}

fn generation(v: ValueRef<'_>) -> Option<i64> {
    v.pointer("/metadata/generation").and_then(ValueRef::as_i64)
}

fn gateway_class(v: ValueRef<'_>, group: &str, kind: &str) -> Health {
    let gen = generation(v);
    for c in conditions(v).filter(|c| s(c, "/type") == "Accepted") {
        let observed = c.get("observedGeneration").and_then(ValueRef::as_i64);
        if let (Some(g), Some(o)) = (gen, observed) {
            if g != o {
                continue;
            }
        }
        let has_msg = c.get("message").and_then(ValueRef::as_str).is_some();
        let reason = Some(("Accepted", s(c, "/reason")));
        return match s(c, "/status") {
            "True" => {
                let m = if has_msg { s(c, "/message") } else { "GatewayClass is accepted" };
                health(Healthy, m.to_string(), group, kind, None, false)
            }
            "False" => {
                let m = if has_msg { s(c, "/message") } else { "GatewayClass is not accepted" };
                health(Degraded, m.to_string(), group, kind, reason, false)
            }
            _ => {
                let m = if has_msg { s(c, "/message") } else { "Waiting for GatewayClass status" };
                health(Progressing, m.to_string(), group, kind, reason, false)
            }
        };
    }
    waiting("Waiting for GatewayClass status", group, kind)
}

/// The Lua `checkConditions`: the first condition of `ty` with status "False".
fn failed<'a>(conds: SeqRef<'a>, ty: &str) -> Option<(ValueRef<'a>, String)> {
    conds.iter().find(|c| s(c, "/type") == ty && s(c, "/status") == "False").map(|c| {
        let m = match c.get("message").and_then(ValueRef::as_str) {
            Some(m) => m.to_string(),
            None => format!("Failed condition: {ty}"),
        };
        (c, m)
    })
}

fn not_programmed<'a>(conds: SeqRef<'a>, default: &str) -> Option<(ValueRef<'a>, String)> {
    conds.iter().find(|c| s(c, "/type") == "Programmed" && s(c, "/status") != "True").map(|c| {
        let m = c.get("message").and_then(ValueRef::as_str).unwrap_or(default).to_string();
        (c, m)
    })
}

fn reason_of(c: ValueRef<'_>) -> Option<(&str, &str)> {
    Some((s(c, "/type"), s(c, "/reason")))
}

fn gateway(v: ValueRef<'_>, group: &str, kind: &str) -> Health {
    let Some(status) = v.get("status").filter(|s| !s.is_null()) else {
        return waiting("Waiting for Gateway status", group, kind);
    };
    let conds = status.get("conditions").and_then(ValueRef::as_array);
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
        let Some(lc) = l.get("conditions").and_then(ValueRef::as_array) else {
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

fn route(v: ValueRef<'_>, group: &str, kind: &str, observe_generation: bool) -> Health {
    let gen = generation(v);
    let observed = |parent: ValueRef<'_>| -> bool {
        if !observe_generation {
            return true;
        }
        let Some(g) = gen else { return true };
        let conds = arr(parent, "/conditions");
        !conds.is_empty()
            && conds.iter().all(|c| c.get("observedGeneration").and_then(ValueRef::as_i64).is_none_or(|o| o == g))
    };
    let parents = arr(v, "/status/parents");
    for p in parents {
        let Some(conds) = p.get("conditions").and_then(ValueRef::as_array) else {
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

fn backend_tls_policy(v: ValueRef<'_>, group: &str, kind: &str) -> Health {
    let mut result = waiting("Waiting for BackendTLSPolicy status", group, kind);
    let Some(ancestors) = v.pointer("/status/ancestors").and_then(ValueRef::as_array) else {
        return result;
    };
    if let Some(g) = generation(v) {
        for a in ancestors {
            let stale = arr(a, "/conditions")
                .iter()
                .any(|c| c.get("observedGeneration").and_then(ValueRef::as_i64).is_some_and(|o| o != g));
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
                    let Some(msg) = c.get("message").and_then(ValueRef::as_str) else {
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

fn application(v: ValueRef<'_>, group: &str, kind: &str) -> Health {
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
    health(status, s(h, "/message").to_string(), group, kind, None, false)
}

fn application_set(v: ValueRef<'_>, group: &str, kind: &str) -> Health {
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

fn managed_certificate(v: ValueRef<'_>, group: &str, kind: &str) -> Health {
    if arr(v, "/status/domainStatus").iter().any(|d| s(d, "/status") == "FailedNotVisible") {
        return health(Degraded, "At least one certificate has failed to be provisioned", group, kind, None, false);
    }
    if s(v, "/status/certificateStatus") == "Active" {
        return health(Healthy, "All certificates are active", group, kind, None, false);
    }
    waiting("At least one certificate is still being provisioned", group, kind)
}

fn openshift_route(v: ValueRef<'_>, group: &str, kind: &str) -> Health {
    let Some(ingress) = v.pointer("/status/ingress").and_then(ValueRef::as_array) else {
        return waiting("Route is still getting admitted", group, kind);
    };
    if ingress.iter().any(|i| present(i, "conditions").is_none()) {
        // The script iterates each ingress entry's conditions with `pairs` and fails on nil.
        return lua_error(
            "bad argument #1 to pairs (table expected, got nil: status.ingress[].conditions)",
            group,
            kind,
        );
    }
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
