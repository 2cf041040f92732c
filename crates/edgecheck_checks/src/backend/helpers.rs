//! What the backend checks share: the Backend edges of routes, Service port lookup.

use edgecheck_core::graph::{Edge, EdgeKind, ObjId};
use edgecheck_core::views::{PortRef, Service, ServicePort};
use edgecheck_core::Graph;

/// Every `Backend` edge (Ingress, HTTPRoute/GRPCRoute/TLSRoute/TCPRoute, Traefik IngressRoute and
/// IngressRouteTCP → Service), in edge order.
pub(super) fn backend_edges(graph: &Graph) -> impl Iterator<Item = &Edge> {
    graph.edges().iter().filter(|e| e.kind == EdgeKind::Backend)
}

/// Whether some route names the Service `id` as a backend.
pub(super) fn is_routed(graph: &Graph, id: ObjId) -> bool {
    graph.edges_to_kind(id, EdgeKind::Backend).next().is_some()
}

/// The Service port a route's port reference selects. A name matches the Service port's name; a
/// number (or a name that is all digits, as Ingress v1beta1 `servicePort: "80"` is often written)
/// matches the Service port's number.
pub(super) fn service_port<'s>(svc: &'s Service, port: &PortRef) -> Option<&'s ServicePort> {
    match port {
        PortRef::Number(n) => svc.spec.ports.iter().find(|p| p.port == *n),
        PortRef::Name(s) => svc
            .spec
            .ports
            .iter()
            .find(|p| p.name.as_deref() == Some(s.as_str()))
            .or_else(|| port.number().and_then(|n| svc.spec.ports.iter().find(|p| p.port == n))),
    }
}

/// `name:port/PROTO` for each port of the Service, for evidence.
pub(super) fn describe_ports(svc: &Service) -> String {
    if svc.spec.ports.is_empty() {
        return "(none)".into();
    }
    svc.spec
        .ports
        .iter()
        .map(|p| match &p.name {
            Some(n) => format!("{n}:{}", p.port),
            None => p.port.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}
