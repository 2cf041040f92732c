//! Helpers for Alibaba Cloud ACK ALB Ingress (shared by the route and listener checks).

use edgecheck_core::graph::{EdgeKind, ObjId, Target};
use edgecheck_core::kind::K;
use edgecheck_core::views::Ingress;
use edgecheck_core::{Graph, Object};

/// The annotation binding an Ingress's rules to ALB listeners.
pub(crate) const LISTEN_PORTS: &str = "alb.ingress.kubernetes.io/listen-ports";
/// The annotation redirecting HTTP to HTTPS.
pub(crate) const SSL_REDIRECT: &str = "alb.ingress.kubernetes.io/ssl-redirect";

/// The IngressClass of an Ingress when it is in the inputs and belongs to the ACK ALB controller
/// ([`Graph::ingress_owner`]).
pub(crate) fn ack_class(graph: &Graph, ingress: ObjId) -> Option<ObjId> {
    graph.ingress_owner(ingress).filter(|o| o.is(edgecheck_core::ingress::ACK_ALB))?.class
}

/// The AlbConfig an IngressClass's parameters name: `Some(Ok(id))` found, `Some(Err(()))` missing.
pub(crate) fn alb_config(graph: &Graph, class: ObjId) -> Option<Result<ObjId, ()>> {
    graph.edges_from_kind(class, EdgeKind::ClassParameters).find_map(|e| match &e.to {
        Target::Found(id) => graph.obj(*id).is(K::ALB_CONFIG).then_some(Ok(*id)),
        Target::Missing(r) => (r.kind == "AlbConfig").then_some(Err(())),
    })
}

/// The `listen-ports` annotation parsed: `None` when absent, `Some(Err(text))` when it is not the
/// JSON list of `{"PROTOCOL": port}` objects the controller reads.
pub(crate) fn listen_ports(o: &Object) -> Option<Result<Vec<(String, i64)>, String>> {
    let raw = o.annotation(LISTEN_PORTS)?;
    let Ok(edgecheck_core::Value::Array(items)) = serde_json::from_str::<edgecheck_core::Value>(raw) else {
        return Some(Err(raw.to_string()));
    };
    let mut out = Vec::new();
    for item in items {
        let edgecheck_core::Value::Object(m) = item else { return Some(Err(raw.to_string())) };
        for (proto, port) in m {
            let port = port.as_i64().or_else(|| port.as_str().and_then(|s| s.trim().parse().ok()));
            match port {
                Some(p) => out.push((proto.as_str().to_ascii_uppercase(), p)),
                None => return Some(Err(raw.to_string())),
            }
        }
    }
    Some(Ok(out))
}

/// Why the Ingress wants HTTPS: a `tls` section or `ssl-redirect: "true"`.
pub(crate) fn wants_https(o: &Object, ing: &Ingress) -> Option<String> {
    if !ing.spec.tls.is_empty() {
        return Some("spec.tls is set".into());
    }
    if o.annotation(SSL_REDIRECT).is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return Some(format!("{SSL_REDIRECT}: \"true\""));
    }
    None
}
