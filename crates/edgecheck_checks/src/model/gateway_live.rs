//! Live Gateway API status (dumps, clusters): conditions as a controller wrote them, and the
//! reporting shared by the checks that read them.

use edgecheck_core::kind::K;
use edgecheck_core::reasons::layer_for;
use edgecheck_core::{Findings, Graph, Layer, ObjId, Object};
use serde_json::Value;

use super::gateway::parent_key;
use super::ParentKey;
use crate::framework::CheckContext;

/// The Gateway API kinds whose status is read.
pub(crate) const KINDS: &[K] = &[
    K::GATEWAY_CLASS,
    K::GATEWAY,
    K::LISTENER_SET,
    K::LISTENER_SET_STD,
    K::HTTP_ROUTE,
    K::GRPC_ROUTE,
    K::TLS_ROUTE,
    K::TCP_ROUTE,
    K::UDP_ROUTE,
    K::BACKEND_TLS_POLICY,
];

/// One condition as written in `status`.
#[derive(Debug, Clone)]
pub(crate) struct LiveCondition {
    /// Listener name, for `status.listeners[].conditions`.
    pub listener: Option<String>,
    /// parentRef, for `status.parents[].conditions` (routes) and `status.ancestors[]` (policies).
    pub parent: Option<ParentKey>,
    /// Field path of the condition.
    pub path: String,
    pub condition_type: String,
    pub status: String,
    pub reason: String,
    pub message: String,
    pub observed_generation: Option<i64>,
}

impl LiveCondition {
    /// True when the condition says something is wrong (`False`, or `Conflicted=True`).
    pub fn is_fault(&self) -> bool {
        if self.condition_type == "Conflicted" {
            self.status == "True"
        } else {
            self.status == "False"
        }
    }
}

fn parse(
    list: Option<&Value>,
    prefix: &str,
    listener: Option<&str>,
    parent: Option<&ParentKey>,
    out: &mut Vec<LiveCondition>,
) {
    let Some(list) = list.and_then(Value::as_array) else { return };
    for (i, c) in list.iter().enumerate() {
        let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        out.push(LiveCondition {
            listener: listener.map(str::to_string),
            parent: parent.cloned(),
            path: format!("{prefix}.conditions[{i}]"),
            condition_type: s("type"),
            status: s("status"),
            reason: s("reason"),
            message: s("message"),
            observed_generation: c.get("observedGeneration").and_then(Value::as_i64),
        });
    }
}

/// Every live condition of a Gateway API object, in status order.
pub(crate) fn conditions(obj: &Object) -> Vec<LiveCondition> {
    let mut out = Vec::new();
    let Some(st) = obj.value.get("status") else { return out };
    parse(st.get("conditions"), "status", None, None, &mut out);
    for (i, l) in st.get("listeners").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let name = l.get("name").and_then(Value::as_str).unwrap_or("");
        parse(l.get("conditions"), &format!("status.listeners[{i}]"), Some(name), None, &mut out);
    }
    for key in ["parents", "ancestors"] {
        for (i, p) in st.get(key).and_then(Value::as_array).into_iter().flatten().enumerate() {
            let r = p.get("parentRef").or_else(|| p.get("ancestorRef"));
            let pk = r
                .and_then(|r| serde_json::from_value::<edgecheck_core::views::ParentRef>(r.clone()).ok())
                .map(|r| parent_key(&r));
            parse(p.get("conditions"), &format!("status.{key}[{i}]"), None, pk.as_ref(), &mut out);
        }
    }
    out
}

/// Objects of the Gateway API kinds that carry status, in load order.
pub(crate) fn with_status(graph: &Graph) -> Vec<ObjId> {
    let mut ids: Vec<ObjId> = KINDS.iter().flat_map(|k| graph.ids(*k).iter().copied()).collect();
    ids.sort_unstable();
    ids.retain(|id| graph.obj(*id).has_status());
    ids
}

fn place(c: &LiveCondition) -> String {
    if let Some(l) = &c.listener {
        format!(" listener `{l}`")
    } else if let Some(p) = &c.parent {
        let sec = p.section_name.as_deref().map(|s| format!(" sectionName `{s}`")).unwrap_or_default();
        format!(" parent `{}`{sec}", p.name)
    } else {
        String::new()
    }
}

/// Reports every live faulty condition whose reason `layer_for` puts in `layer`.
pub(crate) fn report_false(cx: &CheckContext<'_>, out: &mut Findings<'_>, layer: Layer, fix: &str) {
    for id in with_status(cx.graph) {
        let obj = cx.graph.obj(id);
        for c in conditions(obj) {
            if !c.is_fault() || layer_for(&c.condition_type, &c.reason) != Some(layer) {
                continue;
            }
            let msg = if c.message.is_empty() { String::new() } else { format!(": {}", c.message) };
            out.at(obj, &c.path)
                .message(format!("{}{}: {}={} {}{msg}", obj.to_ref(), place(&c), c.condition_type, c.status, c.reason))
                .evidence(format!("status condition {}={} reason {}", c.condition_type, c.status, c.reason))
                .fix(fix)
                .emit();
        }
    }
}

/// True for route kinds.
pub(crate) fn is_route(obj: &Object) -> bool {
    [K::HTTP_ROUTE, K::GRPC_ROUTE, K::TLS_ROUTE, K::TCP_ROUTE, K::UDP_ROUTE].iter().any(|k| obj.is(*k))
}

/// Reports status older than the spec: a condition's or the status's `observedGeneration` behind
/// `metadata.generation`, for routes (`routes == true`) or for the other kinds.
pub(crate) fn report_stale(cx: &CheckContext<'_>, out: &mut Findings<'_>, routes: bool) {
    for id in with_status(cx.graph) {
        let obj = cx.graph.obj(id);
        if is_route(obj) != routes {
            continue;
        }
        let Some(generation) = obj.value.pointer("/metadata/generation").and_then(Value::as_i64) else { continue };
        let top = obj.value.pointer("/status/observedGeneration").and_then(Value::as_i64);
        let stale: Vec<(String, i64)> = top
            .map(|g| ("status.observedGeneration".to_string(), g))
            .into_iter()
            .chain(conditions(obj).into_iter().filter_map(|c| {
                c.observed_generation.map(|g| (format!("{}{} ({})", c.path, place(&c), c.condition_type), g))
            }))
            .filter(|(_, g)| *g < generation)
            .collect();
        let Some((first, g)) = stale.first() else { continue };
        let path = first.split(' ').next().unwrap_or("").to_string();
        let mut b = out
            .at(obj, &path)
            .message(format!(
                "{}'s status describes generation {g}, its spec is generation {generation}: the controller has not reconciled the current spec",
                obj.to_ref()
            ))
            .evidence(format!("metadata.generation: {generation}"));
        for (p, g) in stale.iter().take(5) {
            b = b.evidence(format!("{p}: observedGeneration {g}"));
        }
        b.fix("check that the controller for this class runs and reconciles (its logs, its leader election); status conditions are stale until it does")
            .emit();
    }
}

/// Live conditions that disagree with the computed model: same object, type and listener/parent,
/// other status. For routes (`routes == true`) or the other kinds.
pub(crate) fn report_disagreement(cx: &CheckContext<'_>, out: &mut Findings<'_>, routes: bool) {
    for id in with_status(cx.graph) {
        let obj = cx.graph.obj(id);
        if is_route(obj) != routes {
            continue;
        }
        let expected = cx.model.gateway.of(id);
        for c in conditions(obj) {
            let Some(e) = expected
                .iter()
                .find(|e| e.condition_type == c.condition_type && e.listener == c.listener && e.parent == c.parent)
            else {
                continue;
            };
            let want = if e.status { "True" } else { "False" };
            if c.status == want || c.status == "Unknown" || c.status.is_empty() {
                continue;
            }
            out.at(obj, &c.path)
                .message(format!(
                    "{}{}: status says {}={} {}, the manifests predict {}={} {}",
                    obj.to_ref(),
                    place(&c),
                    c.condition_type,
                    c.status,
                    c.reason,
                    e.condition_type,
                    want,
                    e.reason
                ))
                .evidence(format!("status condition {}={} reason {}", c.condition_type, c.status, c.reason))
                .evidence(format!("expected condition {}={} reason {}: {}", e.condition_type, want, e.reason, e.message))
                .fix("if the status is stale, let the controller reconcile; otherwise the controller lacks a feature or behaves differently from the spec: check its conformance report")
                .emit();
        }
    }
}

/// Live listeners reporting `attachedRoutes: 0` while routes in the inventory attach to them.
pub(crate) fn report_unattached(cx: &CheckContext<'_>, out: &mut Findings<'_>) {
    for id in with_status(cx.graph) {
        let obj = cx.graph.obj(id);
        if !(obj.is(K::GATEWAY) || obj.is(K::LISTENER_SET) || obj.is(K::LISTENER_SET_STD)) {
            continue;
        }
        let listeners = obj.value.pointer("/status/listeners").and_then(Value::as_array).cloned().unwrap_or_default();
        for (i, l) in listeners.iter().enumerate() {
            let name = l.get("name").and_then(Value::as_str).unwrap_or("");
            if l.get("attachedRoutes").and_then(Value::as_i64) != Some(0) {
                continue;
            }
            let Some(st) = cx.model.gateway.listener(id, name) else { continue };
            if st.attached_routes == 0 {
                continue;
            }
            out.at(obj, &format!("status.listeners[{i}].attachedRoutes"))
                .message(format!(
                    "{} listener `{name}` reports attachedRoutes 0, but {} route(s) in the inventory attach to it",
                    obj.to_ref(),
                    st.attached_routes
                ))
                .evidence(format!("status.listeners[{i}].attachedRoutes: 0"))
                .evidence(format!("computed attachedRoutes: {}", st.attached_routes))
                .fix("apply the routes (are they synced?) and check their parent status; a controller that has not reconciled them reports 0")
                .emit();
        }
    }
}
