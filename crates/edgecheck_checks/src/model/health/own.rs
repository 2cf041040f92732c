//! edgecheck's own health (`own: true`) for request-path kinds Argo CD does not assess.
//!
//! - TLSRoute: read like Argo CD's HTTPRoute script (per-parent ResolvedRefs/Accepted False →
//!   Degraded, Programmed not True → Progressing, conditions on a parent → Healthy), message prefixed
//!   `Parent <name>: `; no status → Progressing "Waiting for TLSRoute status".
//! - Traefik IngressRoute / IngressRouteTCP (`traefik.io`, `traefik.containo.us`): Traefik writes no
//!   status for them, so nothing can be told from the object: Unknown, "Traefik does not report status
//!   for <Kind>"; the route checks judge them from the graph.
//! - cert-manager Order and Challenge (`acme.cert-manager.io`): `status.state` valid → Healthy;
//!   pending, ready, processing (or none) → Progressing; invalid, expired, errored → Degraded with
//!   `status.reason`.
//! - CertificateRequest: Ready True → Healthy; Denied or InvalidRequest True, or Ready False with reason
//!   Failed/Denied → Degraded; otherwise (Ready False Pending, no status) Progressing.
//! - EndpointSlice: no endpoints → Degraded "no endpoints"; none ready (`conditions.ready` absent
//!   counts as ready, as the API says) → Degraded; else Healthy "<n> of <m> endpoints ready".

use edgecheck_core::Object;
use edgecheck_core::ValueRef;

use super::{arr, health, s};
use crate::model::{Health, HealthStatus};

use HealthStatus::{Degraded, Healthy, Progressing, Unknown};

pub(super) fn handles(group: &str, kind: &str) -> bool {
    matches!(
        (group, kind),
        ("gateway.networking.k8s.io", "TLSRoute")
            | ("traefik.io" | "traefik.containo.us", "IngressRoute" | "IngressRouteTCP")
            | ("acme.cert-manager.io", "Order" | "Challenge")
            | ("cert-manager.io", "CertificateRequest")
            | ("discovery.k8s.io", "EndpointSlice")
    )
}

pub(super) fn assess(obj: &Object, group: &str, kind: &str) -> Option<Health> {
    if !handles(group, kind) {
        return None;
    }
    let v = obj.value.root();
    let h = |status, message: String, reason: Option<(&str, &str)>| health(status, message, group, kind, reason, true);
    Some(match kind {
        "TLSRoute" => tls_route(v, &h),
        "IngressRoute" | "IngressRouteTCP" => h(Unknown, format!("Traefik does not report status for {kind}"), None),
        "Order" | "Challenge" => {
            let reason = s(v, "/status/reason");
            match s(v, "/status/state") {
                "valid" => h(Healthy, format!("{kind} is valid"), None),
                st @ ("invalid" | "expired" | "errored") => {
                    let m =
                        if reason.is_empty() { format!("{kind} is {st}") } else { format!("{kind} is {st}: {reason}") };
                    h(Degraded, m, None)
                }
                "" => h(Progressing, format!("Waiting for {kind}"), None),
                st => h(Progressing, format!("{kind} is {st}"), None),
            }
        }
        "CertificateRequest" => {
            let conds = arr(v, "/status/conditions");
            let find = |ty: &str| conds.iter().find(|c| s(c, "/type") == ty);
            let msg = |c: ValueRef<'_>| {
                let m = s(c, "/message");
                if m.is_empty() {
                    format!("{}={} {}", s(c, "/type"), s(c, "/status"), s(c, "/reason"))
                } else {
                    m.to_string()
                }
            };
            if let Some(c) =
                ["Denied", "InvalidRequest"].iter().find_map(|t| find(t).filter(|c| s(c, "/status") == "True"))
            {
                h(Degraded, msg(c), Some(("Ready", s(c, "/type"))))
            } else if let Some(c) = find("Ready") {
                match (s(c, "/status"), s(c, "/reason")) {
                    ("True", _) => h(Healthy, s(c, "/message").to_string(), None),
                    ("False", r @ ("Failed" | "Denied" | "InvalidRequest")) => h(Degraded, msg(c), Some(("Ready", r))),
                    (_, r) => h(Progressing, msg(c), Some(("Ready", r))),
                }
            } else {
                h(Progressing, "Waiting for CertificateRequest".into(), None)
            }
        }
        _ => endpoint_slice(v, &h),
    })
}

type H<'a> = dyn Fn(HealthStatus, String, Option<(&str, &str)>) -> Health + 'a;

fn tls_route(v: ValueRef<'_>, h: &H<'_>) -> Health {
    let parents = arr(v, "/status/parents");
    for p in parents {
        let conds = arr(p, "/conditions");
        let name = s(p, "/parentRef/name");
        for ty in ["ResolvedRefs", "Accepted"] {
            if let Some(c) = conds.iter().find(|c| s(c, "/type") == ty && s(c, "/status") == "False") {
                let m = c
                    .get("message")
                    .and_then(ValueRef::as_str)
                    .map_or_else(|| format!("Failed condition: {ty}"), str::to_string);
                return h(Degraded, format!("Parent {name}: {m}"), Some((ty, s(c, "/reason"))));
            }
        }
        if let Some(c) = conds.iter().find(|c| s(c, "/type") == "Programmed" && s(c, "/status") != "True") {
            let m = c.get("message").and_then(ValueRef::as_str).unwrap_or("Route is still being programmed");
            return h(Progressing, format!("Parent {name}: {m}"), Some(("Programmed", s(c, "/reason"))));
        }
    }
    if parents.iter().any(|p| !arr(p, "/conditions").is_empty()) {
        return h(Healthy, "TLSRoute is healthy".into(), None);
    }
    h(Progressing, "Waiting for TLSRoute status".into(), None)
}

fn endpoint_slice(v: ValueRef<'_>, h: &H<'_>) -> Health {
    let endpoints = arr(v, "/endpoints");
    if endpoints.is_empty() {
        return h(Degraded, "no endpoints".into(), Some(("", "NoEndpoints")));
    }
    let ready =
        endpoints.iter().filter(|e| e.pointer("/conditions/ready").and_then(ValueRef::as_bool) != Some(false)).count();
    let total = endpoints.len();
    if ready == 0 {
        return h(Degraded, format!("0 of {total} endpoints ready"), Some(("", "NoReadyEndpoints")));
    }
    h(Healthy, format!("{ready} of {total} endpoints ready"), None)
}
