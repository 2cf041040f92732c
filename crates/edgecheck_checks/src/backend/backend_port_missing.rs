use edgecheck_core::views::{PortRef, Service};
use edgecheck_core::{Findings, Layer, Severity, Target};

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
    /// ExternalName Services have no ports to check and are skipped; so are references without a port.
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
            let (Target::Found(sid), Some(port)) = (&e.to, &e.port) else { continue };
            let Some(svc) = cx.graph.view::<Service>(*sid) else { continue };
            if svc.spec.kind() == "ExternalName" || service_port(svc, port).is_some() {
                continue;
            }
            let from = cx.graph.obj(e.from);
            let sobj = cx.graph.obj(*sid);
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
