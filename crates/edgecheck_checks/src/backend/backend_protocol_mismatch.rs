use edgecheck_core::kind::K;
use edgecheck_core::views::{BackendTlsPolicy, Service, ServicePort, TraefikRoute};
use edgecheck_core::{Edge, Findings, Graph, Layer, Object, Severity, Target};

use super::helpers::{backend_edges, reached, serves, service_port, Serves};
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// The protocol a proxy speaks to a backend against what the backend port serves.
    ///
    /// What the proxy speaks: Ingress `nginx.ingress.kubernetes.io/backend-protocol` (`HTTPS`, `GRPCS`
    /// → TLS; `GRPC` → gRPC over h2c; `HTTP`), `alb.ingress.kubernetes.io/backend-protocol` (`https`, `http`),
    /// the Service annotation `traefik.ingress.kubernetes.io/service.serversscheme` (without it, a
    /// Traefik Ingress follows Traefik's port rule below); Traefik
    /// IngressRoute `services[].scheme` (`https`, `h2c`, `http`; without it Traefik speaks TLS to a
    /// Service port 443 or a port named `https…`, else plain HTTP); HTTPRoute plain HTTP, GRPCRoute gRPC,
    /// either TLS when a BackendTLSPolicy targets the Service (or an Istio DestinationRule for it
    /// originates TLS: `tls.mode` `SIMPLE`/`MUTUAL`), h2c when the Service port's
    /// `appProtocol` is `kubernetes.io/h2c`. Ingresses without an annotation are not judged (the
    /// controller decides), nor are TLSRoute, TCPRoute and IngressRouteTCP (bytes pass through).
    ///
    /// What the port serves, strongest evidence first: Argo CD's server TLS mode (`--insecure`: plain
    /// HTTP/1.1 and gRPC over cmux, no h2c), the scheme of an httpGet readiness/liveness/startup probe
    /// on that port, the Service port's `appProtocol` (`http`, `https`), the container port's name
    /// (`http`, `https`; a warning only). A Service port number (443) is never taken as proof of TLS.
    ///
    /// gRPC-only traffic (nginx `GRPC`, GRPCRoute) to `argocd-server --insecure` is fine: its cmux
    /// hands HTTP/2 requests with a gRPC content type to the gRPC server (Argo CD's own ingress-nginx
    /// guide does this). Generic h2c (Traefik `scheme: h2c`, `appProtocol: kubernetes.io/h2c`) sends
    /// browser requests as HTTP/2 too, which cmux does not accept. h2c to a server whose probe is
    /// plain HTTP is not reported: a probe does not say whether the server also speaks h2c.
    ///
    /// ## Why it matters
    /// - TLS to a plaintext port: the handshake fails and the proxy answers 502 (ALB, nginx) or 500
    ///   (Traefik), with `tls: first record does not look like a TLS handshake` in its log.
    /// - h2c to an HTTP/1.1-only server (Traefik `scheme: h2c` to `argocd-server --insecure`): Traefik
    ///   answers 500 with the 21-byte body `Internal Server Error` and the backend logs nothing.
    /// - Plain HTTP to a TLS port: `400 Client sent an HTTP request to an HTTPS server`, or Argo CD
    ///   redirecting to https forever (`ERR_TOO_MANY_REDIRECTS`).
    ///
    /// ## Example
    /// ```yaml
    /// kind: IngressRoute
    /// spec:
    ///   routes:
    ///     - services: [{name: argocd-server, port: 80, scheme: h2c}]
    /// ---
    /// kind: Deployment   # argocd-server
    /// spec: {template: {spec: {containers: [{args: [/usr/local/bin/argocd-server, --insecure]}]}}}
    /// ```
    ///
    /// ## How to fix
    /// Make the two sides agree: drop `scheme: h2c` (or the `GRPC` backend-protocol) for an HTTP/1.1
    /// server and use grpc-web or L4 passthrough for native gRPC; speak TLS only to a port that serves
    /// TLS (or make the server serve TLS); set `backend-protocol: HTTPS` / `scheme: https` or a
    /// BackendTLSPolicy towards a TLS port.
    pub(crate) struct BackendProtocolMismatch {
        code: "BKD006", name: "backend-protocol-mismatch", layer: Layer::Backend, severity: Severity::Error, also: [Severity::Warning],
    }
}

/// What the proxy speaks to the backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Speaks {
    Plain,
    /// HTTP/2 with prior knowledge for every request.
    H2c,
    /// gRPC over h2c: only gRPC requests (nginx `GRPC`, GRPCRoute).
    Grpc,
    Tls,
}

/// The proxy's side: protocol, evidence, the field that decides it, and whether it was inferred
/// from port 443 / an `https` port name.
struct Expect {
    speaks: Speaks,
    evidence: String,
    field: String,
    from_443: bool,
}

impl BackendProtocolMismatch {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let g = cx.graph;
        for e in backend_edges(g) {
            let (Target::Found(sid), Some(port)) = (&e.to, e.port()) else { continue };
            let Some(svc) = g.view::<Service>(*sid) else { continue };
            let Some(sp) = service_port(svc, port) else { continue };
            let from = g.obj(e.from);
            let sobj = g.obj(*sid);
            let Some(exp) = expectation(g, e, from, sobj, sp) else { continue };
            // The first reached container port with evidence decides.
            let Some((r, (served, why))) = reached(g, *sid, sp).into_iter().find_map(|r| {
                let s = serves(g, sp, &r)?;
                Some((r, s))
            }) else {
                continue;
            };
            let weak = why.contains("container port named");
            let target = format!("port {} of {}", sp.port, sobj.to_ref());
            let (message, fix) = match (exp.speaks, served) {
                (Speaks::Tls, Serves::Plain { .. }) => (
                    format!(
                        "{} speaks TLS to {target}, but the pod serves plain HTTP{}; the TLS handshake fails and the proxy answers 502/500",
                        from.to_ref(),
                        if exp.from_443 { " (Traefik takes Service port 443 or an `https` port name as proof of TLS)" } else { "" }
                    ),
                    "speak plain HTTP to this port (backend-protocol HTTP / scheme: http), or make the server serve TLS",
                ),
                (Speaks::H2c, Serves::Plain { http1_only: true }) => (
                    format!(
                        "{} speaks h2c (HTTP/2 without TLS) to {target}, whose server speaks HTTP/1.1 only; {}",
                        from.to_ref(),
                        if from.kind.group.starts_with("traefik") {
                            "Traefik answers 500 with the 21-byte body `Internal Server Error`"
                        } else {
                            "every request fails at the proxy (5xx)"
                        }
                    ),
                    "drop h2c for this backend (scheme: http, no kubernetes.io/h2c appProtocol); for native gRPC use grpc-web, a gRPC-only route, or L4 passthrough",
                ),
                (Speaks::Plain | Speaks::H2c | Speaks::Grpc, Serves::Tls) => (
                    format!(
                        "{} speaks plain HTTP to {target}, which serves TLS; the server rejects it (400 `Client sent an HTTP request to an HTTPS server`, or a redirect loop)",
                        from.to_ref()
                    ),
                    "speak TLS to this port (backend-protocol: HTTPS, scheme: https, or a BackendTLSPolicy), or serve plain HTTP (argocd-server --insecure)",
                ),
                _ => continue,
            };
            out.at(from, &exp.field)
                .severity(if weak { Severity::Warning } else { Severity::Error })
                .message(message)
                .evidence(exp.evidence)
                .evidence(why)
                .related(sobj.to_ref())
                .related(g.obj(r.workload).to_ref())
                .fix(fix)
                .emit();
        }
    }
}

fn annotation_field(key: &str) -> String {
    format!("metadata.annotations[\"{key}\"]")
}

/// What the proxy speaks over this Backend edge, when the inputs say.
fn expectation(g: &Graph, e: &Edge, from: &Object, sobj: &Object, sp: &ServicePort) -> Option<Expect> {
    let ann = |o: &Object, key: &str, v: &str, speaks: Speaks| Expect {
        speaks,
        evidence: format!("{} annotation {key}: {v}", o.to_ref()),
        field: annotation_field(key),
        from_443: false,
    };
    if from.is(K::INGRESS) {
        let key = "nginx.ingress.kubernetes.io/backend-protocol";
        if let Some(v) = from.annotation(key) {
            let speaks = match v.trim().to_ascii_uppercase().as_str() {
                "HTTPS" | "GRPCS" => Speaks::Tls,
                "GRPC" => Speaks::Grpc,
                "HTTP" => Speaks::Plain,
                _ => return None,
            };
            return Some(ann(from, key, v, speaks));
        }
        let key = "alb.ingress.kubernetes.io/backend-protocol";
        if let Some(v) = from.annotation(key) {
            let speaks = match v.trim().to_ascii_lowercase().as_str() {
                "https" => Speaks::Tls,
                "http" => Speaks::Plain,
                _ => return None,
            };
            return Some(ann(from, key, v, speaks));
        }
        let key = "traefik.ingress.kubernetes.io/service.serversscheme";
        if let Some(v) = sobj.annotation(key) {
            let speaks = scheme(v)?;
            let mut x = ann(sobj, key, v, speaks);
            x.field = e.field.to_string();
            return Some(x);
        }
        if g.ingress_owner(e.from).is_some_and(|o| o.is(edgecheck_core::ingress::TRAEFIK)) {
            return Some(traefik_default(e, sp, "Traefik Ingress, no service.serversscheme annotation on the Service"));
        }
        return None;
    }
    if from.is(K::TRAEFIK_INGRESS_ROUTE) || from.is(K::TRAEFIK_OLD_INGRESS_ROUTE) {
        let s = g
            .view::<TraefikRoute>(e.from)?
            .spec
            .routes
            .iter()
            .enumerate()
            .flat_map(|(ri, r)| {
                r.services.iter().enumerate().map(move |(si, s)| (format!("spec.routes[{ri}].services[{si}]"), s))
            })
            .find(|(f, _)| *f == e.field)?
            .1;
        if let Some(v) = &s.scheme {
            let mut evidence = format!("{}: scheme: {v}", e.field);
            if let Some(t) = &s.servers_transport {
                evidence.push_str(&format!(", serversTransport: {t}"));
            }
            return Some(Expect {
                speaks: scheme(v)?,
                evidence,
                field: format!("{}.scheme", e.field),
                from_443: false,
            });
        }
        return Some(traefik_default(e, sp, &format!("{} has no scheme", e.field)));
    }
    let grpc = from.is(K::GRPC_ROUTE);
    if from.is(K::HTTP_ROUTE) || grpc {
        let policy = g.each::<BackendTlsPolicy>().into_iter().find(|(_, o, p)| {
            o.namespace == sobj.namespace
                && p.spec.target_refs.iter().any(|t| {
                    t.name == sobj.name
                        && t.kind.as_deref().unwrap_or("Service") == "Service"
                        && t.group.as_deref().unwrap_or("").is_empty()
                })
        });
        if let Some((_, po, _)) = policy {
            return Some(Expect {
                speaks: Speaks::Tls,
                evidence: format!("{} targets {}", po.to_ref(), sobj.to_ref()),
                field: e.field.to_string(),
                from_443: false,
            });
        }
        if let Some(dr) = istio_tls_origination(g, sobj) {
            return Some(Expect {
                speaks: Speaks::Tls,
                evidence: format!("{} originates TLS to {}", dr, sobj.to_ref()),
                field: e.field.to_string(),
                from_443: false,
            });
        }
        if sp.app_protocol.as_deref() == Some("kubernetes.io/h2c") {
            return Some(Expect {
                speaks: Speaks::H2c,
                evidence: format!("{} port {} appProtocol: kubernetes.io/h2c", sobj.to_ref(), sp.port),
                field: e.field.to_string(),
                from_443: false,
            });
        }
        let (speaks, what) = if grpc { (Speaks::Grpc, "gRPC over h2c") } else { (Speaks::Plain, "plain HTTP") };
        return Some(Expect {
            speaks,
            evidence: format!("{} without BackendTLSPolicy: the Gateway speaks {what}", from.kind),
            field: e.field.to_string(),
            from_443: false,
        });
    }
    None
}

/// Traefik without a scheme: https to a Service port 443 or a port named `https…`, else plain HTTP.
fn traefik_default(e: &Edge, sp: &ServicePort, what: &str) -> Expect {
    if sp.port == 443 || sp.name.as_deref().is_some_and(|n| n.starts_with("https")) {
        return Expect {
            speaks: Speaks::Tls,
            evidence: format!(
                "{what}; Traefik speaks https to Service port {}{}",
                sp.port,
                sp.name.as_deref().map(|n| format!(" (`{n}`)")).unwrap_or_default()
            ),
            field: e.field.to_string(),
            from_443: true,
        };
    }
    Expect {
        speaks: Speaks::Plain,
        evidence: format!("{what}: Traefik speaks plain HTTP"),
        field: e.field.to_string(),
        from_443: false,
    }
}

/// An Istio DestinationRule whose `spec.host` is the Service (short or cluster-local name) and
/// whose `trafficPolicy.tls.mode` originates TLS (`SIMPLE`, `MUTUAL`).
fn istio_tls_origination(g: &Graph, sobj: &Object) -> Option<edgecheck_core::ObjectRef> {
    let kind = edgecheck_core::Kind { group: "networking.istio.io".into(), kind: "DestinationRule".into() };
    let ns = sobj.namespace.as_deref().unwrap_or("");
    g.ids_of(&kind).iter().map(|id| g.obj(*id)).find_map(|o| {
        let host = o.value.pointer("/spec/host").and_then(|v| v.as_str())?;
        let same = host == sobj.name && o.namespace == sobj.namespace
            || host == format!("{}.{ns}", sobj.name)
            || host.starts_with(&format!("{}.{ns}.svc", sobj.name));
        let mode = o.value.pointer("/spec/trafficPolicy/tls/mode").and_then(|v| v.as_str())?;
        (same && matches!(mode, "SIMPLE" | "MUTUAL")).then(|| o.to_ref())
    })
}

fn scheme(v: &str) -> Option<Speaks> {
    match v.trim().to_ascii_lowercase().as_str() {
        "https" => Some(Speaks::Tls),
        "h2c" => Some(Speaks::H2c),
        "http" => Some(Speaks::Plain),
        _ => None,
    }
}
