//! Live Gateway API status (dumps, clusters): conditions as a controller wrote them, parsed once, and how
//! they compare with the manifests: faults, stale status, disagreements with the predicted conditions,
//! listeners that report no routes. Computed here; the status checks decide and word the findings.

use edgecheck_core::kind::K;
use edgecheck_core::reasons::layer_for;
use edgecheck_core::ValueRef;
use edgecheck_core::{Graph, Layer, ObjId, Object};

use super::gateway::parent_key;
use super::gateway::GatewayModel;
use super::{ExpectedCondition, ParentKey};

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
    list: Option<ValueRef<'_>>,
    prefix: &str,
    listener: Option<&str>,
    parent: Option<&ParentKey>,
    out: &mut Vec<LiveCondition>,
) {
    let Some(list) = list.and_then(ValueRef::as_array) else { return };
    for (i, c) in list.iter().enumerate() {
        let s = |k: &str| c.get(k).and_then(ValueRef::as_str).unwrap_or("").to_string();
        out.push(LiveCondition {
            listener: listener.map(str::to_string),
            parent: parent.cloned(),
            path: format!("{prefix}.conditions[{i}]"),
            condition_type: s("type"),
            status: s("status"),
            reason: s("reason"),
            message: s("message"),
            observed_generation: c.get("observedGeneration").and_then(ValueRef::as_i64),
        });
    }
}

/// Every live condition of a Gateway API object, in status order.
fn conditions(obj: &Object) -> Vec<LiveCondition> {
    let mut out = Vec::new();
    let Some(st) = obj.value.get("status") else { return out };
    parse(st.get("conditions"), "status", None, None, &mut out);
    for (i, l) in st.get("listeners").and_then(ValueRef::as_array).into_iter().flatten().enumerate() {
        let name = l.get("name").and_then(ValueRef::as_str).unwrap_or("");
        parse(l.get("conditions"), &format!("status.listeners[{i}]"), Some(name), None, &mut out);
    }
    for key in ["parents", "ancestors"] {
        for (i, p) in st.get(key).and_then(ValueRef::as_array).into_iter().flatten().enumerate() {
            let r = p.get("parentRef").or_else(|| p.get("ancestorRef"));
            let pk = r
                .and_then(|r| edgecheck_core::doc::from_ref::<edgecheck_core::views::ParentRef>(r).ok())
                .map(|r| parent_key(&r));
            parse(p.get("conditions"), &format!("status.{key}[{i}]"), None, pk.as_ref(), &mut out);
        }
    }
    out
}

/// Objects of the Gateway API kinds that carry status, in load order.
fn with_status(graph: &Graph) -> Vec<ObjId> {
    let mut ids: Vec<ObjId> = KINDS.iter().flat_map(|k| graph.ids(*k).iter().copied()).collect();
    ids.sort_unstable();
    ids.retain(|id| graph.obj(*id).has_status());
    ids
}

impl LiveCondition {
    /// Where, in words: ` listener `https``, ` parent `public` sectionName `https``, or `""`.
    pub fn place(&self) -> String {
        if let Some(l) = &self.listener {
            format!(" listener `{l}`")
        } else if let Some(p) = &self.parent {
            let sec = p.section_name.as_deref().map(|s| format!(" sectionName `{s}`")).unwrap_or_default();
            format!(" parent `{}`{sec}", p.name)
        } else {
            String::new()
        }
    }

    /// The layer its reason puts the fault in, when it is a fault.
    pub fn fault_layer(&self) -> Option<Layer> {
        if self.is_fault() {
            layer_for(&self.condition_type, &self.reason)
        } else {
            None
        }
    }
}

/// True for route kinds.
pub(crate) fn is_route(obj: &Object) -> bool {
    [K::HTTP_ROUTE, K::GRPC_ROUTE, K::TLS_ROUTE, K::TCP_ROUTE, K::UDP_ROUTE].iter().any(|k| obj.is(*k))
}

/// Status older than the spec: the status's or its conditions' `observedGeneration` behind `metadata.generation`.
#[derive(Debug, Clone)]
pub(crate) struct StaleStatus {
    /// The object.
    pub id: ObjId,
    /// Whether it is a route.
    pub route: bool,
    /// `metadata.generation`.
    pub generation: i64,
    /// Each stale generation: where (a field path, then the listener or parent and the condition type in
    /// words) and the generation it describes; the status's own first.
    pub observed: Vec<Observed>,
}

/// A field path, the listener or parent and condition type in words, and the generation it describes.
pub(crate) type Observed = (String, String, i64);

/// A live condition that disagrees with the one the manifests predict: same object, type and listener or
/// parent, another status.
#[derive(Debug, Clone)]
pub(crate) struct Disagreement {
    /// The object.
    pub id: ObjId,
    /// Whether it is a route.
    pub route: bool,
    /// As written in status.
    pub live: LiveCondition,
    /// As predicted.
    pub expected: ExpectedCondition,
}

/// A live listener reporting `attachedRoutes: 0` while routes in the inventory attach to it.
#[derive(Debug, Clone)]
pub(crate) struct Unattached {
    /// The Gateway or ListenerSet.
    pub id: ObjId,
    /// Index in `status.listeners`.
    pub index: usize,
    /// Listener name.
    pub listener: String,
    /// Routes the manifests attach.
    pub computed: u32,
}

/// Live Gateway API status, compared with the predictions.
#[derive(Debug, Default)]
pub struct LiveStatus {
    /// Objects with status and their conditions, in load order.
    pub(crate) conditions: Vec<(ObjId, Vec<LiveCondition>)>,
    /// Stale status.
    pub(crate) stale: Vec<StaleStatus>,
    /// Disagreements with the predicted conditions.
    pub(crate) disagreements: Vec<Disagreement>,
    /// Listeners reporting no routes where the manifests attach some.
    pub(crate) unattached: Vec<Unattached>,
}

impl LiveStatus {
    /// Parses the status of every Gateway API object once and compares it with `gateway`.
    pub fn compute(graph: &Graph, gateway: &GatewayModel) -> LiveStatus {
        let mut live = LiveStatus::default();
        for id in with_status(graph) {
            let obj = graph.obj(id);
            let conds = conditions(obj);
            let route = is_route(obj);
            if let Some(st) = stale(obj, &conds) {
                live.stale.push(StaleStatus { id, route, generation: st.0, observed: st.1 });
            }
            let expected = gateway.of(id);
            for c in &conds {
                let Some(e) = expected.iter().find(|e| {
                    e.condition_type.as_str() == c.condition_type
                        && e.listener == c.listener
                        && e.parent.as_deref() == c.parent.as_ref()
                }) else {
                    continue;
                };
                if c.status == e.status_str() || c.status == "Unknown" || c.status.is_empty() {
                    continue;
                }
                live.disagreements.push(Disagreement { id, route, live: c.clone(), expected: e.clone() });
            }
            if obj.is(K::GATEWAY) || obj.is(K::LISTENER_SET) || obj.is(K::LISTENER_SET_STD) {
                unattached(gateway, id, obj, &mut live.unattached);
            }
            live.conditions.push((id, conds));
        }
        live
    }

    /// Live faulty conditions whose reason puts the fault in `layer`, by object in load order.
    pub(crate) fn faults(&self, layer: Layer) -> impl Iterator<Item = (ObjId, &LiveCondition)> {
        self.conditions
            .iter()
            .flat_map(|(id, cs)| cs.iter().map(move |c| (*id, c)))
            .filter(move |(_, c)| c.fault_layer() == Some(layer))
    }
}

fn stale(obj: &Object, conds: &[LiveCondition]) -> Option<(i64, Vec<Observed>)> {
    let generation = obj.value.pointer("/metadata/generation").and_then(ValueRef::as_i64)?;
    let top = obj.value.pointer("/status/observedGeneration").and_then(ValueRef::as_i64);
    let observed: Vec<Observed> = top
        .map(|g| ("status.observedGeneration".to_string(), String::new(), g))
        .into_iter()
        .chain(conds.iter().filter_map(|c| {
            c.observed_generation.map(|g| (c.path.clone(), format!("{} ({})", c.place(), c.condition_type), g))
        }))
        .filter(|(_, _, g)| *g < generation)
        .collect();
    (!observed.is_empty()).then_some((generation, observed))
}

fn unattached(gateway: &GatewayModel, id: ObjId, obj: &Object, out: &mut Vec<Unattached>) {
    let listeners = obj.value.pointer("/status/listeners").and_then(ValueRef::as_array);
    for (index, l) in listeners.into_iter().flatten().enumerate() {
        let name = l.get("name").and_then(ValueRef::as_str).unwrap_or("");
        if l.get("attachedRoutes").and_then(ValueRef::as_i64) != Some(0) {
            continue;
        }
        let Some(st) = gateway.listener(id, name) else { continue };
        if st.attached_routes > 0 {
            out.push(Unattached { id, index, listener: name.to_string(), computed: st.attached_routes });
        }
    }
}
