//! What serves a probed endpoint, for checks that join observations with objects: the claiming
//! route, the entry (Gateway or IngressClass) and its addresses, the TLS Secrets, Services,
//! EndpointSlices, workloads and owning Applications on the path.

use super::Role;
use edgecheck_core::observation::TargetObservation;
use edgecheck_core::{Graph, ObjId};

use super::build::{self, PathIndex};
use super::{Branch, RouteKind, TraceTarget};
use crate::model::Model;

/// The objects on one endpoint's request path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Serving {
    /// Index of the observation in the observations given.
    pub observation: usize,
    /// The claiming route (Ingress, HTTPRoute, GRPCRoute, TLSRoute, IngressRoute(TCP)).
    pub route: Option<ObjId>,
    /// Its kind.
    pub kind: Option<RouteKind>,
    /// The Gateway (or ListenerSet) or IngressClass the request enters by.
    pub entry: Option<ObjId>,
    /// Addresses the objects say the entry has: Gateway `status.addresses`, the Ingress's
    /// `status.loadBalancer`, LoadBalancer Services of the entry.
    pub addresses: Vec<String>,
    /// TLS Secrets serving the host (present ones).
    pub secrets: Vec<ObjId>,
    /// Backend Services (present ones).
    pub services: Vec<ObjId>,
    /// EndpointSlices of those Services.
    pub slices: Vec<ObjId>,
    /// Workloads the Services select.
    pub workloads: Vec<ObjId>,
    /// Applications owning objects on the path.
    pub applications: Vec<ObjId>,
    /// TLS passes through to the backend.
    pub passthrough: bool,
}

/// For each observation whose host the inventory claims, what serves it. The engine computes this once
/// per run ([`crate::CheckContext::serving`]); the checks that join a probe with the objects read it.
pub fn serving(graph: &Graph, model: &Model, cx: &PathIndex<'_>, observations: &[TargetObservation]) -> Vec<Serving> {
    if observations.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, o) in observations.iter().enumerate() {
        let Some(t) = TraceTarget::parse(&format!(
            "{}://{}:{}{}",
            o.scheme,
            o.host,
            o.port,
            if o.path.is_empty() { "/" } else { &o.path }
        )) else {
            continue;
        };
        let claim = cx.claims.claims(&t).into_iter().next();
        let Some(claim) = claim else { continue };
        let path = build::build(graph, model, cx, &t, Some(o));
        let mut s = Serving {
            observation: i,
            route: Some(claim.route),
            kind: Some(claim.kind),
            passthrough: claim.passthrough,
            ..Serving::default()
        };
        for (n, id) in path.nodes.iter().zip(&path.ids) {
            let Some(id) = *id else { continue };
            match (n.branch, n.role) {
                (Branch::Request, Role::Entry) => s.entry = Some(id),
                (Branch::Request, Role::Tls) => s.secrets.push(id),
                (Branch::Request, Role::Service) => s.services.push(id),
                (Branch::Request, Role::Endpoints) => s.slices.push(id),
                (Branch::Request, Role::Workload) => s.workloads.push(id),
                (Branch::Gitops, _) => s.applications.push(id),
                _ => {}
            }
        }
        for n in path.nodes.iter().filter(|n| n.branch == Branch::Request && n.role == Role::Address) {
            s.addresses.extend(n.detail.iter().filter_map(|d| d.split(" from ").next()).map(str::to_string));
        }
        s.addresses.sort();
        s.addresses.dedup();
        out.push(s);
    }
    out
}
