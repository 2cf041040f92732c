//! What the backend checks share: the Backend edges of routes, Service port lookup.

use edgecheck_core::graph::{Edge, EdgeKind, ObjId};
use edgecheck_core::kind::K;
use edgecheck_core::views::{ConfigMap, Container, PortRef, Service, ServicePort, Workload};
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

/// A container port a Service port reaches: the workload, the container, and the port's number
/// and name as the container declares them (the number is the targetPort itself when numeric).
pub(super) struct Reached<'g> {
    pub(super) workload: ObjId,
    pub(super) container: &'g Container,
    pub(super) number: Option<i64>,
    pub(super) name: Option<&'g str>,
}

/// The container ports of the selected workloads that `port` of Service `svc` targets.
pub(super) fn reached<'g>(graph: &'g Graph, svc: ObjId, port: &ServicePort) -> Vec<Reached<'g>> {
    let target = port.target();
    let mut out = Vec::new();
    for w in graph.edges_from_kind(svc, EdgeKind::Selects).filter_map(|e| e.to.found()) {
        let Some(view) = graph.view::<Workload>(w) else { continue };
        for c in view.containers.iter().chain(&view.init_containers) {
            match (&target, target.number()) {
                (_, Some(n)) => {
                    let name = c.ports.iter().find(|p| p.container_port == n).and_then(|p| p.name.as_deref());
                    // A numeric targetPort reaches every container of the pod; keep the containers
                    // that declare it, or the only container.
                    if name.is_some() || c.ports.iter().any(|p| p.container_port == n) || view.containers.len() == 1 {
                        out.push(Reached { workload: w, container: c, number: Some(n), name });
                    }
                }
                (PortRef::Name(s), None) => {
                    if let Some(p) = c.port_named(s) {
                        out.push(Reached {
                            workload: w,
                            container: c,
                            number: Some(p.container_port),
                            name: p.name.as_deref(),
                        });
                    }
                }
                (PortRef::Number(_), None) => {}
            }
        }
    }
    out
}

/// Whether a probe's port names this container port.
pub(super) fn probe_hits(r: &Reached<'_>, probe: &PortRef) -> bool {
    match probe {
        PortRef::Number(n) => r.number == Some(*n),
        PortRef::Name(s) => match s.parse::<i64>() {
            Ok(n) => r.number == Some(n),
            Err(_) => r.name == Some(s.as_str()),
        },
    }
}

/// The httpGet probes of a container on the reached port: `(probe kind, field, scheme)`.
pub(super) fn http_probes<'g>(r: &Reached<'g>) -> Vec<(&'static str, &'static str, &'g str)> {
    let c = r.container;
    [
        ("readiness", "readinessProbe", &c.readiness_probe),
        ("liveness", "livenessProbe", &c.liveness_probe),
        ("startup", "startupProbe", &c.startup_probe),
    ]
    .into_iter()
    .filter_map(|(what, field, p)| {
        let h = p.as_ref()?.http_get.as_ref()?;
        let port = h.port.as_ref()?;
        probe_hits(r, port).then(|| (what, field, h.scheme.as_deref().unwrap_or("HTTP")))
    })
    .collect()
}

/// Whether a container runs the Argo CD API server (`argocd-server` as command or first argument).
pub(super) fn is_argocd_server(c: &Container) -> bool {
    c.argv().take(2).any(|a| a == "argocd-server" || a.ends_with("/argocd-server"))
}

/// Argo CD server TLS mode as it takes effect, and where each source says what.
pub(super) struct ArgoTlsMode {
    /// `true`: plaintext (`--insecure`); `false`: TLS; `None`: cannot tell from the inputs.
    pub(super) insecure: Option<bool>,
    /// `--insecure` in the args, when present (`Some(false)` for `--insecure=false`).
    pub(super) args: Option<bool>,
    /// `ARGOCD_SERVER_INSECURE` written as a literal env value.
    pub(super) env: Option<bool>,
    /// `server.insecure` in ConfigMap `argocd-cmd-params-cm` of the namespace.
    pub(super) params: Option<bool>,
    /// The ConfigMap's id, when it is in the inputs.
    pub(super) params_cm: Option<ObjId>,
}

impl ArgoTlsMode {
    /// What decided the mode, for evidence.
    pub(super) fn source(&self) -> String {
        match (self.args, self.env, self.params) {
            (Some(a), _, _) => format!("argocd-server args: --insecure={a}"),
            (None, Some(e), _) => format!("env ARGOCD_SERVER_INSECURE={e}"),
            (None, None, Some(p)) => format!("argocd-cmd-params-cm server.insecure: \"{p}\""),
            _ => "no --insecure and no server.insecure: TLS (the default)".into(),
        }
    }
}

fn truthy(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Some(true),
        "false" | "0" | "no" | "" => Some(false),
        _ => None,
    }
}

/// The TLS mode of an argocd-server container in `namespace`. Args win over the environment, which
/// wins over `argocd-cmd-params-cm` (the stock manifests feed `server.insecure` into
/// `ARGOCD_SERVER_INSECURE`). Without any of them the server serves TLS; that default is trusted
/// only when the ConfigMap is in the inputs or the inputs are a full dump.
pub(super) fn argocd_tls_mode(graph: &Graph, namespace: Option<&str>, c: &Container) -> ArgoTlsMode {
    let mut args = None;
    for a in c.argv() {
        if a == "--insecure" {
            args = Some(true);
        } else if let Some(v) = a.strip_prefix("--insecure=") {
            args = truthy(v);
        }
    }
    let env =
        c.env.iter().find(|e| e.name == "ARGOCD_SERVER_INSECURE").and_then(|e| e.value.as_deref()).and_then(truthy);
    let params_cm = graph.find(K::CONFIG_MAP, namespace, "argocd-cmd-params-cm");
    let params = params_cm.and_then(|id| ConfigMap::get(graph.obj(id), "server.insecure")).and_then(truthy);
    let insecure = args.or(env).or(params).or_else(|| (params_cm.is_some() || graph.complete).then_some(false));
    ArgoTlsMode { insecure, args, env, params, params_cm }
}

/// What a backend port serves, as far as the inputs show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Serves {
    /// Plain HTTP. `http1_only`: known to speak HTTP/1.1 only (no h2c), e.g. Argo CD `--insecure`.
    Plain { http1_only: bool },
    /// TLS.
    Tls,
}

/// What the reached container port serves, with the evidence; `None` when the inputs do not say.
/// Evidence, strongest first: Argo CD's TLS mode, an httpGet probe's scheme on that port, the
/// Service port's `appProtocol`, the container port's name (`http`, `https`).
pub(super) fn serves(graph: &Graph, sp: &ServicePort, r: &Reached<'_>) -> Option<(Serves, String)> {
    let wo = graph.obj(r.workload);
    if is_argocd_server(r.container) && r.number != Some(8083) {
        let mode = argocd_tls_mode(graph, wo.namespace.as_deref(), r.container);
        if let Some(insecure) = mode.insecure {
            let s = if insecure { Serves::Plain { http1_only: true } } else { Serves::Tls };
            let what = if insecure { "plain HTTP/1.1 and gRPC (cmux), no h2c" } else { "TLS" };
            return Some((s, format!("{} runs argocd-server serving {what}: {}", wo.to_ref(), mode.source())));
        }
    }
    if let Some((what, _, scheme)) = http_probes(r).first() {
        let s = if scheme.eq_ignore_ascii_case("HTTPS") { Serves::Tls } else { Serves::Plain { http1_only: false } };
        return Some((s, format!("{} {what} probe on port {}: scheme {scheme}", wo.to_ref(), r.number.unwrap_or(0))));
    }
    match sp.app_protocol.as_deref().map(str::to_ascii_lowercase).as_deref() {
        Some("http") => return Some((Serves::Plain { http1_only: false }, "Service port appProtocol: http".into())),
        Some("https") => return Some((Serves::Tls, "Service port appProtocol: https".into())),
        _ => {}
    }
    match r.name {
        Some("http") => Some((
            Serves::Plain { http1_only: false },
            format!("{} container port named `http` ({})", wo.to_ref(), r.number.unwrap_or(0)),
        )),
        Some("https") => {
            Some((Serves::Tls, format!("{} container port named `https` ({})", wo.to_ref(), r.number.unwrap_or(0))))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn svc() -> Service {
        serde_json::from_value(json!({"spec": {"ports": [
            {"name": "http", "port": 80, "targetPort": 8080},
            {"name": "https", "port": 443, "targetPort": "https"}
        ]}}))
        .unwrap()
    }

    #[test]
    fn ports_match_by_number_name_and_digit_string() {
        let s = svc();
        assert_eq!(service_port(&s, &PortRef::Number(80)).map(|p| p.port), Some(80));
        assert_eq!(service_port(&s, &PortRef::Name("https".into())).map(|p| p.port), Some(443));
        assert_eq!(service_port(&s, &PortRef::Name("443".into())).map(|p| p.port), Some(443));
        // The targetPort is not a Service port.
        assert!(service_port(&s, &PortRef::Number(8080)).is_none());
        assert!(service_port(&s, &PortRef::Name("web".into())).is_none());
        assert_eq!(describe_ports(&s), "http:80, https:443");
    }

    #[test]
    fn argocd_server_is_recognised_by_its_binary() {
        let c = |v: serde_json::Value| serde_json::from_value::<Container>(v).unwrap();
        assert!(is_argocd_server(&c(json!({"name": "x", "args": ["/usr/local/bin/argocd-server", "--insecure"]}))));
        assert!(is_argocd_server(&c(json!({"name": "x", "command": ["argocd-server"]}))));
        assert!(!is_argocd_server(&c(json!({"name": "argocd-repo-server", "command": ["argocd-repo-server"]}))));
        assert_eq!(truthy("True"), Some(true));
        assert_eq!(truthy("false"), Some(false));
        assert_eq!(truthy("maybe"), None);
    }
}
