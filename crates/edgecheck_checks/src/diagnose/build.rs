//! Builds the path graph of one target from its best claim: name → entry (class or Gateway and
//! listener) → TLS (Secret ← Certificate ← Issuer ← Challenge) → route → Service → endpoints →
//! workloads → app, with the GitOps (owning Applications) and secret-delivery (Secret ←
//! ExternalSecret → store) branches beside it.

use super::Role;
use std::collections::HashMap;

use edgecheck_core::kind::K;
use edgecheck_core::observation::{DnsOutcome, TargetObservation};
use edgecheck_core::views::{self, PortRef};
use edgecheck_core::{EdgeKind, Graph, Layer, ObjId, Object, ObjectRef, Target};

use super::claims::{attached_listeners, Claim, ClaimIndex, RouteKind};
use super::{Branch, NodeState, PathNode, TraceTarget};
use crate::model::Model;

/// The path before findings are placed on it.
pub(super) struct Path {
    pub nodes: Vec<PathNode>,
    /// Graph ids of the nodes that are objects in the inventory (parallel to `nodes`).
    pub ids: Vec<Option<ObjId>>,
    pub passthrough: bool,
    pub claims: Vec<String>,
    pub claimed: bool,
}

/// What the request paths of every host are built from, indexed once per run: who claims which host,
/// EndpointSlices by Service, Challenges by name, Applications and what they own, LoadBalancer Services.
pub struct PathIndex<'g> {
    pub(crate) claims: ClaimIndex<'g>,
    /// EndpointSlices by (namespace, Service name).
    pub(crate) slices: HashMap<(String, String), Vec<ObjId>>,
    /// ACME Challenges by DNS name.
    pub(crate) challenges: HashMap<String, Vec<ObjId>>,
    /// Applications by name, and by the (kind, namespace, name) their live status lists.
    apps: HashMap<String, ObjId>,
    /// Services of type LoadBalancer.
    lb_services: Vec<ObjId>,
    app_resources: HashMap<(String, Option<String>, String), ObjId>,
    /// Backend and TLS Secret edges sorted by (object, kind, field), each with its place in the graph: one
    /// vector, not a map of a vector per object (#17).
    by_field: Vec<(usize, &'g edgecheck_core::Edge)>,
}

impl PathIndex<'_> {
    /// The Application that owns `id`: its source path holds the object's file (a linted
    /// checkout), its status lists the object (a dump), or the object carries Argo CD's tracking
    /// label or annotation.
    pub(crate) fn owner(&self, graph: &Graph, id: ObjId) -> Option<ObjId> {
        if let Some(a) = graph.owning_application(id) {
            return Some(a);
        }
        let o = graph.obj(id);
        // (The key is built only when there is something to look up: this runs for every node of every path.)
        let listed = (!self.app_resources.is_empty())
            .then(|| {
                self.app_resources.get(&(
                    o.kind.kind.to_string(),
                    o.namespace.as_deref().map(str::to_string),
                    o.name.to_string(),
                ))
            })
            .flatten();
        if let Some(a) = listed {
            return Some(*a);
        }
        let tracked = o
            .annotation("argocd.argoproj.io/tracking-id")
            .and_then(|t| t.split_once(':').map(|(app, _)| app))
            .or_else(|| o.label("app.kubernetes.io/instance"))?;
        // `namespace_app` when Applications live in other namespaces.
        let name = tracked.rsplit_once('_').map_or(tracked, |(_, n)| n);
        self.apps.get(tracked).or_else(|| self.apps.get(name)).copied()
    }
}

impl<'g> PathIndex<'g> {
    /// The edges of `kind` from `id` whose field starts with one of `prefixes`, in the graph's order. The
    /// edges of one rule are one range of the sorted fields: scanning every edge of an Ingress with
    /// 20,000 rules for each of its hosts was quadratic.
    fn edges_under(&self, id: ObjId, kind: EdgeKind, prefixes: &[String]) -> Vec<&'g edgecheck_core::Edge> {
        let start = self.by_field.partition_point(|(_, e)| (e.from, e.kind) < (id, kind));
        let len = self.by_field[start..].partition_point(|(_, e)| (e.from, e.kind) == (id, kind));
        let sorted = &self.by_field[start..start + len];
        let mut hits: Vec<(usize, &'g edgecheck_core::Edge)> = prefixes
            .iter()
            .flat_map(|p| {
                let start = sorted.partition_point(|(_, e)| e.field.as_str() < p.as_str());
                sorted[start..].iter().take_while(move |(_, e)| e.field.starts_with(p.as_str()))
            })
            .copied()
            .collect();
        hits.sort_unstable_by_key(|(i, _)| *i);
        hits.dedup_by_key(|(i, _)| *i);
        hits.into_iter().map(|(_, e)| e).collect()
    }

    /// Builds the indexes.
    pub fn build(graph: &'g Graph, model: &'g Model) -> PathIndex<'g> {
        let mut slices: HashMap<(String, String), Vec<ObjId>> = HashMap::new();
        for (id, o, _) in graph.each::<views::EndpointSlice>() {
            if let (Some(ns), Some(svc)) = (&o.namespace, o.label("kubernetes.io/service-name")) {
                slices.entry((ns.to_string(), svc.to_string())).or_default().push(id);
            }
        }
        let mut challenges: HashMap<String, Vec<ObjId>> = HashMap::new();
        for (id, _, c) in graph.each::<views::AcmeChallenge>() {
            challenges.entry(edgecheck_core::hostname::normalize(&c.spec.dns_name)).or_default().push(id);
        }
        let mut apps = HashMap::new();
        let mut app_resources = HashMap::new();
        for (id, o, a) in graph.each::<views::Application>() {
            apps.insert(o.name.to_string(), id);
            for r in &a.status.resources {
                let r = r.object_ref(o.namespace.as_deref());
                app_resources.entry((r.kind, r.namespace, r.name)).or_insert(id);
            }
        }
        let lb_services = graph
            .each::<views::Service>()
            .into_iter()
            .filter(|(_, _, s)| s.spec.service_type.as_deref() == Some("LoadBalancer"))
            .map(|(id, _, _)| id)
            .collect();
        let mut by_field: Vec<(usize, &edgecheck_core::Edge)> = graph
            .edges()
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.kind, EdgeKind::Backend | EdgeKind::TlsSecret))
            .collect();
        by_field.sort_unstable_by(|(i, a), (j, b)| {
            (a.from, a.kind, a.field.as_str(), i).cmp(&(b.from, b.kind, b.field.as_str(), j))
        });
        let claims = ClaimIndex::build(graph, model);
        PathIndex { claims, slices, challenges, apps, app_resources, lb_services, by_field }
    }
}

struct Builder<'a> {
    graph: &'a Graph,
    model: &'a Model,
    nodes: Vec<PathNode>,
    ids: Vec<Option<ObjId>>,
}

impl Builder<'_> {
    fn add(&mut self, role: Role, layer: Layer, branch: Branch, parent: Option<usize>, what: What) -> usize {
        let (label, object, id) = match what {
            What::Text(label) => (label, None, None),
            What::Found(id, label) => {
                let o = self.graph.obj(id);
                let label = if label.is_empty() { describe(o) } else { format!("{} {label}", describe(o)) };
                (label, Some(o.to_ref()), Some(id))
            }
            What::Missing(r) => (format!("{} {} (not in the inventory)", r.kind, display_name(&r)), Some(r), None),
        };
        let (file, line) = id
            .map(|i| self.graph.obj(i))
            .map_or((None, None), |o| (o.source.file().map(str::to_string), o.source.line()));
        let state = if object.is_some() && id.is_none() { NodeState::Unknown } else { NodeState::Ok };
        self.nodes.push(PathNode {
            role,
            label,
            object,
            file,
            line,
            layer,
            branch,
            parent,
            state,
            detail: Vec::new(),
            findings: Vec::new(),
        });
        self.ids.push(id);
        self.nodes.len() - 1
    }

    fn target(&mut self, role: Role, layer: Layer, branch: Branch, parent: usize, to: &Target, label: &str) -> usize {
        match to {
            Target::Found(id) => {
                if let Some(i) = self.ids.iter().position(|x| *x == Some(*id)) {
                    return i;
                }
                self.add(role, layer, branch, Some(parent), What::Found(*id, label.to_string()))
            }
            Target::Missing(r) => self.add(role, layer, branch, Some(parent), What::Missing((**r).clone())),
        }
    }

    fn detail(&mut self, node: usize, s: impl Into<String>) {
        let s = s.into();
        // Details quote status text and URLs; they reach every output.
        let s = match edgecheck_core::redact::credentials(&s) {
            std::borrow::Cow::Owned(masked) => masked,
            std::borrow::Cow::Borrowed(_) => s,
        };
        self.nodes[node].detail.push(s);
    }
}

enum What {
    Text(String),
    Found(ObjId, String),
    Missing(ObjectRef),
}

fn describe(o: &Object) -> String {
    match &o.namespace {
        Some(ns) => format!("{} {ns}/{}", o.kind.kind, o.name),
        None => format!("{} {}", o.kind.kind, o.name),
    }
}

fn display_name(r: &ObjectRef) -> String {
    match &r.namespace {
        Some(ns) => format!("{ns}/{}", r.name),
        None => r.name.clone(),
    }
}

pub(super) fn build(
    graph: &Graph,
    model: &Model,
    cx: &PathIndex<'_>,
    t: &TraceTarget,
    obs: Option<&TargetObservation>,
) -> Path {
    build_claim(graph, model, cx, t, obs, &cx.claims.claims(t), 0)
}

/// The path of the `pick`th of the host's `claims` ([`super::ClaimIndex::claims`], in order of precedence).
pub(super) fn build_claim(
    graph: &Graph,
    model: &Model,
    cx: &PathIndex<'_>,
    t: &TraceTarget,
    obs: Option<&TargetObservation>,
    claims: &[Claim],
    pick: usize,
) -> Path {
    let mut b = Builder { graph, model, nodes: Vec::new(), ids: Vec::new() };
    let name = name_node(&mut b, t, obs);
    let mut lines = claim_lines(graph, claims, pick);
    let unlisted: Vec<&str> = [K::INGRESS, K::HTTP_ROUTE, K::GRPC_ROUTE, K::TLS_ROUTE, K::TRAEFIK_INGRESS_ROUTE]
        .iter()
        .filter(|k| graph.unchecked_kind(&k.to_kind()))
        .map(|k| k.kind)
        .collect();
    if !unlisted.is_empty() && !claims.is_empty() {
        lines.push(format!(
            "{} could not be listed (LOD007): a claim of that kind would not be seen",
            unlisted.join(", ")
        ));
    }
    let Some(claim) = claims.get(pick) else {
        let app = b.add(Role::App, Layer::App, Branch::Request, Some(name), What::Text("application".into()));
        app_detail(&mut b, app, obs);
        return Path { nodes: b.nodes, ids: b.ids, passthrough: false, claims: lines, claimed: false };
    };
    let passthrough = claim.passthrough;
    // The address the name should resolve to, then the entry: the class / Gateway and listener
    // that receive the request.
    let address = b.add(Role::Address, Layer::Listener, Branch::Request, Some(name), What::Text(String::new()));
    let entry = entry(&mut b, claim, t, address);
    address_detail(&mut b, cx, claim, address, entry);
    // TLS, when the proxy terminates it.
    let tls_node = (t.tls() && !passthrough).then(|| tls(&mut b, cx, claim, t, entry));
    let route = b.add(
        Role::Route,
        Layer::Route,
        Branch::Request,
        Some(tls_node.unwrap_or(entry)),
        What::Found(claim.route, String::new()),
    );
    b.detail(route, claim.how.clone());
    let (services, workloads) = backends(&mut b, cx, claim, route);
    let last = workloads.first().or(services.first()).copied().unwrap_or(route);
    let mut app_parent = last;
    if t.tls() && passthrough {
        let what = What::Text("TLS terminated by the backend (passthrough)".into());
        app_parent = b.add(Role::Tls, Layer::Tls, Branch::Request, Some(last), what);
    }
    let app = b.add(Role::App, Layer::App, Branch::Request, Some(app_parent), What::Text("application".into()));
    app_detail(&mut b, app, obs);
    secret_delivery(&mut b, cx, &workloads, t);
    gitops(&mut b, cx);
    Path { nodes: b.nodes, ids: b.ids, passthrough, claims: lines, claimed: true }
}

/// The host name, with what each resolver answered.
fn name_node(b: &mut Builder<'_>, t: &TraceTarget, obs: Option<&TargetObservation>) -> usize {
    let name = b.add(Role::Name, Layer::Dns, Branch::Request, None, What::Text(t.host.clone()));
    // Without a probe nothing says the name resolves: unknown, not fine.
    if obs.is_none_or(|o| o.dns.is_empty()) {
        b.nodes[name].state = NodeState::Unknown;
        b.detail(name, "not resolved (no probe)");
    }
    for d in obs.map(|o| o.dns.as_slice()).unwrap_or_default() {
        let line = match d.outcome {
            DnsOutcome::Answer | DnsOutcome::Static => format!("{}: {}", d.resolver, d.addresses.join(", ")),
            other => format!(
                "{}: {:?}{}",
                d.resolver,
                other,
                d.detail.as_ref().map(|x| format!(" ({x})")).unwrap_or_default()
            ),
        };
        b.detail(name, line);
    }
    name
}

/// Who claims the host, the one whose path this is first.
fn claim_lines(graph: &Graph, claims: &[Claim], pick: usize) -> Vec<String> {
    let mut order: Vec<usize> = (0..claims.len()).collect();
    if pick < claims.len() {
        order.retain(|&i| i != pick);
        order.insert(0, pick);
    }
    order
        .into_iter()
        .map(|i| &claims[i])
        .enumerate()
        .map(|(i, c)| {
            let who = graph.obj(c.route).to_ref().to_string();
            if i == 0 {
                format!("claimed by {who}: {}", c.how)
            } else {
                format!("also claimed by {who}: {}", c.how)
            }
        })
        .collect()
}

/// Where a claim enters: the IngressClass (named, or the default) of an Ingress, the Gateway (or ListenerSet)
/// of a route, Traefik. Claims that enter by different doors are served side by side (a migration from an
/// Ingress to an HTTPRoute), each on its own address.
pub(super) fn door(graph: &Graph, claim: &Claim) -> String {
    let target = |e: Option<&edgecheck_core::Edge>| match e.map(|e| &e.to) {
        Some(Target::Found(id)) => graph.obj(*id).to_ref().to_string(),
        Some(Target::Missing(r)) => r.to_string(),
        None => String::new(),
    };
    match claim.kind {
        RouteKind::Ingress => {
            format!("ingress {}", target(graph.edges_from_kind(claim.route, EdgeKind::IngressClass).next()))
        }
        RouteKind::TraefikHttp | RouteKind::TraefikTcp => "traefik".into(),
        _ => match claim.listeners.first() {
            Some((owner, _)) => format!("gateway {}", graph.obj(*owner).to_ref()),
            None => format!("gateway {}", target(graph.edges_from_kind(claim.route, EdgeKind::ParentRef).next())),
        },
    }
}

/// The addresses the objects give the entry, on the address node.
fn address_detail(b: &mut Builder<'_>, cx: &PathIndex<'_>, claim: &Claim, address: usize, entry: usize) {
    let addrs = entry_addresses(b.graph, cx, claim, b.ids[entry]);
    b.nodes[address].label = if addrs.is_empty() {
        b.nodes[address].state = NodeState::Unknown;
        "no address in the objects".to_string()
    } else {
        let mut v: Vec<&str> = addrs.iter().map(|(a, _)| a.as_str()).collect();
        v.dedup();
        format!("address {}", v.join(", "))
    };
    for (a, from) in addrs {
        b.detail(address, format!("{a} from {from}"));
    }
}

/// The Services of the matched rule, their EndpointSlices and the workloads they select. Returns the
/// Service and workload nodes.
fn backends(b: &mut Builder<'_>, cx: &PathIndex<'_>, claim: &Claim, route: usize) -> (Vec<usize>, Vec<usize>) {
    let graph = b.graph;
    let mut services = Vec::new();
    let mut workloads = Vec::new();
    let edges = cx.edges_under(claim.route, EdgeKind::Backend, &claim.backend_fields);
    for e in &edges {
        let port = e.port().map(|p| format!("port {p}")).unwrap_or_default();
        let svc = b.target(Role::Service, Layer::Backend, Branch::Request, route, &e.to, &port);
        services.push(svc);
        let Target::Found(sid) = e.to else { continue };
        let o = graph.obj(sid);
        if let Some(s) = graph.view::<views::Service>(sid) {
            service_detail(b, svc, s, e.port());
        }
        if let Some(ns) = &o.namespace {
            for &slice in cx.slices.get(&(ns.to_string(), o.name.to_string())).into_iter().flatten() {
                let what = What::Found(slice, String::new());
                let n = b.add(Role::Endpoints, Layer::Backend, Branch::Request, Some(svc), what);
                if let Some(es) = graph.view::<views::EndpointSlice>(slice) {
                    let ready = es
                        .endpoints
                        .iter()
                        .filter(|ep| {
                            ep.conditions.get("ready").and_then(edgecheck_core::Value::as_bool).unwrap_or(true)
                        })
                        .count();
                    b.detail(n, format!("{ready} of {} endpoints ready", es.endpoints.len()));
                }
            }
        }
        for w in graph.edges_from_kind(sid, EdgeKind::Selects).filter_map(|e| e.to.found()) {
            let n = b.add(Role::Workload, Layer::Backend, Branch::Request, Some(svc), What::Found(w, String::new()));
            if let Some(wv) = graph.view::<views::Workload>(w) {
                let status = views::Workload::status(graph.obj(w));
                workload_detail(b, n, (wv, status), graph.view::<views::Service>(sid), e.port());
            }
            workloads.push(n);
        }
    }
    if edges.is_empty() && matches!(claim.kind, RouteKind::TraefikHttp | RouteKind::TraefikTcp) {
        b.detail(route, "no Kubernetes Service backend (TraefikService or noop)");
    }
    (services, workloads)
}

/// The Secrets the workloads read, with what produces each.
fn secret_delivery(b: &mut Builder<'_>, cx: &PathIndex<'_>, workloads: &[usize], t: &TraceTarget) {
    let graph = b.graph;
    for &w in workloads {
        let Some(wid) = b.ids[w] else { continue };
        let ns = graph.obj(wid).namespace.clone();
        let mut seen: Vec<&str> = Vec::new();
        for u in graph.view::<views::Workload>(wid).map(|v| v.secret_uses.as_slice()).unwrap_or_default() {
            let s = u.secret.as_str();
            if seen.contains(&s) {
                continue;
            }
            seen.push(s);
            let to = match graph.find(edgecheck_core::kind::K::SECRET, ns.as_deref(), s) {
                Some(id) => Target::Found(id),
                None => Target::Missing(std::sync::Arc::new(ObjectRef::new(
                    edgecheck_core::kind::K::SECRET,
                    ns.as_deref(),
                    s,
                ))),
            };
            let n = b.target(Role::Secret, Layer::Secrets, Branch::Secrets, w, &to, "");
            producers(b, cx, n, ns.as_deref(), s, t);
        }
    }
}

/// GitOps: the Application that owns each object on the path.
fn gitops(b: &mut Builder<'_>, cx: &PathIndex<'_>) {
    let count = b.nodes.len();
    for i in 0..count {
        let Some(id) = b.ids[i] else { continue };
        if b.nodes[i].branch == Branch::Gitops {
            continue;
        }
        if let Some(app) = cx.owner(b.graph, id) {
            let exists = b.ids.contains(&Some(app));
            let n = b.target(Role::Application, Layer::Gitops, Branch::Gitops, i, &Target::Found(app), "");
            if !exists {
                application_detail(b, n, app);
            }
        }
    }
}

fn entry(b: &mut Builder<'_>, claim: &Claim, t: &TraceTarget, name: usize) -> usize {
    let graph = b.graph;
    match claim.kind {
        RouteKind::Ingress => {
            let class = graph.edges_from_kind(claim.route, EdgeKind::IngressClass).next().cloned();
            let n = match &class {
                Some(e) => {
                    let n = b.target(Role::Entry, Layer::Listener, Branch::Request, name, &e.to, "");
                    b.detail(n, format!("class from {}", e.how()));
                    if let Some(cid) = e.to.found() {
                        if let Some(c) = graph.view::<views::IngressClass>(cid) {
                            if let Some(ctrl) = &c.spec.controller {
                                b.detail(n, format!("controller {ctrl}"));
                            }
                        }
                        for p in graph.edges_from_kind(cid, EdgeKind::ClassParameters).cloned().collect::<Vec<_>>() {
                            b.target(Role::Parameters, Layer::Listener, Branch::Request, n, &p.to, "");
                        }
                    }
                    n
                }
                None => b.add(
                    Role::Entry,
                    Layer::Listener,
                    Branch::Request,
                    Some(name),
                    What::Text("ingress controller (no IngressClass named or default)".into()),
                ),
            };
            n
        }
        RouteKind::HttpRoute | RouteKind::GrpcRoute | RouteKind::TlsRoute => {
            if let Some((owner, lname)) = claim.listeners.first() {
                let l = attached_listeners(graph, b.model, claim.route)
                    .into_iter()
                    .find(|(o, l)| o == owner && l.name == lname);
                let label = match &l {
                    Some((_, l)) => format!(
                        "listener `{}` :{} {}{}",
                        l.name,
                        l.port,
                        l.protocol,
                        l.hostname.as_ref().map(|h| format!(" {h}")).unwrap_or_default()
                    ),
                    None => format!("listener `{lname}`"),
                };
                let n = b.add(Role::Entry, Layer::Listener, Branch::Request, Some(name), What::Found(*owner, label));
                gateway_detail(b, n, *owner);
                for (o, other) in claim.listeners.iter().skip(1) {
                    b.detail(n, format!("also attached to {} listener `{other}`", graph.obj(*o).to_ref()));
                }
                n
            } else {
                // Not attached on this port: the parents it names, as they are.
                let parents: Vec<_> = graph.edges_from_kind(claim.route, EdgeKind::ParentRef).cloned().collect();
                let first =
                    parents.first().map(|e| b.target(Role::Entry, Layer::Listener, Branch::Request, name, &e.to, ""));
                let n = first.unwrap_or_else(|| {
                    b.add(
                        Role::Entry,
                        Layer::Listener,
                        Branch::Request,
                        Some(name),
                        What::Text("no Gateway parent".into()),
                    )
                });
                b.detail(n, format!("the route is attached to no listener for port {}", t.port));
                if let Some(gid) = b.ids[n] {
                    gateway_detail(b, n, gid);
                }
                n
            }
        }
        RouteKind::TraefikHttp | RouteKind::TraefikTcp => {
            let eps =
                graph.view::<views::TraefikRoute>(claim.route).map(|r| r.spec.entry_points.clone()).unwrap_or_default();
            let label = if eps.is_empty() {
                "Traefik (all entry points)".to_string()
            } else {
                format!("Traefik entry points {}", eps.join(", "))
            };
            b.add(Role::Entry, Layer::Listener, Branch::Request, Some(name), What::Text(label))
        }
    }
}

fn gateway_detail(b: &mut Builder<'_>, n: usize, gid: ObjId) {
    let graph = b.graph;
    if let Some(e) = graph.edges_from_kind(gid, EdgeKind::GatewayClass).next().cloned() {
        let c = b.target(Role::Class, Layer::Listener, Branch::Request, n, &e.to, "");
        if let Some(cid) = e.to.found() {
            if let Some(gc) = graph.view::<views::GatewayClass>(cid) {
                let ctrl = gc.spec.controller_name.clone();
                b.detail(c, format!("controller {ctrl}"));
            }
        }
    }
}

/// Labels gateway implementations put on the Service they create for a Gateway.
const GATEWAY_SERVICE_LABELS: &[&str] = &[
    "gateway.networking.k8s.io/gateway-name",
    "io.cilium.gateway/owning-gateway",
    "gateway.envoyproxy.io/owning-gateway-name",
    "istio.io/gateway-name",
];

/// Where the objects say the entry can be reached: Gateway `status.addresses`, the Ingress's
/// `status.loadBalancer`, the LoadBalancer Service of the Gateway or of Traefik.
fn entry_addresses(graph: &Graph, cx: &PathIndex<'_>, claim: &Claim, entry: Option<ObjId>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let lb_services = |pred: &dyn Fn(&Object) -> bool, out: &mut Vec<(String, String)>| {
        for &id in &cx.lb_services {
            let (o, Some(s)) = (graph.obj(id), graph.view::<views::Service>(id)) else { continue };
            if !pred(o) {
                continue;
            }
            for i in s
                .status
                .as_ref()
                .and_then(|st| st.load_balancer.as_ref())
                .map(|lb| lb.ingress.as_slice())
                .unwrap_or_default()
            {
                if let Some(a) = i.ip.as_deref().or(i.hostname.as_deref()) {
                    out.push((a.to_string(), format!("{} status.loadBalancer", o.to_ref())));
                }
            }
        }
    };
    match claim.kind {
        RouteKind::Ingress => {
            let ing = graph.obj(claim.route);
            for a in lb_addresses(ing.value.pointer("/status/loadBalancer/ingress")) {
                out.push((a, format!("{} status.loadBalancer", ing.to_ref())));
            }
        }
        RouteKind::HttpRoute | RouteKind::GrpcRoute | RouteKind::TlsRoute => {
            let Some(gid) = entry else { return out };
            let gw = graph.obj(gid);
            for a in gw.value.pointer("/status/addresses").and_then(|a| a.as_array()).into_iter().flatten() {
                if let Some(v) = a.get("value").and_then(|v| v.as_str()) {
                    out.push((v.to_string(), format!("{} status.addresses", gw.to_ref())));
                }
            }
            let name = gw.name.clone();
            lb_services(
                &|o: &Object| GATEWAY_SERVICE_LABELS.iter().any(|l| o.label(l) == Some(name.as_str())),
                &mut out,
            );
        }
        RouteKind::TraefikHttp | RouteKind::TraefikTcp => {
            lb_services(&|o: &Object| o.label("app.kubernetes.io/name") == Some("traefik"), &mut out);
        }
    }
    out
}

fn lb_addresses(v: Option<edgecheck_core::ValueRef<'_>>) -> Vec<String> {
    v.and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|x| x.get("ip").or_else(|| x.get("hostname")).and_then(|v| v.as_str()).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn tls(b: &mut Builder<'_>, cx: &PathIndex<'_>, claim: &Claim, t: &TraceTarget, entry: usize) -> usize {
    let graph = b.graph;
    let edges: Vec<_> = match claim.kind {
        RouteKind::Ingress | RouteKind::TraefikHttp | RouteKind::TraefikTcp => cx
            .edges_under(claim.route, EdgeKind::TlsSecret, &claim.tls_fields)
            .into_iter()
            .filter(|e| claim.tls_fields.iter().any(|f| *f == e.field))
            .cloned()
            .collect(),
        _ => match claim.listeners.first() {
            Some((owner, l)) => graph
                .edges_from_kind(*owner, EdgeKind::TlsSecret)
                .filter(|e| e.section() == Some(l.as_str()))
                .cloned()
                .collect(),
            None => Vec::new(),
        },
    };
    let Some(e) = edges.first() else {
        let gateway_route = !matches!(claim.kind, RouteKind::Ingress | RouteKind::TraefikHttp | RouteKind::TraefikTcp);
        // No listener takes the request on this port: TLS is never spoken, so it is not judged.
        if gateway_route && claim.listeners.is_empty() {
            let what = What::Text(format!("not reached: no listener on port {} takes the route", t.port));
            let n = b.add(Role::Tls, Layer::Tls, Branch::Request, Some(entry), what);
            b.nodes[n].state = NodeState::Unknown;
            return n;
        }
        let (label, known) = unnamed_certificate(graph, claim);
        let n = b.add(Role::Tls, Layer::Tls, Branch::Request, Some(entry), What::Text(label));
        // No Secret names the certificate: what the controller serves is not known from the objects, and
        // is often its self-signed default. Never ✓ on the objects' word alone.
        if !known {
            b.nodes[n].state = NodeState::Unknown;
        }
        return n;
    };
    let n = b.target(Role::Tls, Layer::Tls, Branch::Request, entry, &e.to, "");
    if let Some(sid) = e.to.found() {
        if let Some(info) = graph.obj(sid).secret.as_deref() {
            if let Some(leaf) = info.leaf() {
                b.detail(n, format!("leaf {} (SAN {})", leaf.subject, leaf.names().join(", ")));
                b.detail(
                    n,
                    format!(
                        "valid {} to {}",
                        edgecheck_core::cert::format_time(leaf.not_before),
                        edgecheck_core::cert::format_time(leaf.not_after)
                    ),
                );
                b.detail(n, format!("sha256 {}", leaf.sha256));
            } else if let Some(err) = &info.cert_error {
                b.detail(n, format!("tls.crt: {err}"));
            }
        }
    }
    let (ns, name) = match &e.to {
        Target::Found(id) => (graph.obj(*id).namespace.as_deref().map(str::to_string), graph.obj(*id).name.to_string()),
        Target::Missing(r) => (r.namespace.clone(), r.name.clone()),
    };
    producers(b, cx, n, ns.as_deref(), &name, t);
    n
}

/// What serves TLS for a claim that names no Secret, and whether the objects make it known: Traefik's
/// `certResolver` (issued by ACME at run time), the default TLSStore's `defaultCertificate`, else the
/// controller's default certificate (Traefik's self-signed `TRAEFIK DEFAULT CERT`, ingress-nginx's
/// `Kubernetes Ingress Controller Fake Certificate`) unless another certificate the controller loaded
/// covers the host. None of them can be seen offline: only the probe tells.
fn unnamed_certificate(graph: &Graph, claim: &Claim) -> (String, bool) {
    match claim.kind {
        RouteKind::TraefikHttp | RouteKind::TraefikTcp => {
            let route = graph.obj(claim.route);
            let resolver = route.value.pointer("/spec/tls/certResolver").and_then(|v| v.as_str());
            if let Some(r) = resolver {
                return (
                    format!("certificate from certResolver `{r}` (ACME, issued at run time: probe to see it)"),
                    false,
                );
            }
            let store = ["traefik.io", "traefik.containo.us"]
                .iter()
                .flat_map(|g| graph.ids_of(&edgecheck_core::Kind { group: (*g).into(), kind: "TLSStore".into() }))
                .map(|&id| graph.obj(id))
                .find(|o| o.name == "default");
            let default_cert = store.and_then(|o| {
                o.value
                    .pointer("/spec/defaultCertificate/secretName")
                    .and_then(|v| v.as_str())
                    .map(|s| format!("TLSStore `{}` defaultCertificate Secret `{s}`", o.to_ref()))
                    .or_else(|| {
                        o.value
                            .pointer("/spec/defaultGeneratedCert/resolver")
                            .and_then(|v| v.as_str())
                            .map(|r| format!("TLSStore `{}` defaultGeneratedCert from certResolver `{r}`", o.to_ref()))
                    })
            });
            match default_cert {
                Some(d) => (format!("no secretName or certResolver: {d}, unless another router's certificate covers the host"), false),
                None => (
                    "no secretName or certResolver: Traefik's self-signed default certificate (TRAEFIK DEFAULT CERT), unless another router's certificate or a TLSStore default covers the host".into(),
                    false,
                ),
            }
        }
        RouteKind::Ingress => {
            let ing = graph.obj(claim.route);
            // Cloud load balancers take certificates from their own stores, named by annotation.
            let cloud = [
                ("alb.ingress.kubernetes.io/certificate-arn", "ACM certificate"),
                ("networking.gke.io/managed-certificates", "GKE ManagedCertificate"),
                ("ingress.gcp.kubernetes.io/pre-shared-cert", "GCP pre-shared certificate"),
                ("service.beta.kubernetes.io/azure-application-gateway-ssl-cert", "Application Gateway certificate"),
                ("appgw.ingress.kubernetes.io/appgw-ssl-certificate", "Application Gateway certificate"),
            ]
            .into_iter()
            .find_map(|(a, what)| ing.annotation(a).map(|v| format!("{what} {v} (from `{a}`: not seen offline)")));
            match cloud {
                Some(c) => (c, false),
                None => (
                    "no tls entry names a Secret for the host: the controller's default certificate, or one it discovers (ingress-nginx and Traefik serve a self-signed one unless given another)".into(),
                    false,
                ),
            }
        }
        _ => ("no certificate configured".into(), true),
    }
}

/// What writes a Secret: Certificates (→ Issuer, → Challenges for the host), ExternalSecrets
/// (→ store), SealedSecrets.
fn producers(b: &mut Builder<'_>, cx: &PathIndex<'_>, secret: usize, ns: Option<&str>, name: &str, t: &TraceTarget) {
    let graph = b.graph;
    let Some(ns) = ns else { return };
    for &p in graph.secret_producers(ns, name) {
        let po = graph.obj(p);
        let branch = if po.kind.kind == "Certificate" { Branch::Certificate } else { Branch::Secrets };
        let layer = if branch == Branch::Certificate { Layer::Tls } else { Layer::Secrets };
        if po.kind.kind != "Certificate" && po.kind.kind != "ExternalSecret" && po.kind.kind != "SealedSecret" {
            continue; // an Ingress or Gateway asking cert-manager's shim: it is on the path already
        }
        let n = b.target(Role::Producer, layer, branch, secret, &Target::Found(p), "");
        if let Some(h) = b.model.health_of(p) {
            b.detail(n, format!("health {}: {}", h.status.as_str(), h.message));
        }
        for kind in [EdgeKind::Issuer, EdgeKind::SecretStore] {
            for e in graph.edges_from_kind(p, kind).cloned().collect::<Vec<_>>() {
                let i = b.target(Role::Issuer, layer, branch, n, &e.to, "");
                if let Some(iid) = e.to.found() {
                    if let Some(h) = b.model.health_of(iid) {
                        b.detail(i, format!("health {}: {}", h.status.as_str(), h.message));
                    }
                }
            }
        }
        if branch == Branch::Certificate {
            for &c in cx.challenges.get(&t.host).into_iter().flatten() {
                if graph.obj(c).namespace.as_deref() == Some(ns) {
                    let cn = b.target(Role::Challenge, Layer::Tls, Branch::Certificate, n, &Target::Found(c), "");
                    if let Some(ch) = graph.view::<views::AcmeChallenge>(c) {
                        let state = ch.status.state.clone().unwrap_or_else(|| "unknown".into());
                        let reason = ch.status.reason.clone().unwrap_or_default();
                        b.detail(cn, format!("{} {state} {reason}", ch.spec.type_).trim().to_string());
                    }
                }
            }
        }
    }
}

fn service_detail(b: &mut Builder<'_>, n: usize, s: &views::Service, port: Option<&PortRef>) {
    let ty = s.spec.service_type.clone().unwrap_or_else(|| "ClusterIP".into());
    let p = port.and_then(|want| {
        s.spec.ports.iter().find(|sp| match want {
            PortRef::Number(x) => sp.port == *x,
            PortRef::Name(name) => sp.name.as_deref() == Some(name.as_str()),
        })
    });
    match (p, port) {
        (Some(sp), _) => b.detail(
            n,
            format!(
                "{ty}, port {}{} → targetPort {}",
                sp.port,
                sp.name.as_ref().map(|x| format!(" ({x})")).unwrap_or_default(),
                sp.target_port.as_ref().map_or(sp.port.to_string(), ToString::to_string)
            ),
        ),
        (None, Some(want)) => b.detail(n, format!("{ty}, no port {want}")),
        (None, None) => b.detail(n, ty),
    }
    if let Some(lb) = s.status.as_ref().and_then(|st| st.load_balancer.as_ref()) {
        let addrs: Vec<String> =
            lb.ingress.iter().filter_map(|i| i.ip.as_deref().or(i.hostname.as_deref()).map(str::to_string)).collect();
        if !addrs.is_empty() {
            b.detail(n, format!("load balancer {}", addrs.join(", ")));
        }
    }
}

fn workload_detail(
    b: &mut Builder<'_>,
    n: usize,
    (w, status): (&views::Workload, Option<edgecheck_core::ValueRef<'_>>),
    svc: Option<&views::Service>,
    port: Option<&PortRef>,
) {
    if let Some(st) = status {
        let ready = st.get("readyReplicas").and_then(edgecheck_core::ValueRef::as_i64);
        let want = w.replicas.or_else(|| st.get("replicas").and_then(edgecheck_core::ValueRef::as_i64));
        if let Some(want) = want {
            b.detail(n, format!("{} of {want} replicas ready", ready.unwrap_or(0)));
        }
    }
    // The container port the Service's targetPort lands on.
    let target = svc.and_then(|s| {
        let sp = match port {
            Some(PortRef::Number(x)) => s.spec.ports.iter().find(|p| p.port == *x),
            Some(PortRef::Name(name)) => s.spec.ports.iter().find(|p| p.name.as_deref() == Some(name.as_str())),
            None => s.spec.ports.first(),
        }?;
        Some(sp.target_port.clone().unwrap_or(PortRef::Number(sp.port)))
    });
    if let Some(tp) = target {
        let hit = w.containers.iter().find_map(|c| {
            c.ports
                .iter()
                .find(|p| match &tp {
                    PortRef::Number(x) => p.container_port == *x,
                    PortRef::Name(name) => p.name.as_deref() == Some(name.as_str()),
                })
                .map(|p| (c.name.clone(), p.container_port))
        });
        match hit {
            Some((c, p)) => b.detail(n, format!("targetPort {tp} → container `{c}` port {p}")),
            None if matches!(tp, PortRef::Name(_)) => {
                b.detail(n, format!("targetPort {tp}: no container port of that name"))
            }
            None => b.detail(n, format!("targetPort {tp} (not declared by a container; may still listen)")),
        }
    }
}

fn application_detail(b: &mut Builder<'_>, n: usize, app: ObjId) {
    if let Some(a) = b.graph.view::<views::Application>(app) {
        if let Some(s) = &a.status.sync.status {
            b.detail(n, format!("sync {s}"));
        }
    }
    if let Some(h) = b.model.health_of(app) {
        if !h.own {
            b.detail(
                n,
                format!(
                    "health {}{}",
                    h.status.as_str(),
                    if h.message.is_empty() { String::new() } else { format!(": {}", h.message) }
                ),
            );
        }
    }
}

fn app_detail(b: &mut Builder<'_>, n: usize, obs: Option<&TargetObservation>) {
    let Some(o) = obs else {
        b.nodes[n].state = NodeState::Unknown;
        b.detail(n, "not probed");
        return;
    };
    if let Some(tls) = &o.tls {
        let served = tls.chain.first().map(|c| format!(", served leaf sha256 {}", c.sha256)).unwrap_or_default();
        b.detail(
            n,
            format!(
                "TLS {:?}: {} {} ALPN {}{served}",
                tls.outcome,
                tls.version.clone().unwrap_or_default(),
                tls.cipher.clone().unwrap_or_default(),
                tls.alpn.clone().unwrap_or_else(|| "none".into())
            ),
        );
    }
    for h in &o.http {
        let status = h.status.map_or_else(|| format!("{:?}", h.outcome), |s| s.to_string());
        let server = h.header("server").map(|s| format!(" server: {s}")).unwrap_or_default();
        b.detail(n, format!("{} {} → {status}{server}", h.protocol, h.url));
    }
    if let Some(g) = &o.grpc {
        b.detail(n, format!("gRPC: {g:?}").chars().take(200).collect::<String>());
    }
    if o.http.is_empty() && o.grpc.is_none() {
        b.nodes[n].state = NodeState::Unknown;
        b.detail(n, "no HTTP answer observed");
    }
}
