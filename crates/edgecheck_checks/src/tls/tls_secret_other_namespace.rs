use edgecheck_core::kind::K;
use edgecheck_core::{Findings, Layer, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An Ingress, a Traefik IngressRoute or a Gateway listener that names a TLS Secret (without a
    /// namespace) that is not in its own namespace but exists, with that name, in another one.
    ///
    /// An Ingress and an IngressRoute can only use Secrets of their own namespace. A Gateway can use
    /// another namespace's Secret only by naming its `namespace` in the certificateRef (and with a
    /// ReferenceGrant there, which the Gateway checks judge).
    ///
    /// ## Why it matters
    /// The controller looks in the route's namespace, finds nothing and serves its default
    /// certificate (ingress-nginx, Traefik) or marks the listener `InvalidCertificateRef`.
    ///
    /// ## Example
    /// Ingress `shop/web` names `secretName: wildcard-tls`; Secret `wildcard-tls` lives in namespace
    /// `cert-manager`.
    ///
    /// ## How to fix
    /// Create the Secret in the route's namespace (a Certificate there, or a replicator such as
    /// reflector or kubernetes-replicator), or, for a Gateway, set `certificateRefs[].namespace` and
    /// add a ReferenceGrant.
    pub(crate) struct TlsSecretOtherNamespace {
        code: "TLS009", name: "tls-secret-other-namespace", layer: Layer::Tls, severity: Severity::Error,
    }
}

/// Secrets named `name` outside `namespace`.
pub(super) fn elsewhere(cx: &CheckContext<'_>, namespace: &str, name: &str) -> Vec<edgecheck_core::ObjectRef> {
    cx.graph
        .ids(K::SECRET)
        .iter()
        .map(|id| cx.graph.obj(*id))
        .filter(|o| o.name == name && o.namespace.as_deref() != Some(namespace))
        .map(edgecheck_core::Object::to_ref)
        .collect()
}

impl TlsSecretOtherNamespace {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for s in super::helpers::served(cx.graph) {
            let Target::Missing(r) = &s.edge.to else { continue };
            let ns = r.namespace.as_deref().unwrap_or(&cx.graph.default_namespace);
            if s.from.namespace.as_deref() != Some(ns) || !cx.graph.secret_producers(ns, &r.name).is_empty() {
                continue;
            }
            let found = elsewhere(cx, ns, &r.name);
            let Some(first) = found.first() else { continue };
            let how = if s.from.is(K::GATEWAY) {
                "a certificateRef without namespace means the Gateway's own namespace"
            } else {
                "an Ingress or IngressRoute can only use Secrets of its own namespace"
            };
            out.at(s.from, &s.edge.field)
                .message(format!(
                    "{} names TLS Secret `{}`, which exists as {first} but not in namespace {ns}; {how}, so the \
                     controller serves a default certificate",
                    s.from.to_ref(),
                    r.name
                ))
                .evidence(format!("{}: {}", s.edge.field, r.name))
                .evidence(format!("found: {first}"))
                .related_all(found.clone())
                .fix(format!(
                    "create the Secret in namespace {ns} (a Certificate there, or a replicator){}",
                    if s.from.is(K::GATEWAY) {
                        ", or set certificateRefs[].namespace and add a ReferenceGrant"
                    } else {
                        ""
                    }
                ))
                .emit();
        }
    }
}
