use edgecheck_core::kind::K;
use edgecheck_core::views::{PortRef, Service};
use edgecheck_core::{Edge, Findings, Layer, Object, Severity, Target};

use super::helpers::{backend_edges, describe_ports, service_port};
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A route whose backend port is not a port of the Service it names:
    /// - Ingress `service.port.number` / `service.port.name` (v1) or `servicePort` (v1beta1): a number
    ///   is a Service `port`, a name is a Service port `name` (not a container port name);
    /// - Gateway API `backendRefs[].port` (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute): the Service
    ///   `port` number, never the `targetPort`;
    /// - Traefik IngressRoute / IngressRouteTCP `services[].port`: a Service port number or name.
    ///
    /// A reference without a port is reported where the controller needs one: a Gateway API
    /// backendRef to a Service (the spec requires `port`; the API server rejects the route), a Traefik
    /// service when the Service does not have exactly one port. ExternalName Services have no ports
    /// to check and are skipped.
    ///
    /// ## Why it matters
    /// The controller cannot build an upstream: ingress-nginx answers 503 and logs
    /// `service ... does not have any active endpoint` / `port not found`, Gateway API
    /// implementations set `ResolvedRefs=False` and answer 500, Traefik logs
    /// `service port not found` and drops the router. Naming the `targetPort` (8080) instead of the
    /// Service port (80) is the usual mistake.
    ///
    /// ## Example
    /// ```yaml
    /// kind: Ingress
    /// spec:
    ///   rules:
    ///     - http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 8080}}}}]}
    /// ---
    /// kind: Service
    /// metadata: {name: web}
    /// spec: {ports: [{name: http, port: 80, targetPort: 8080}]}
    /// ```
    ///
    /// ## How to fix
    /// Use a port the Service exposes (its `port`, or its port `name`), or add that port to the Service.
    pub(crate) struct BackendPortMissing {
        code: "BKD002", name: "backend-port-missing", layer: Layer::Backend, severity: Severity::Error,
    }
}

impl BackendPortMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for e in backend_edges(cx.graph) {
            let Target::Found(sid) = &e.to else { continue };
            let Some(svc) = cx.graph.view::<Service>(*sid) else { continue };
            if svc.spec.kind() == "ExternalName" {
                continue;
            }
            let from = cx.graph.obj(e.from);
            let sobj = cx.graph.obj(*sid);
            let Some(port) = e.port() else {
                report_unset(from, sobj, svc, e, out);
                continue;
            };
            if service_port(svc, port).is_some() {
                continue;
            }
            let what = match port {
                PortRef::Number(n) => format!("port {n}"),
                PortRef::Name(s) => format!("port name `{s}`"),
            };
            let hint = match port {
                PortRef::Number(n) => svc
                    .spec
                    .ports
                    .iter()
                    .find(|p| p.target().number() == Some(*n))
                    .map(|p| format!("; {n} is the targetPort of Service port {}", p.port)),
                PortRef::Name(_) => None,
            };
            out.at(from, &e.field)
                .message(format!(
                    "{} sends traffic to {what} of {}, which the Service does not expose{}; requests to this backend fail",
                    from.to_ref(),
                    sobj.to_ref(),
                    hint.unwrap_or_default()
                ))
                .evidence(format!("backend port: {port}"))
                .evidence(format!("Service ports: {}", describe_ports(svc)))
                .related(sobj.to_ref())
                .fix("name a port the Service exposes (its `port` number or port `name`), or add the port to the Service")
                .emit();
        }
    }
}

/// A backend reference without a port, where the controller cannot pick one.
fn report_unset(from: &Object, sobj: &Object, svc: &Service, e: &Edge, out: &mut Findings<'_>) {
    let gateway = [K::HTTP_ROUTE, K::GRPC_ROUTE, K::TLS_ROUTE, K::TCP_ROUTE, K::UDP_ROUTE].iter().any(|k| from.is(*k));
    let traefik = [
        K::TRAEFIK_INGRESS_ROUTE,
        K::TRAEFIK_INGRESS_ROUTE_TCP,
        K::TRAEFIK_OLD_INGRESS_ROUTE,
        K::TRAEFIK_OLD_INGRESS_ROUTE_TCP,
    ]
    .iter()
    .any(|k| from.is(*k));
    let consequence = if gateway {
        "Gateway API requires a port for a Service backendRef; the API server rejects the route"
    } else if traefik && svc.spec.ports.len() != 1 {
        "Traefik cannot choose one of its ports and drops the router"
    } else {
        return;
    };
    out.at(from, &e.field)
        .message(format!("{} names {} without a port; {consequence}", from.to_ref(), sobj.to_ref()))
        .evidence(format!("{}: no port", e.field))
        .evidence(format!("Service ports: {}", describe_ports(svc)))
        .related(sobj.to_ref())
        .fix("add `port:` with the Service port number (or name, for Traefik)")
        .emit();
}
