//! Gateway API: the conditions a conformant implementation supporting every Standard and Extended
//! feature would write, computed from the manifests alone.
//!
//! Rules (gateway-api `apis/v1`, GEP-1713 for ListenerSets, the conformance suite):
//! - **GatewayClass** `Accepted`: `InvalidParameters` when `parametersRef` names an object that is
//!   not in the inventory *and* the inventory holds that kind (its CRD, other objects of the kind, or
//!   a full dump). A kind the repository never mentions is assumed installed elsewhere: a healthy repo
//!   whose CRDs and parameter objects come from another source stays clean.
//! - **Gateway** `Accepted`/`Programmed`; per listener `Accepted`, `Programmed`, `ResolvedRefs`,
//!   `Conflicted`. Listeners are grouped by port (an index, never a scan of every pair of the
//!   Gateway's routes and listeners). On one port `HTTP` goes only with `HTTP`; `HTTPS` and `TLS` share
//!   a port when hostnames differ (the spec's compatibility rule); `TCP` shares with nothing;
//!   `UDP` is another transport. Conflicted listeners of a Gateway's own spec are all marked; a
//!   ListenerSet's listener loses to the Gateway's own and to earlier ListenerSets. Creation time is
//!   unknown in Git, so ListenerSets are ordered by namespace/name and the message says so.
//!   A `TLS` Passthrough and a Terminate listener on one port are spec-compatible but many data
//!   planes (Cilium) cannot split them: recorded in [`GatewayModel::shared_tls_ports`].
//! - **Routes**, per parentRef: `Accepted` (`NoMatchingParent`, `NotAllowedByListeners`,
//!   `NoMatchingListenerHostname`; a TLS listener in `Terminate` mode admits TLSRoute (Extended, v1.4),
//!   recorded in [`GatewayModel::terminated_tls_routes`]) and `ResolvedRefs` (`InvalidKind`, `RefNotPermitted`,
//!   `BackendNotFound`). A missing Service is `BackendNotFound` only under the absence rule (a full
//!   dump, or Services in that namespace in the inventory).
//! - A Secret or Service that is not in the inventory is missing only on a full dump or when the
//!   inventory holds others of its kind in that namespace; a Secret some producer (cert-manager,
//!   External Secrets, SealedSecret) creates is never missing.

use std::collections::{BTreeMap, HashMap};

use edgecheck_core::hostname::{gateway_intersect, normalize};
use edgecheck_core::kind::K;
use edgecheck_core::views::{self, Listener, ParentRef};
use edgecheck_core::{Graph, Kind, ObjId, ObjectRef};

use super::condition::{ConditionType as Type, Reason};
use super::{ExpectedCondition, ParentKey};

const GROUP: &str = "gateway.networking.k8s.io";

/// Per-listener state a controller would report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListenerState {
    /// Routes attached.
    pub attached_routes: u32,
    /// Supported route kinds.
    pub supported_kinds: Vec<String>,
}

/// A port where a TLS Passthrough listener and a terminating (HTTPS or TLS Terminate) listener meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedTlsPort {
    /// The Gateway.
    pub gateway: ObjId,
    /// The port.
    pub port: i64,
    /// Passthrough listeners (names).
    pub passthrough: Vec<String>,
    /// Terminating listeners (names).
    pub terminate: Vec<String>,
}

/// The computed conditions.
#[derive(Debug, Default)]
pub struct GatewayModel {
    /// Conditions by object, in a stable order: object-level first, then per listener in spec order,
    /// then per parentRef in spec order.
    pub conditions: HashMap<ObjId, Vec<ExpectedCondition>>,
    /// Listener state by (Gateway or ListenerSet, listener name).
    pub listeners: HashMap<(ObjId, String), ListenerState>,
    /// Ports shared by Passthrough and Terminate listeners, by Gateway in load order.
    pub shared_tls_ports: Vec<SharedTlsPort>,
    /// For a route whose `ResolvedRefs` is False: the field of the backendRef at fault.
    pub ref_fields: HashMap<ObjId, String>,
    /// TLSRoutes attached to a TLS listener in `Terminate` mode: (route, parentRef, listener). The
    /// spec allows it as an Extended feature; implementations and CRDs before it reject the route.
    pub terminated_tls_routes: Vec<(ObjId, ParentKey, String)>,
    /// Where each route attached: per parentRef that was accepted, the parent (Gateway or ListenerSet)
    /// and the listeners it attached to. The request path of `trace` follows these.
    pub attachments: HashMap<ObjId, Vec<Attachment>>,
    /// Scratch: listeners of the parentRef being attached that terminate a TLSRoute.
    pending_terminated: Vec<String>,
    /// Scratch: listeners the parentRef being attached attached to.
    pending_attached: Vec<String>,
}

/// A route's accepted parentRef: the parent and the listeners that took the route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// Index of the parentRef in the route's spec.
    pub parent_index: usize,
    /// The Gateway or ListenerSet.
    pub owner: ObjId,
    /// Listener names, in the owner's spec order.
    pub listeners: Vec<String>,
}

/// A listener with its owner (Gateway or ListenerSet).
struct Slot {
    owner: ObjId,
    /// Index of the listener in its owner's spec.
    index: usize,
    listener: Listener,
    /// Namespace of the owner (for `from: Same`).
    namespace: String,
    supported: Vec<String>,
    accepted: bool,
}

fn cond(t: Type, status: bool, reason: Reason, message: impl Into<String>) -> ExpectedCondition {
    ExpectedCondition { parent: None, listener: None, condition_type: t, status, reason, message: message.into() }
}

fn lcond(l: &str, t: Type, status: bool, reason: Reason, message: impl Into<String>) -> ExpectedCondition {
    ExpectedCondition { listener: Some(l.into()), ..cond(t, status, reason, message) }
}

/// The TLS mode of a listener (`Terminate` by default).
pub fn tls_mode(l: &Listener) -> &str {
    l.tls.as_ref().and_then(|t| t.mode.as_deref()).unwrap_or("Terminate")
}

/// Route kinds a listener's protocol and TLS mode admit (`None`: an implementation-specific protocol).
pub fn protocol_kinds(l: &Listener) -> Option<&'static [&'static str]> {
    Some(match l.protocol.as_str() {
        "HTTP" | "HTTPS" => &["HTTPRoute", "GRPCRoute"],
        "TLS" if tls_mode(l) == "Passthrough" => &["TLSRoute"],
        // TLSRoute on a terminating TLS listener is Extended (gateway-api v1.4 TLS routing guide);
        // see [`GatewayModel::terminated_tls_routes`].
        "TLS" => &["TLSRoute", "TCPRoute"],
        "TCP" => &["TCPRoute"],
        "UDP" => &["UDPRoute"],
        _ => return None,
    })
}

fn is_core_protocol(p: &str) -> bool {
    matches!(p, "HTTP" | "HTTPS" | "TLS" | "TCP" | "UDP")
}

/// Whether the inventory says a missing `kind` object in `ns` really is missing (DESIGN "Absence").
/// Whether an object of `kind` that is not in the inventory counts as missing (the absence rule,
/// [`Graph::absence`]): a condition that follows from it is predicted, with the severity the rule gives.
fn absent_is_missing(graph: &Graph, kind: &Kind, ns: Option<&str>) -> bool {
    graph.absence(kind, ns).is_some()
}

/// Whether the inventory knows the kind at all (objects of it, its CRD, or a full dump).
fn kind_known(graph: &Graph, kind: &Kind) -> bool {
    graph.complete || !graph.ids_of(kind).is_empty() || graph.crd_for(kind).is_some()
}

fn namespace_allowed(graph: &Graph, l: &Listener, owner_ns: &str, route_ns: &str) -> Result<Option<String>, String> {
    let ns = l.allowed_routes.as_ref().and_then(|a| a.namespaces.as_ref());
    match ns.and_then(|n| n.from.as_deref()).unwrap_or("Same") {
        "All" => Ok(None),
        "Selector" => {
            let sel = ns.and_then(|n| n.selector.clone()).unwrap_or_default();
            match graph.namespace_labels(route_ns) {
                Some(labels) if sel.matches(&labels) => Ok(None),
                Some(_) => Err(format!(
                    "listener `{}` allows routes from namespaces matching its selector; Namespace `{route_ns}` does not match",
                    l.name
                )),
                None => Ok(Some(format!(
                    "Namespace `{route_ns}` {NOT_IN_INVENTORY}: listener `{}`'s namespace selector was not evaluated",
                    l.name
                ))),
            }
        }
        "Same" => {
            if owner_ns == route_ns {
                Ok(None)
            } else {
                Err(format!(
                    "listener `{}` allows routes from its own namespace `{owner_ns}` only (from: Same), not `{route_ns}`",
                    l.name
                ))
            }
        }
        other => Err(format!("listener `{}` has allowedRoutes.namespaces.from `{other}`", l.name)),
    }
}

/// Whether two listeners on one port are protocol-compatible.
fn compatible(a: &Listener, b: &Listener) -> bool {
    let tlsish = |p: &str| matches!(p, "HTTPS" | "TLS");
    match (a.protocol.as_str(), b.protocol.as_str()) {
        ("UDP", "UDP") => true,
        ("UDP", _) | (_, "UDP") => true, // another transport
        ("HTTP", "HTTP") => true,
        (x, y) if tlsish(x) && tlsish(y) => true,
        (x, y) if !is_core_protocol(x) || !is_core_protocol(y) => true, // implementation-specific: unknown
        _ => false,
    }
}

fn same_transport(a: &Listener, b: &Listener) -> bool {
    (a.protocol == "UDP") == (b.protocol == "UDP")
}

fn host_key(l: &Listener) -> String {
    l.hostname.as_deref().map(normalize).unwrap_or_default()
}

impl GatewayModel {
    /// Computes the model for every Gateway API object in the graph.
    pub fn compute(graph: &Graph) -> GatewayModel {
        let mut m = GatewayModel::default();
        m.classes(graph);
        let slots = m.gateways(graph);
        m.routes(graph, &slots);
        m.policies(graph);
        m
    }

    /// The expected conditions of an object.
    pub fn of(&self, id: ObjId) -> &[ExpectedCondition] {
        self.conditions.get(&id).map_or(&[], Vec::as_slice)
    }

    /// The listener state of a listener of a Gateway or ListenerSet.
    pub fn listener(&self, owner: ObjId, name: &str) -> Option<&ListenerState> {
        self.listeners.get(&(owner, name.to_string()))
    }

    fn classes(&mut self, graph: &Graph) {
        for (id, _, c) in graph.each::<views::GatewayClass>() {
            let mut v = Vec::new();
            match &c.spec.parameters_ref {
                Some(p) => {
                    let kind =
                        Kind { group: p.group.clone().unwrap_or_default(), kind: p.kind.clone().unwrap_or_default() };
                    let found = graph.find_kind(&kind, p.namespace.as_deref(), &p.name).is_some();
                    if !found && kind_known(graph, &kind) {
                        let ns = p.namespace.as_deref().map(|n| format!("{n}/")).unwrap_or_default();
                        v.push(cond(
                            Type::Accepted,
                            false,
                            Reason::InvalidParameters,
                            format!("parametersRef {} `{ns}{}` {NOT_IN_INVENTORY}", kind.kind, p.name),
                        ));
                    } else {
                        v.push(cond(Type::Accepted, true, Reason::Accepted, "parameters resolved"));
                    }
                }
                None => v.push(cond(Type::Accepted, true, Reason::Accepted, "accepted")),
            }
            self.conditions.insert(id, v);
        }
    }

    /// Gateways and ListenerSets; returns every listener slot, indexed by owner.
    fn gateways(&mut self, graph: &Graph) -> HashMap<ObjId, Vec<Slot>> {
        let mut slots: HashMap<ObjId, Vec<Slot>> = HashMap::new();
        // ListenerSets by parent Gateway, ordered by namespace/name (creation time is unknown).
        let mut sets_by_gw: BTreeMap<ObjId, Vec<(String, ObjId)>> = BTreeMap::new();
        for (id, o, s) in graph.each::<views::ListenerSet>() {
            let mut v = Vec::new();
            let parent =
                graph.edges_from_kind(id, edgecheck_core::EdgeKind::ParentRef).next().and_then(|e| e.to.found());
            match parent {
                None => {
                    let pns = s.spec.parent_ref.namespace.as_deref().or(o.namespace.as_deref());
                    // A Gateway installed elsewhere: acceptance unknown.
                    if absent_is_missing(graph, &K::GATEWAY.to_kind(), pns) {
                        v.push(cond(
                            Type::Accepted,
                            false,
                            Reason::ParentNotAccepted,
                            format!("parent Gateway `{}` {NOT_IN_INVENTORY}", display_ns(pns, &s.spec.parent_ref.name)),
                        ));
                    }
                }
                Some(gw) => {
                    let gwo = graph.obj(gw);
                    let allowed = graph.view::<views::Gateway>(gw).and_then(|g| g.spec.allowed_listeners.clone());
                    let from = allowed
                        .as_ref()
                        .and_then(|a| a.pointer("/namespaces/from"))
                        .and_then(|f| f.as_str())
                        .unwrap_or("None")
                        .to_string();
                    let ns = o.namespace.clone().unwrap_or_default();
                    let ok = match from.as_str() {
                        "All" => true,
                        "Same" => gwo.namespace.as_deref() == Some(ns.as_str()),
                        "Selector" => {
                            let sel: views::LabelSelector = allowed
                                .as_ref()
                                .and_then(|a| a.pointer("/namespaces/selector"))
                                .and_then(|s| serde_json::from_value(s.clone()).ok())
                                .unwrap_or_default();
                            graph.namespace_labels(&ns).is_none_or(|l| sel.matches(&l))
                        }
                        _ => false,
                    };
                    if ok {
                        v.push(cond(Type::Accepted, true, Reason::Accepted, "accepted by the parent Gateway"));
                        v.push(cond(Type::Programmed, true, Reason::Programmed, "programmed"));
                        sets_by_gw.entry(gw).or_default().push((format!("{ns}/{}", o.name), id));
                    } else {
                        v.push(cond(
                            Type::Accepted,
                            false,
                            Reason::NotAllowed,
                            format!("{} allowedListeners.namespaces.from is `{from}`", gwo.to_ref()),
                        ));
                    }
                }
            }
            self.conditions.insert(id, v);
        }

        for (gid, go, gw) in graph.each::<views::Gateway>() {
            let gns = go.namespace.clone().unwrap_or_default();
            let mut owners: Vec<(ObjId, String, Vec<Listener>)> = vec![(gid, gns.clone(), gw.spec.listeners.clone())];
            let mut sets = sets_by_gw.remove(&gid).unwrap_or_default();
            sets.sort();
            let tie = sets.len() > 1;
            for (_, sid) in &sets {
                if let Some(s) = graph.view::<views::ListenerSet>(*sid) {
                    let sns = graph.obj(*sid).namespace.clone().unwrap_or_default();
                    owners.push((*sid, sns, s.spec.listeners.clone()));
                }
            }
            // Per listener conditions, keyed by (owner, index).
            let mut per: HashMap<(ObjId, usize), Vec<ExpectedCondition>> = HashMap::new();
            let mut conflicted: HashMap<(ObjId, usize), (Reason, String)> = HashMap::new();
            let mut invalid: HashMap<(ObjId, usize), (Reason, String)> = HashMap::new();
            let mut all: Vec<Slot> = Vec::new();
            for (owner, ns, ls) in &owners {
                let mut seen: HashMap<&str, usize> = HashMap::new();
                for (i, l) in ls.iter().enumerate() {
                    if let Some(first) = seen.insert(l.name.as_str(), i) {
                        invalid.insert(
                            (*owner, i),
                            (
                                Reason::Invalid,
                                format!("listener name `{}` is used twice (also listener {first})", l.name),
                            ),
                        );
                    }
                    all.push(Slot {
                        owner: *owner,
                        index: i,
                        listener: l.clone(),
                        namespace: ns.clone(),
                        supported: Vec::new(),
                        accepted: true,
                    });
                }
            }
            // Conflicts by port.
            let mut by_port: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
            for (i, s) in all.iter().enumerate() {
                by_port.entry(s.listener.port).or_default().push(i);
            }
            for (port, idx) in &by_port {
                let mut pass = Vec::new();
                let mut term = Vec::new();
                for &i in idx {
                    let l = &all[i].listener;
                    if all[i].owner == gid && l.protocol == "TLS" && tls_mode(l) == "Passthrough" {
                        pass.push(l.name.clone());
                    } else if all[i].owner == gid && matches!(l.protocol.as_str(), "HTTPS" | "TLS") {
                        term.push(l.name.clone());
                    }
                }
                if !pass.is_empty() && !term.is_empty() {
                    self.shared_tls_ports.push(SharedTlsPort {
                        gateway: gid,
                        port: *port,
                        passthrough: pass,
                        terminate: term,
                    });
                }
                for (a_pos, &a) in idx.iter().enumerate() {
                    for &b in &idx[a_pos + 1..] {
                        let (la, lb) = (&all[a].listener, &all[b].listener);
                        let what = if !compatible(la, lb) {
                            Some((
                                Reason::ProtocolConflict,
                                format!(
                                    "listeners `{}` ({}) and `{}` ({}) share port {port} with incompatible protocols",
                                    la.name, la.protocol, lb.name, lb.protocol
                                ),
                            ))
                        } else if same_transport(la, lb) && host_key(la) == host_key(lb) {
                            let h = la.hostname.as_deref().unwrap_or("(any)");
                            Some((
                                Reason::HostnameConflict,
                                format!("listeners `{}` and `{}` share port {port} and hostname {h}", la.name, lb.name),
                            ))
                        } else {
                            None
                        };
                        let Some((reason, msg)) = what else { continue };
                        let (ka, kb) = ((all[a].owner, all[a].index), (all[b].owner, all[b].index));
                        if all[b].owner == gid {
                            // Both in the Gateway's own spec: both conflicted.
                            conflicted.entry(ka).or_insert((reason, msg.clone()));
                            conflicted.entry(kb).or_insert((reason, msg));
                        } else {
                            let mut msg = format!("{msg}; the earlier listener wins");
                            if tie && all[a].owner != gid {
                                msg.push_str(" (ListenerSets ordered by name: the real order is by creation time, unknown in Git)");
                            }
                            conflicted.entry(kb).or_insert((reason, msg));
                        }
                    }
                }
            }
            // Per listener: Accepted, Programmed, ResolvedRefs, Conflicted.
            for s in &mut all {
                let l = &s.listener;
                let key = (s.owner, s.index);
                let mut accepted: Result<(), (Reason, String)> = Ok(());
                if let Some((r, m)) = invalid.get(&key) {
                    accepted = Err((*r, m.clone()));
                } else if l.protocol.is_empty() || (!is_core_protocol(&l.protocol) && !l.protocol.contains('/')) {
                    accepted = Err((
                        Reason::UnsupportedProtocol,
                        format!("protocol `{}` is not a Gateway API protocol", l.protocol),
                    ));
                } else if matches!(l.protocol.as_str(), "HTTP" | "TCP" | "UDP") && l.tls.is_some() {
                    accepted = Err((Reason::UnsupportedValue, format!("protocol {} does not take tls", l.protocol)));
                } else if l.protocol == "HTTPS" && tls_mode(l) == "Passthrough" {
                    accepted = Err((Reason::UnsupportedValue, "protocol HTTPS allows tls.mode Terminate only".into()));
                } else if !matches!(tls_mode(l), "Terminate" | "Passthrough") {
                    accepted = Err((
                        Reason::UnsupportedValue,
                        format!("tls.mode `{}` is not Terminate or Passthrough", tls_mode(l)),
                    ));
                }
                // Supported kinds and invalid kinds.
                let mut bad_kinds = Vec::new();
                let base = protocol_kinds(l);
                let written = l.allowed_routes.as_ref().map(|a| a.kinds.clone()).unwrap_or_default();
                let supported: Vec<String> = if written.is_empty() {
                    base.map(|b| b.iter().map(|k| (*k).to_string()).collect()).unwrap_or_default()
                } else {
                    let mut out = Vec::new();
                    for k in &written {
                        let g = k.group.as_deref().unwrap_or(GROUP);
                        let ok = g == GROUP && base.is_none_or(|b| b.contains(&k.kind.as_str()));
                        if ok || (base.is_none() && g != GROUP) {
                            out.push(k.kind.clone());
                        } else {
                            bad_kinds.push(k.kind.clone());
                        }
                    }
                    out
                };
                let mut resolved: Result<(), (Reason, String)> = Ok(());
                if !bad_kinds.is_empty() {
                    resolved = Err((
                        Reason::InvalidRouteKinds,
                        format!(
                            "allowedRoutes.kinds {} not supported on protocol {}{}",
                            bad_kinds.join(", "),
                            l.protocol,
                            if l.protocol == "TLS" { format!(" mode {}", tls_mode(l)) } else { String::new() }
                        ),
                    ));
                }
                if resolved.is_ok() {
                    resolved = cert_refs(graph, graph.obj(s.owner), &s.namespace, l);
                }
                let c = conflicted.get(&key);
                s.accepted = accepted.is_ok();
                s.supported = supported.clone();
                let v = per.entry(key).or_default();
                match &accepted {
                    Ok(()) => v.push(lcond(&l.name, Type::Accepted, true, Reason::Accepted, "accepted")),
                    Err((r, m)) => v.push(lcond(&l.name, Type::Accepted, false, *r, m.clone())),
                }
                let programmed = accepted.is_ok() && resolved.is_ok() && c.is_none();
                if programmed {
                    v.push(lcond(&l.name, Type::Programmed, true, Reason::Programmed, "programmed"));
                } else {
                    v.push(lcond(
                        &l.name,
                        Type::Programmed,
                        false,
                        Reason::Invalid,
                        "listener is invalid, conflicted or has unresolved references",
                    ));
                }
                match &resolved {
                    Ok(()) => {
                        v.push(lcond(&l.name, Type::ResolvedRefs, true, Reason::ResolvedRefs, "references resolved"))
                    }
                    Err((r, m)) => v.push(lcond(&l.name, Type::ResolvedRefs, false, *r, m.clone())),
                }
                match c {
                    Some((r, m)) => v.push(lcond(&l.name, Type::Conflicted, true, *r, m.clone())),
                    None => v.push(lcond(&l.name, Type::Conflicted, false, Reason::NoConflicts, "no conflicts")),
                }
                self.listeners.insert(
                    (s.owner, l.name.clone()),
                    ListenerState { attached_routes: 0, supported_kinds: supported },
                );
            }
            // Gateway-level.
            let own: Vec<&Slot> = all.iter().filter(|s| s.owner == gid).collect();
            let bad = own
                .iter()
                .filter(|s| {
                    per.get(&(s.owner, s.index))
                        .is_some_and(|v| v.iter().any(|c| c.condition_type == Type::Programmed && !c.status))
                })
                .count();
            // Not accepted or conflicted: what `ListenersNotValid` means. A listener with unresolved
            // references is still accepted (only not programmed).
            let invalid_count = own
                .iter()
                .filter(|s| {
                    per.get(&(s.owner, s.index)).is_some_and(|v| {
                        v.iter().any(|c| {
                            (c.condition_type == Type::Accepted && !c.status)
                                || (c.condition_type == Type::Conflicted && c.status)
                        })
                    })
                })
                .count();
            let mut gv = Vec::new();
            let class_id =
                graph.edges_from_kind(gid, edgecheck_core::EdgeKind::GatewayClass).next().map(|e| e.to.clone());
            let class_missing = matches!(class_id, Some(edgecheck_core::Target::Missing(_)))
                && absent_is_missing(graph, &K::GATEWAY_CLASS.to_kind(), None);
            let params = infra_params_missing(graph, go, gw);
            let addr = gw.spec.addresses.iter().find_map(|a| {
                let t = a.get("type").and_then(|t| t.as_str()).unwrap_or("IPAddress");
                (!matches!(t, "IPAddress" | "Hostname" | "NamedAddress") && !t.contains('/')).then(|| t.to_string())
            });
            if class_missing {
                gv.push(cond(
                    Type::Accepted,
                    false,
                    Reason::Pending,
                    format!(
                        "GatewayClass `{}` {NOT_IN_INVENTORY}: no controller will reconcile this Gateway",
                        gw.spec.gateway_class_name
                    ),
                ));
                gv.push(cond(Type::Programmed, false, Reason::Pending, "not reconciled"));
            } else if let Some(m) = params {
                gv.push(cond(Type::Accepted, false, Reason::InvalidParameters, m));
                gv.push(cond(Type::Programmed, false, Reason::Invalid, "not accepted"));
            } else if let Some(t) = addr {
                gv.push(cond(
                    Type::Accepted,
                    false,
                    Reason::UnsupportedAddress,
                    format!("address type `{t}` is not supported"),
                ));
                gv.push(cond(Type::Programmed, false, Reason::Invalid, "not accepted"));
            } else if !own.is_empty() && invalid_count == own.len() {
                gv.push(cond(Type::Accepted, false, Reason::ListenersNotValid, "no listener is valid"));
                gv.push(cond(Type::Programmed, false, Reason::Invalid, "no listener is valid"));
            } else {
                if invalid_count > 0 {
                    let m = format!("{invalid_count} of {} listeners are not valid", own.len());
                    gv.push(cond(Type::Accepted, true, Reason::ListenersNotValid, m));
                } else {
                    gv.push(cond(Type::Accepted, true, Reason::Accepted, "accepted"));
                }
                if !own.is_empty() && bad == own.len() {
                    gv.push(cond(Type::Programmed, false, Reason::Invalid, "no listener is programmed"));
                } else {
                    gv.push(cond(Type::Programmed, true, Reason::Programmed, "programmed"));
                }
            }
            for (owner, _, ls) in &owners {
                let target = if *owner == gid { &mut gv } else { self.conditions.entry(*owner).or_default() };
                for i in 0..ls.len() {
                    if let Some(v) = per.remove(&(*owner, i)) {
                        target.extend(v);
                    }
                }
            }
            self.conditions.insert(gid, gv);
            for s in all {
                slots.entry(s.owner).or_default().push(s);
            }
        }
        slots
    }

    fn routes(&mut self, graph: &Graph, slots: &HashMap<ObjId, Vec<Slot>>) {
        for (rid, ro, r) in graph.each::<views::Route>() {
            let rns = ro.namespace.clone().unwrap_or_default();
            let kind = ro.kind.kind.as_str();
            let resolved = match backend_refs(graph, ro, &rns, r) {
                Ok(()) => Ok(()),
                Err((reason, m, field)) => {
                    self.ref_fields.insert(rid, field);
                    Err((reason, m))
                }
            };
            let edges: Vec<_> = graph.edges_from_kind(rid, edgecheck_core::EdgeKind::ParentRef).collect();
            let mut v = Vec::new();
            for (pi, p) in r.spec.parent_refs.iter().enumerate() {
                let pk = parent_key(p);
                let field = format!("spec.parentRefs[{pi}]");
                let edge = edges.iter().find(|e| e.field == field);
                let Some(edge) = edge else { continue }; // not a Gateway/ListenerSet parent (mesh, ...)
                let pc = |t: Type, s: bool, reason: Reason, m: String| ExpectedCondition {
                    parent: Some(pk.clone()),
                    ..cond(t, s, reason, m)
                };
                let accepted: Option<Result<String, (Reason, String)>> = match &edge.to {
                    edgecheck_core::Target::Missing(mref) => {
                        let k = mref.group_kind();
                        // Installed elsewhere: acceptance unknown, references still checked.
                        absent_is_missing(graph, &k, mref.namespace.as_deref()).then(|| {
                            Err((
                                Reason::NoMatchingParent,
                                format!(
                                    "{} `{}` {NOT_IN_INVENTORY}",
                                    k.kind,
                                    display_ns(mref.namespace.as_deref(), &mref.name)
                                ),
                            ))
                        })
                    }
                    edgecheck_core::Target::Found(pid) => {
                        let owner_ok = self
                            .of(*pid)
                            .iter()
                            .find(|c| c.condition_type == Type::Accepted && c.listener.is_none())
                            .is_none_or(|c| c.status || c.reason != Reason::NotAllowed);
                        let ls = slots.get(pid).map_or(&[][..], Vec::as_slice);
                        Some(if owner_ok {
                            self.attach(graph, (*pid, ls), p, kind, &rns, &r.spec.hostnames)
                        } else {
                            Err((
                                Reason::NotAllowedByListeners,
                                "the parent ListenerSet is not accepted by its Gateway".into(),
                            ))
                        })
                    }
                };
                for l in std::mem::take(&mut self.pending_terminated) {
                    self.terminated_tls_routes.push((rid, pk.clone(), l));
                }
                let attached = std::mem::take(&mut self.pending_attached);
                if let (Some(Ok(_)), Some(owner)) = (&accepted, edge.to.found()) {
                    self.attachments.entry(rid).or_default().push(Attachment {
                        parent_index: pi,
                        owner,
                        listeners: attached,
                    });
                }
                match accepted {
                    None => {}
                    Some(Ok(m)) => v.push(pc(Type::Accepted, true, Reason::Accepted, m)),
                    Some(Err((reason, m))) => v.push(pc(Type::Accepted, false, reason, m)),
                }
                match &resolved {
                    Ok(()) => v.push(pc(Type::ResolvedRefs, true, Reason::ResolvedRefs, "references resolved".into())),
                    Err((reason, m)) => v.push(pc(Type::ResolvedRefs, false, *reason, m.clone())),
                }
            }
            self.conditions.insert(rid, v);
        }
    }

    /// Attaches a route to the listeners a parentRef selects; counts `attachedRoutes`.
    fn attach(
        &mut self,
        graph: &Graph,
        (pid, ls): (ObjId, &[Slot]),
        p: &ParentRef,
        kind: &str,
        rns: &str,
        hostnames: &[String],
    ) -> Result<String, (Reason, String)> {
        let cands: Vec<&Slot> = ls
            .iter()
            .filter(|s| p.section_name.as_deref().is_none_or(|n| s.listener.name == n))
            .filter(|s| p.port.is_none_or(|port| s.listener.port == port))
            .collect();
        if cands.is_empty() {
            let what = match (&p.section_name, p.port) {
                (Some(n), Some(port)) => format!("no listener named `{n}` on port {port}"),
                (Some(n), None) => format!("no listener named `{n}`"),
                (None, Some(port)) => format!("no listener on port {port}"),
                (None, None) => "no listeners".into(),
            };
            return Err((Reason::NoMatchingParent, format!("{} has {what}", graph.obj(pid).to_ref())));
        }
        let has_hosts = matches!(kind, "HTTPRoute" | "GRPCRoute" | "TLSRoute");
        let mut why_not = Vec::new();
        let mut host_miss = Vec::new();
        let mut notes = Vec::new();
        let mut hit = Vec::new();
        for s in &cands {
            if !s.supported.iter().any(|k| k == kind) {
                let mode = if s.listener.protocol == "TLS" {
                    format!(" mode {}", tls_mode(&s.listener))
                } else {
                    String::new()
                };
                why_not.push(format!(
                    "listener `{}` ({}{mode}) does not allow {kind} (supported: {})",
                    s.listener.name,
                    s.listener.protocol,
                    if s.supported.is_empty() { "none".to_string() } else { s.supported.join(", ") }
                ));
                continue;
            }
            match namespace_allowed(graph, &s.listener, &s.namespace, rns) {
                Err(m) => {
                    why_not.push(m);
                    continue;
                }
                Ok(Some(n)) => notes.push(n),
                Ok(None) => {}
            }
            if has_hosts && !hostnames.is_empty() && s.listener.hostname.is_some() {
                let lh = s.listener.hostname.as_deref();
                if !hostnames.iter().any(|h| gateway_intersect(lh, h).is_some()) {
                    host_miss.push(format!(
                        "listener `{}` hostname {} does not intersect route hostnames {}",
                        s.listener.name,
                        lh.unwrap_or(""),
                        hostnames.join(", ")
                    ));
                    continue;
                }
            }
            if kind == "TLSRoute" && tls_mode(&s.listener) == "Terminate" {
                self.pending_terminated.push(s.listener.name.clone());
            }
            hit.push(s.listener.name.clone());
        }
        if hit.is_empty() {
            if !host_miss.is_empty() {
                return Err((Reason::NoMatchingListenerHostname, host_miss.join("; ")));
            }
            return Err((Reason::NotAllowedByListeners, why_not.join("; ")));
        }
        for name in &hit {
            if let Some(st) = self.listeners.get_mut(&(pid, name.clone())) {
                st.attached_routes += 1;
            }
        }
        self.pending_attached.clone_from(&hit);
        let mut m = format!("attached to listener(s) {}", hit.join(", "));
        for n in notes {
            m.push_str("; ");
            m.push_str(&n);
        }
        Ok(m)
    }

    fn policies(&mut self, graph: &Graph) {
        for (id, o, p) in graph.each::<views::BackendTlsPolicy>() {
            let ns = o.namespace.clone().unwrap_or_default();
            let mut v = vec![cond(Type::Accepted, true, Reason::Accepted, "accepted")];
            let refs =
                p.spec.validation.get("caCertificateRefs").and_then(|r| r.as_array()).cloned().unwrap_or_default();
            let mut res = Ok(());
            for r in refs {
                let g = r.get("group").and_then(|x| x.as_str()).unwrap_or("");
                let k = r.get("kind").and_then(|x| x.as_str()).unwrap_or("");
                let n = r.get("name").and_then(|x| x.as_str()).unwrap_or("");
                if !(g.is_empty() && matches!(k, "ConfigMap" | "Secret")) {
                    res = Err((Reason::InvalidKind, format!("caCertificateRefs names {k} `{n}`, not a ConfigMap")));
                    break;
                }
                let kk = Kind { group: String::new(), kind: k.to_string() };
                if graph.find_kind(&kk, Some(&ns), n).is_none()
                    && absent_is_missing(graph, &kk, Some(&ns))
                    && (k != "Secret" || graph.secret_producers(&ns, n).is_empty())
                {
                    res = Err((Reason::InvalidCACertificateRef, format!("{k} `{ns}/{n}` {NOT_IN_INVENTORY}")));
                    break;
                }
            }
            match res {
                Ok(()) => v.push(cond(Type::ResolvedRefs, true, Reason::ResolvedRefs, "references resolved")),
                Err((r, m)) => {
                    v[0] = cond(Type::Accepted, false, Reason::NoValidCACertificate, m.clone());
                    v.push(cond(Type::ResolvedRefs, false, r, m));
                }
            }
            self.conditions.insert(id, v);
        }
    }
}

fn display_ns(ns: Option<&str>, name: &str) -> String {
    match ns {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    }
}

/// The `parent` key of a parentRef, as written.
pub fn parent_key(p: &ParentRef) -> ParentKey {
    ParentKey {
        group: p.group.clone(),
        kind: p.kind.clone(),
        namespace: p.namespace.clone(),
        name: p.name.clone(),
        section_name: p.section_name.clone(),
        port: p.port,
    }
}

fn infra_params_missing(graph: &Graph, go: &edgecheck_core::Object, gw: &views::Gateway) -> Option<String> {
    let p = gw.spec.infrastructure.as_ref()?.get("parametersRef")?;
    let kind = Kind {
        group: p.get("group").and_then(|x| x.as_str()).unwrap_or("").to_string(),
        kind: p.get("kind").and_then(|x| x.as_str()).unwrap_or("").to_string(),
    };
    let name = p.get("name").and_then(|x| x.as_str()).unwrap_or("");
    let ns = go.namespace.as_deref();
    (graph.find_kind(&kind, ns, name).is_none() && kind_known(graph, &kind))
        .then(|| format!("infrastructure.parametersRef {} `{}` {NOT_IN_INVENTORY}", kind.kind, display_ns(ns, name)))
}

/// Listener `ResolvedRefs` from its certificateRefs.
fn cert_refs(graph: &Graph, owner: &edgecheck_core::Object, ns: &str, l: &Listener) -> Result<(), (Reason, String)> {
    let Some(tls) = &l.tls else { return Ok(()) };
    if tls_mode(l) == "Passthrough" {
        return Ok(());
    }
    if tls.certificate_refs.is_empty() && tls.options.is_empty() && matches!(l.protocol.as_str(), "HTTPS" | "TLS") {
        return Err((Reason::InvalidCertificateRef, "mode Terminate with no certificateRefs".into()));
    }
    for r in &tls.certificate_refs {
        let g = r.group.as_deref().unwrap_or("");
        let k = r.kind.as_deref().unwrap_or("Secret");
        let rns = r.namespace.as_deref().unwrap_or(ns);
        if !(g.is_empty() && k == "Secret") {
            return Err((Reason::InvalidCertificateRef, format!("certificateRef {k} `{}` is not a Secret", r.name)));
        }
        if rns != ns && !graph.reference_granted((GROUP, owner.kind.kind.as_str()), ns, ("", "Secret"), rns, &r.name) {
            return Err((
                Reason::RefNotPermitted,
                format!("certificateRef Secret `{rns}/{}` is in another namespace and no ReferenceGrant in `{rns}` allows it", r.name),
            ));
        }
        match graph.find(K::SECRET, Some(rns), &r.name) {
            None => {
                if graph.secret_producers(rns, &r.name).is_empty()
                    && absent_is_missing(graph, &K::SECRET.to_kind(), Some(rns))
                {
                    return Err((
                        Reason::InvalidCertificateRef,
                        format!("Secret `{rns}/{}` {NOT_IN_INVENTORY}", r.name),
                    ));
                }
            }
            Some(sid) => {
                if let Some(info) = &graph.obj(sid).secret {
                    if info.secret_type != "kubernetes.io/tls" {
                        return Err((
                            Reason::InvalidCertificateRef,
                            format!("Secret `{rns}/{}` has type {}, not kubernetes.io/tls", r.name, info.secret_type),
                        ));
                    }
                    if !info.encrypted && (!info.has_key("tls.crt") || !info.has_key("tls.key")) {
                        return Err((
                            Reason::InvalidCertificateRef,
                            format!("Secret `{rns}/{}` lacks tls.crt or tls.key", r.name),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Route `ResolvedRefs` from its backendRefs (the same for every parent).
fn backend_refs(
    graph: &Graph,
    ro: &edgecheck_core::Object,
    rns: &str,
    r: &views::Route,
) -> Result<(), (Reason, String, String)> {
    for (ri, rule) in r.spec.rules.iter().enumerate() {
        for (bi, b) in rule.backend_refs.iter().enumerate() {
            let field = format!("spec.rules[{ri}].backendRefs[{bi}]");
            let g = b.group.as_deref().unwrap_or("");
            let k = b.kind.as_deref().unwrap_or("Service");
            let bns = b.namespace.as_deref().unwrap_or(rns);
            // Extended kinds of the spec, and the backend kinds implementations define for themselves
            // (Envoy Gateway and kgateway `Backend`, Traefik `TraefikService`, Istio `Hostname`, GKE
            // `ServiceImport`): not typos, and what they resolve to is outside the inventory's reach.
            let known_ext = matches!(
                (g, k),
                ("multicluster.x-k8s.io" | "net.gke.io", "ServiceImport")
                    | ("inference.networking.k8s.io" | "inference.networking.x-k8s.io", "InferencePool")
                    | ("gateway.envoyproxy.io" | "gateway.kgateway.dev", "Backend")
                    | ("traefik.io" | "traefik.containo.us", "TraefikService")
                    | ("networking.istio.io", "Hostname")
            );
            if !(known_ext || g.is_empty() && k == "Service") {
                return Err((
                    Reason::InvalidKind,
                    format!("backendRef {k} `{}` (group `{g}`) is not a supported kind", b.name),
                    field,
                ));
            }
            if bns != rns && !graph.reference_granted((GROUP, ro.kind.kind.as_str()), rns, (g, k), bns, &b.name) {
                return Err((
                    Reason::RefNotPermitted,
                    format!(
                        "backendRef {k} `{bns}/{}` is in another namespace and no ReferenceGrant in `{bns}` allows it",
                        b.name
                    ),
                    field,
                ));
            }
            if known_ext {
                continue;
            }
            if graph.find(K::SERVICE, Some(bns), &b.name).is_none()
                && absent_is_missing(graph, &K::SERVICE.to_kind(), Some(bns))
            {
                return Err((Reason::BackendNotFound, format!("Service `{bns}/{}` {NOT_IN_INVENTORY}", b.name), field));
            }
        }
    }
    Ok(())
}

/// A computed condition that says something is wrong (False, or `Conflicted=True`): the object, the
/// condition, and where in the object it points.
pub(crate) struct Fault<'m> {
    /// The object the condition is for.
    pub id: ObjId,
    /// The condition.
    pub cond: &'m ExpectedCondition,
    /// The field it is about (`spec.listeners[2]`, `spec.parentRefs[0]`, the backendRef at fault), or `""`
    /// for the object itself.
    pub field: String,
    /// Where, in words: ` listener `https``, ` parentRef `public` sectionName `https``, or `""`.
    pub place: String,
    /// The other object involved: the parent a parentRef names, the backend a backendRef names.
    pub related: Vec<ObjectRef>,
}

impl GatewayModel {
    /// Every faulty condition, by object in load order, then in [`GatewayModel::of`] order.
    /// `Programmed=False` is left out: it is a consequence, and its cause is another condition.
    pub(crate) fn faults<'m>(&'m self, graph: &Graph) -> Vec<Fault<'m>> {
        let mut ids: Vec<ObjId> = self.conditions.keys().copied().collect();
        ids.sort_unstable();
        let mut out = Vec::new();
        for id in ids {
            for c in self.of(id) {
                if c.is_fault() && c.condition_type != Type::Programmed {
                    let (field, place, related) = self.locate(graph, id, c);
                    out.push(Fault { id, cond: c, field, place, related });
                }
            }
        }
        out
    }

    /// Where in the object a condition points: the listener, the parentRef or the backendRef it is for, or
    /// the field its reason names.
    fn locate(&self, graph: &Graph, id: ObjId, c: &ExpectedCondition) -> (String, String, Vec<ObjectRef>) {
        let obj = graph.obj(id);
        let mut field = String::new();
        let mut place = String::new();
        let mut related = Vec::new();
        if let Some(l) = &c.listener {
            let ls: &[Listener] = if let Some(g) = graph.view::<views::Gateway>(id) {
                &g.spec.listeners
            } else if let Some(s) = graph.view::<views::ListenerSet>(id) {
                &s.spec.listeners
            } else {
                &[]
            };
            // A duplicated listener name is invalid on its second occurrence.
            let pos = if c.reason == Reason::Invalid {
                ls.iter().rposition(|x| &x.name == l)
            } else {
                ls.iter().position(|x| &x.name == l)
            };
            if let Some(i) = pos {
                field = format!("spec.listeners[{i}]");
            }
            place = format!(" listener `{l}`");
        }
        if c.listener.is_none() && c.parent.is_none() {
            field = match (c.reason, obj.is(K::GATEWAY_CLASS), obj.is(K::GATEWAY)) {
                (Reason::InvalidParameters, true, _) => "spec.parametersRef".into(),
                (Reason::InvalidParameters, _, true) => "spec.infrastructure.parametersRef".into(),
                (Reason::Pending, _, true) => "spec.gatewayClassName".into(),
                (Reason::UnsupportedAddress, _, true) => "spec.addresses".into(),
                (Reason::NotAllowed | Reason::ParentNotAccepted, _, _) => "spec.parentRef".into(),
                (Reason::InvalidKind | Reason::InvalidCACertificateRef | Reason::NoValidCACertificate, _, _) => {
                    "spec.validation.caCertificateRefs".into()
                }
                _ => String::new(),
            };
        }
        let target = |e: &edgecheck_core::Edge| match &e.to {
            edgecheck_core::Target::Found(t) => graph.obj(*t).to_ref(),
            edgecheck_core::Target::Missing(m) => m.clone(),
        };
        if let Some(p) = &c.parent {
            if let Some(r) = graph.view::<views::Route>(id) {
                if let Some(i) = r.spec.parent_refs.iter().position(|x| parent_key(x) == *p) {
                    field = format!("spec.parentRefs[{i}]");
                    if let Some(e) =
                        graph.edges_from_kind(id, edgecheck_core::EdgeKind::ParentRef).find(|e| e.field == field)
                    {
                        related.push(target(e));
                    }
                }
            }
            if c.condition_type == Type::ResolvedRefs {
                if let Some(fld) = self.ref_fields.get(&id) {
                    field.clone_from(fld);
                    if let Some(e) =
                        graph.edges_from_kind(id, edgecheck_core::EdgeKind::Backend).find(|e| &e.field == fld)
                    {
                        related.push(target(e));
                    }
                }
            }
            let sec = p.section_name.as_deref().map(|s| format!(" sectionName `{s}`")).unwrap_or_default();
            let port = p.port.map(|s| format!(" port {s}")).unwrap_or_default();
            place = format!(" parentRef `{}`{sec}{port}", p.name);
        }
        (field, place, related)
    }
}

/// The words every message about a missing object ends with; [`ExpectedCondition::from_absence`] reads them.
pub(crate) const NOT_IN_INVENTORY: &str = "is not in the inventory";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::graph_from_text;

    fn model(text: &str) -> (Graph, GatewayModel) {
        let (g, _) = graph_from_text("t.yaml", text);
        let m = GatewayModel::compute(&g);
        (g, m)
    }

    fn conds(
        g: &Graph,
        m: &GatewayModel,
        k: K,
        ns: Option<&str>,
        name: &str,
    ) -> Vec<(Option<String>, String, bool, String)> {
        let id = g.find(k, ns, name).expect("object");
        m.of(id)
            .iter()
            .map(|c| {
                (
                    c.listener
                        .clone()
                        .or_else(|| c.parent.as_ref().map(|p| p.section_name.clone().unwrap_or_default())),
                    c.condition_type.as_str().to_string(),
                    c.status,
                    c.reason.as_str().to_string(),
                )
            })
            .collect()
    }

    fn has(v: &[(Option<String>, String, bool, String)], l: Option<&str>, t: &str, s: bool, r: &str) -> bool {
        v.iter().any(|c| c.0.as_deref() == l && c.1 == t && c.2 == s && c.3 == r)
    }

    const GW: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: cilium}
spec: {controllerName: io.cilium/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: public, namespace: edge}
spec:
  gatewayClassName: cilium
  listeners:
  - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
  - name: https
    port: 443
    protocol: HTTPS
    hostname: "*.example.com"
    tls: {certificateRefs: [{name: wild}]}
    allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {edge: "yes"}}}}
  - name: pass
    port: 443
    protocol: TLS
    hostname: db.example.com
    tls: {mode: Passthrough}
---
apiVersion: v1
kind: Secret
metadata: {name: wild, namespace: edge}
type: kubernetes.io/tls
data: {tls.crt: "", tls.key: ""}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {edge: "yes"}}
"#;

    #[test]
    fn healthy_gateway_and_routes() {
        let text = format!(
            "{GW}---\n{}",
            r#"apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  parentRefs: [{name: public, namespace: edge, sectionName: https}]
  hostnames: [a.b.example.com]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: db, namespace: edge}
spec:
  parentRefs: [{name: public, sectionName: pass}]
  hostnames: [db.example.com]
  rules: [{backendRefs: [{name: db, port: 5432}]}]
"#
        );
        let (g, m) = model(&text);
        let gw = conds(&g, &m, K::GATEWAY, Some("edge"), "public");
        assert!(has(&gw, None, "Accepted", true, "Accepted"), "{gw:?}");
        assert!(has(&gw, Some("https"), "Conflicted", false, "NoConflicts"));
        assert!(has(&gw, Some("https"), "ResolvedRefs", true, "ResolvedRefs"));
        // object-level first, then listeners in spec order
        assert_eq!(gw[0].1, "Accepted");
        assert_eq!(gw[2].0.as_deref(), Some("http"));
        let web = conds(&g, &m, K::HTTP_ROUTE, Some("shop"), "web");
        assert_eq!(
            web,
            vec![
                (Some("https".into()), "Accepted".into(), true, "Accepted".into()),
                (Some("https".into()), "ResolvedRefs".into(), true, "ResolvedRefs".into()),
            ]
        );
        let gid = g.find(K::GATEWAY, Some("edge"), "public").expect("gw");
        assert_eq!(m.listener(gid, "https").map(|l| l.attached_routes), Some(1));
        assert_eq!(m.listener(gid, "pass").map(|l| l.supported_kinds.clone()), Some(vec!["TLSRoute".to_string()]));
        let db = conds(&g, &m, K::TLS_ROUTE, Some("edge"), "db");
        assert!(has(&db, Some("pass"), "Accepted", true, "Accepted"), "{db:?}");
        assert_eq!(m.shared_tls_ports.len(), 1);
        assert_eq!(m.shared_tls_ports[0].port, 443);
    }

    #[test]
    fn route_rejections() {
        let text = format!(
            "{GW}---\n{}",
            r#"apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: host, namespace: shop}
spec:
  parentRefs: [{name: public, namespace: edge, sectionName: https}, {name: public, namespace: edge, sectionName: nope}, {name: public, namespace: edge, port: 8443}]
  hostnames: [example.com]
---
apiVersion: v1
kind: Namespace
metadata: {name: other}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ns, namespace: other}
spec:
  parentRefs: [{name: public, namespace: edge, sectionName: https}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: kind, namespace: edge}
spec:
  parentRefs: [{name: public, sectionName: https}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: xns, namespace: shop}
spec:
  parentRefs: [{name: public, namespace: edge, sectionName: http}]
  rules: [{backendRefs: [{name: api, namespace: edge, port: 80}]}]
"#
        );
        let (g, m) = model(&text);
        let h = conds(&g, &m, K::HTTP_ROUTE, Some("shop"), "host");
        assert!(has(&h, Some("https"), "Accepted", false, "NoMatchingListenerHostname"), "{h:?}");
        assert!(has(&h, Some("nope"), "Accepted", false, "NoMatchingParent"));
        assert!(has(&h, Some(""), "Accepted", false, "NoMatchingParent"));
        let n = conds(&g, &m, K::HTTP_ROUTE, Some("other"), "ns");
        assert!(has(&n, Some("https"), "Accepted", false, "NotAllowedByListeners"), "{n:?}");
        let k = conds(&g, &m, K::TLS_ROUTE, Some("edge"), "kind");
        assert!(has(&k, Some("https"), "Accepted", false, "NotAllowedByListeners"), "{k:?}");
        let x = conds(&g, &m, K::HTTP_ROUTE, Some("shop"), "xns");
        assert!(has(&x, Some("http"), "Accepted", true, "Accepted"));
        assert!(has(&x, Some("http"), "ResolvedRefs", false, "RefNotPermitted"), "{x:?}");
    }

    #[test]
    fn listener_conflicts_and_refs() {
        let text = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: edge}
spec:
  gatewayClassName: x
  listeners:
  - {name: a, port: 443, protocol: HTTPS, hostname: a.com, tls: {certificateRefs: [{name: s, namespace: certs}]}}
  - {name: b, port: 443, protocol: HTTP}
  - {name: c, port: 8443, protocol: HTTPS, tls: {certificateRefs: [{name: opaque}]}}
  - {name: d, port: 8443, protocol: HTTPS, tls: {certificateRefs: [{name: made}]}}
  - {name: e, port: 9000, protocol: HTTPS, tls: {mode: Passthrough}}
  - {name: f, port: 9001, protocol: TLS, allowedRoutes: {kinds: [{kind: HTTPRoute}]}, tls: {mode: Passthrough}}
  - {name: g, port: 9002, protocol: FTP}
---
apiVersion: v1
kind: Secret
metadata: {name: opaque, namespace: edge}
type: Opaque
data: {tls.crt: ""}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: made, namespace: edge}
spec: {secretName: made, dnsNames: [x.com], issuerRef: {name: le}}
"#;
        let (g, m) = model(text);
        let v = conds(&g, &m, K::GATEWAY, Some("edge"), "gw");
        assert!(has(&v, Some("a"), "Conflicted", true, "ProtocolConflict"), "{v:?}");
        assert!(has(&v, Some("b"), "Conflicted", true, "ProtocolConflict"));
        assert!(has(&v, Some("a"), "ResolvedRefs", false, "RefNotPermitted"));
        assert!(has(&v, Some("c"), "Conflicted", true, "HostnameConflict"));
        assert!(has(&v, Some("c"), "ResolvedRefs", false, "InvalidCertificateRef"));
        assert!(has(&v, Some("d"), "ResolvedRefs", true, "ResolvedRefs"), "cert-manager makes it");
        assert!(has(&v, Some("e"), "Accepted", false, "UnsupportedValue"));
        assert!(has(&v, Some("f"), "ResolvedRefs", false, "InvalidRouteKinds"));
        assert!(has(&v, Some("g"), "Accepted", false, "UnsupportedProtocol"));
        assert!(has(&v, None, "Accepted", true, "ListenersNotValid"), "f is accepted (only its kinds are wrong)");
        assert!(has(&v, None, "Programmed", false, "Invalid"), "no listener is programmed");
        // GatewayClass `x` missing, no classes in the inventory: not reported (installed elsewhere).
        assert!(!has(&v, None, "Accepted", false, "Pending"));
    }

    #[test]
    fn class_parameters() {
        let text = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: a}
spec: {controllerName: io.cilium/gateway-controller, parametersRef: {group: cilium.io, kind: CiliumGatewayClassConfig, name: missing, namespace: kube-system}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: b}
spec: {controllerName: x, parametersRef: {group: example.io, kind: Unknown, name: elsewhere}}
---
apiVersion: cilium.io/v2alpha1
kind: CiliumGatewayClassConfig
metadata: {name: other, namespace: kube-system}
"#;
        let (g, m) = model(text);
        assert!(has(&conds(&g, &m, K::GATEWAY_CLASS, None, "a"), None, "Accepted", false, "InvalidParameters"));
        assert!(has(&conds(&g, &m, K::GATEWAY_CLASS, None, "b"), None, "Accepted", true, "Accepted"));
    }
    #[test]
    fn listener_sets_lose_to_the_gateway_and_carry_routes() {
        let text = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: edge}
spec:
  gatewayClassName: x
  allowedListeners: {namespaces: {from: All}}
  listeners:
  - {name: http, port: 80, protocol: HTTP, hostname: a.example.com}
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XListenerSet
metadata: {name: team, namespace: shop}
spec:
  parentRef: {name: gw, namespace: edge}
  listeners:
  - {name: dup, port: 80, protocol: HTTP, hostname: a.example.com}
  - {name: own, port: 80, protocol: HTTP, hostname: shop.example.com}
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XListenerSet
metadata: {name: closed, namespace: shop}
spec:
  parentRef: {name: other, namespace: edge}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  parentRefs: [{group: gateway.networking.x-k8s.io, kind: XListenerSet, name: team, sectionName: own}]
  hostnames: [shop.example.com]
"#;
        let (g, m) = model(text);
        let gw = conds(&g, &m, K::GATEWAY, Some("edge"), "gw");
        assert!(has(&gw, Some("http"), "Conflicted", false, "NoConflicts"), "{gw:?}");
        let ls = conds(&g, &m, K::LISTENER_SET, Some("shop"), "team");
        assert!(has(&ls, None, "Accepted", true, "Accepted"), "{ls:?}");
        assert!(has(&ls, Some("dup"), "Conflicted", true, "HostnameConflict"));
        assert!(has(&ls, Some("own"), "Conflicted", false, "NoConflicts"));
        let web = conds(&g, &m, K::HTTP_ROUTE, Some("shop"), "web");
        assert!(has(&web, Some("own"), "Accepted", true, "Accepted"), "{web:?}");
        let id = g.find(K::LISTENER_SET, Some("shop"), "team").expect("set");
        assert_eq!(m.listener(id, "own").map(|l| l.attached_routes), Some(1));
        let closed = conds(&g, &m, K::LISTENER_SET, Some("shop"), "closed");
        assert!(has(&closed, None, "Accepted", false, "ParentNotAccepted"));
    }
}
