//! Gateway API: the conditions a conformant implementation would write, computed from the manifests alone,
//! for the features its GatewayClass's `status.supportedFeatures` lists (a dump, a cluster), else what the
//! implementation table knows of its controller ([`Features`]), else every Standard and Extended feature.
//! `conformance.rs` holds the model to the conformance suite at a pinned tag.
//!
//! Rules (gateway-api `apis/v1`, GEP-1713 for ListenerSets, GEP-91 for client certificate validation, the
//! conformance suite):
//! - **GatewayClass** `Accepted`: `InvalidParameters` when `parametersRef` names an object that is
//!   not in the inventory *and* the inventory holds that kind (its CRD, other objects of the kind, or
//!   a full dump). A kind the repository never mentions is assumed installed elsewhere: a healthy repo
//!   whose CRDs and parameter objects come from another source stays clean.
//! - **Gateway** `Accepted`/`Programmed` (`InvalidParameters`, `UnsupportedAddress` for an address type
//!   no implementation defines, `ListenersNotValid`), `ResolvedRefs` for `spec.tls.backend.clientCertificateRef`,
//!   `InsecureFrontendValidationMode` for `AllowInsecureFallback`; per listener `Accepted`, `Programmed`,
//!   `ResolvedRefs`, `Conflicted`. Listeners are grouped by port (an index, never a scan of every pair of
//!   the Gateway's routes and listeners). On one port `HTTP` goes only with `HTTP`; `HTTPS` and `TLS`
//!   share a port when hostnames differ (the spec's compatibility rule), and TLS Passthrough with
//!   Terminate only with `TLSRouteModeMixed` (unknown support: recorded in
//!   [`GatewayModel::shared_tls_ports`]); `TCP` shares with nothing; `UDP` is another transport. A
//!   conflicted listener is not accepted. Conflicted listeners of a Gateway's own spec are all marked; a
//!   ListenerSet's listener loses to any listener still standing before it (the Gateway's own, then
//!   ListenerSets oldest first: creation time when known, else namespace/name, and the message says so).
//!   An HTTPS listener's client certificate validation (`spec.tls.frontend`, its port's entry else the
//!   default) that names no usable CA makes it `Accepted=False NoValidCACertificate`.
//! - **ListenerSet** `Accepted`/`Programmed`: `NotAllowed` by the Gateway's `allowedListeners`,
//!   `ListenersNotValid` when none of its listeners can be programmed; accepted ones count in the
//!   Gateway's `attachedListenerSets`.
//! - **Routes**, per parentRef: `Accepted` (`NoMatchingParent`, `NotAllowedByListeners`,
//!   `NoMatchingListenerHostname`; a TLS listener in `Terminate` mode admits TLSRoute (Extended, v1.4),
//!   recorded in [`GatewayModel::terminated_tls_routes`]) and `ResolvedRefs` (`InvalidKind`, `RefNotPermitted`,
//!   `BackendNotFound`). A missing Service is `BackendNotFound` only under the absence rule (a full
//!   dump, or Services in that namespace in the inventory).
//! - **BackendTLSPolicy** `Accepted`/`ResolvedRefs`: CA references (kind, presence, `ca.crt`), and
//!   `Accepted=False Conflicted` for a policy targeting what an older one targets.
//! - A Secret or Service that is not in the inventory is missing only under the absence rule (a full dump,
//!   others of its kind in that namespace, or — for a listener's certificate — the Gateway's GatewayClass in
//!   the inventory); a Secret some producer (cert-manager and its gateway-shim, External Secrets,
//!   SealedSecret, a secrets operator) creates is never missing.

use std::collections::{BTreeMap, HashMap};

use edgecheck_core::hostname::{gateway_intersect, normalize};
use edgecheck_core::implementation::{self, BackendKind, Implementation};
use edgecheck_core::kind::K;
use edgecheck_core::views::{self, Listener, ParentRef};
use edgecheck_core::{Graph, Kind, ObjId, ObjectRef, Str};

use super::condition::{ConditionType as Type, Reason};
use super::{ExpectedCondition, ParentKey};

const GROUP: &str = "gateway.networking.k8s.io";

/// Per-listener state a controller would report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListenerState {
    /// Routes attached.
    pub attached_routes: u32,
    /// Supported route kinds.
    pub supported_kinds: Vec<Str>,
}

/// A port where a TLS Passthrough listener and a terminating (HTTPS or TLS Terminate) listener meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedTlsPort {
    /// The Gateway.
    pub gateway: ObjId,
    /// The port.
    pub port: i64,
    /// Passthrough listeners (names).
    pub passthrough: Vec<Str>,
    /// Terminating listeners (names).
    pub terminate: Vec<Str>,
}

/// The computed conditions.
#[derive(Debug, Default)]
pub struct GatewayModel {
    /// Conditions by object, in a stable order: object-level first, then per listener in spec order,
    /// then per parentRef in spec order.
    pub conditions: HashMap<ObjId, Vec<ExpectedCondition>>,
    /// Listener state by (Gateway or ListenerSet, listener name).
    pub listeners: HashMap<(ObjId, Str), ListenerState>,
    /// Ports shared by Passthrough and Terminate listeners, by Gateway in load order.
    pub shared_tls_ports: Vec<SharedTlsPort>,
    /// For a route whose `ResolvedRefs` is False: the field of the backendRef at fault.
    pub ref_fields: HashMap<ObjId, String>,
    /// TLSRoutes attached to a TLS listener in `Terminate` mode: (route, parentRef, listener). The
    /// spec allows it as an Extended feature; implementations and CRDs before it reject the route.
    pub terminated_tls_routes: Vec<(ObjId, ParentKey, Str)>,
    /// Where each route attached: per parentRef that was accepted, the parent (Gateway or ListenerSet)
    /// and the listeners it attached to. The request path of `trace` follows these.
    pub attachments: HashMap<ObjId, Vec<Attachment>>,
    /// For a listener whose `ResolvedRefs` is False because of a reference other than its
    /// `certificateRefs` (the Gateway's client certificate validation): the field at fault.
    pub listener_ref_fields: HashMap<(ObjId, Str), String>,
    /// BackendTLSPolicies that lose to an older one targeting the same Service (and section): the loser
    /// and the policy that wins.
    pub policy_conflicts: Vec<(ObjId, ObjId)>,
    /// ListenerSets accepted by each Gateway (`status.attachedListenerSets`).
    pub attached_listener_sets: HashMap<ObjId, u32>,
    /// Scratch: listeners of the parentRef being attached that terminate a TLSRoute.
    pending_terminated: Vec<Str>,
    /// Scratch: listeners the parentRef being attached attached to.
    pending_attached: Vec<Str>,
}

/// A route's accepted parentRef: the parent and the listeners that took the route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// Index of the parentRef in the route's spec.
    pub parent_index: usize,
    /// The Gateway or ListenerSet.
    pub owner: ObjId,
    /// Listener names, in the owner's spec order.
    pub listeners: Vec<Str>,
}

/// What a Gateway's implementation supports, as far as the inputs tell: its GatewayClass's
/// `status.supportedFeatures` (a dump, a cluster), else what the implementation table knows of its
/// controller. `None` from [`Features::supports`] is unknown: the model then assumes the feature, as
/// the spec's Standard and Extended features are assumed wherever nothing says otherwise.
pub(crate) struct Features<'g> {
    listed: Option<(&'g str, &'g [Str])>,
    imp: Option<&'static Implementation>,
}

impl<'g> Features<'g> {
    /// The features of Gateway `gateway` (or of the Gateway a ListenerSet attaches to).
    pub(crate) fn of(graph: &'g Graph, gateway: ObjId) -> Features<'g> {
        let listed = graph.edges_from_kind(gateway, edgecheck_core::EdgeKind::GatewayClass).find_map(|e| {
            let id = e.to.found()?;
            let c = graph.view::<views::GatewayClass>(id)?;
            let f = c.status.supported_features.as_deref().filter(|f| !f.is_empty())?;
            Some((graph.obj(id).name.as_str(), f))
        });
        Features { listed, imp: implementation::of_parent(graph, gateway) }
    }

    /// Whether `feature` is supported: `None` when nothing in the inputs says.
    pub(crate) fn supports(&self, feature: &str) -> Option<bool> {
        match self.listed {
            Some((_, f)) => Some(f.iter().any(|x| x == feature)),
            None => self.imp.and_then(|i| i.supports(feature)),
        }
    }

    /// Who says so, for a message: the GatewayClass's status or the implementation.
    pub(crate) fn source(&self) -> String {
        match (self.listed, self.imp) {
            (Some((class, _)), _) => format!("GatewayClass `{class}`'s status.supportedFeatures"),
            (None, Some(i)) => format!("{}'s conformance report", i.name),
            (None, None) => "the implementation".into(),
        }
    }
}

/// A listener with its owner (Gateway or ListenerSet).
struct Slot {
    owner: ObjId,
    /// Index of the listener in its owner's spec.
    index: usize,
    listener: Listener,
    /// Namespace of the owner (for `from: Same`).
    namespace: String,
    supported: Vec<Str>,
    accepted: bool,
}

fn cond(
    t: Type,
    status: bool,
    reason: Reason,
    message: impl Into<std::borrow::Cow<'static, str>>,
) -> ExpectedCondition {
    let message = super::fitted(message.into());
    ExpectedCondition { parent: None, listener: None, condition_type: t, status, reason, message }
}

fn lcond(
    l: &str,
    t: Type,
    status: bool,
    reason: Reason,
    message: impl Into<std::borrow::Cow<'static, str>>,
) -> ExpectedCondition {
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
        self.listeners.get(&(owner, Str::from(name)))
    }

    fn classes(&mut self, graph: &Graph) {
        for (id, _, c) in graph.each::<views::GatewayClass>() {
            let mut v = Vec::new();
            match &c.spec.parameters_ref {
                Some(p) => {
                    let kind = Kind {
                        group: p.group.clone().unwrap_or_default().into(),
                        kind: p.kind.clone().unwrap_or_default().into(),
                    };
                    // A Secret that cert-manager or a secret operator will write is there.
                    let produced = kind.group.is_empty()
                        && kind.kind == "Secret"
                        && !graph.secret_producers(p.namespace.as_deref().unwrap_or(""), &p.name).is_empty();
                    let found = produced || graph.find_kind(&kind, p.namespace.as_deref(), &p.name).is_some();
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
                ls.iter().rposition(|x| x.name == l)
            } else {
                ls.iter().position(|x| x.name == l)
            };
            if let Some(i) = pos {
                field = format!("spec.listeners[{i}]");
            }
            if c.condition_type == Type::ResolvedRefs {
                if let Some(f) = self.listener_ref_fields.get(&(id, Str::from(l.as_str()))) {
                    field.clone_from(f);
                }
            }
            place = format!(" listener `{l}`");
        }
        if c.listener.is_none() && c.parent.is_none() {
            field = match (c.reason, obj.is(K::GATEWAY_CLASS), obj.is(K::GATEWAY)) {
                (Reason::InvalidParameters, true, _) => "spec.parametersRef".into(),
                (Reason::InvalidParameters, _, true) => "spec.infrastructure.parametersRef".into(),
                (Reason::Pending, _, true) => "spec.gatewayClassName".into(),
                (Reason::UnsupportedAddress, _, true) => "spec.addresses".into(),
                (Reason::Conflicted, _, _) => "spec.targetRefs".into(),
                (Reason::InvalidClientCertificateRef | Reason::RefNotPermitted, _, true) => {
                    "spec.tls.backend.clientCertificateRef".into()
                }
                (Reason::NotAllowed | Reason::ParentNotAccepted, _, _) => "spec.parentRef".into(),
                (Reason::InvalidKind | Reason::InvalidCACertificateRef | Reason::NoValidCACertificate, _, _) => {
                    "spec.validation.caCertificateRefs".into()
                }
                _ => String::new(),
            };
        }
        let target = |e: &edgecheck_core::Edge| match &e.to {
            edgecheck_core::Target::Found(t) => graph.obj(*t).to_ref(),
            edgecheck_core::Target::Missing(m) => (**m).clone(),
        };
        if let Some(p) = &c.parent {
            if let Some(r) = graph.view::<views::Route>(id) {
                if let Some(i) = r.spec.parent_refs.iter().position(|x| parent_key(x) == **p) {
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
                        graph.edges_from_kind(id, edgecheck_core::EdgeKind::Backend).find(|e| e.field == fld)
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

mod listeners;
mod refs;
mod routes;

use refs::{backend_client_cert, backend_refs, cert_refs, frontend_ca};

#[cfg(test)]
mod conformance;
#[cfg(test)]
mod tests;
