use edgecheck_core::implementation;
use edgecheck_core::kind::K;
use edgecheck_core::{Findings, Layer, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Secret served as a TLS certificate (by an Ingress, a Gateway listener or a Traefik
    /// IngressRoute) that lacks `tls.crt` or `tls.key`, or, when a Gateway listener uses it, whose
    /// `type` is not `kubernetes.io/tls`. (ingress-nginx and Traefik read the two keys of a Secret of
    /// any type, so an `Opaque` Secret with both keys is not judged for them; a type the Gateway's
    /// implementation reads on its own terms, such as Envoy Gateway's SDS reference Secret
    /// `gateway.envoyproxy.io/sds`, is not judged on its listeners.)
    ///
    /// ## Why it matters
    /// Gateway API implementations reject such a reference (`ResolvedRefs=False
    /// InvalidCertificateRef`), ingress-nginx logs "secret does not contain tls.crt" and serves its fake
    /// certificate, Traefik skips the certificate. Clients see an untrusted default certificate.
    ///
    /// ## Example
    /// Ingress `shop/web` names Secret `shop/web-tls` of type `Opaque` with keys `cert.pem` and
    /// `key.pem`.
    ///
    /// ## How to fix
    /// Store the certificate chain under `tls.crt` and the private key under `tls.key` in a Secret of
    /// type `kubernetes.io/tls` (`kubectl create secret tls NAME --cert=... --key=...`).
    pub(crate) struct TlsSecretTypeInvalid {
        code: "TLS002", name: "tls-secret-type-invalid", layer: Layer::Tls, severity: Severity::Error,
    }
}

impl TlsSecretTypeInvalid {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        // Each Secret once, in the order it is first served (a list scanned per reference was quadratic).
        let mut seen = std::collections::HashSet::new();
        for s in super::helpers::served(cx.graph) {
            let Target::Found(id) = s.edge.to else { continue };
            if !seen.insert(id) {
                continue;
            }
            let secret = cx.graph.obj(id);
            let Some(info) = secret.secret.as_deref() else { continue };
            let mut problems = Vec::new();
            let mut field = "type";
            let users = super::helpers::served_from(cx.graph, id);
            let gateways: Vec<_> = users.iter().filter(|u| u.from.is(K::GATEWAY)).collect();
            // A type the Gateways' implementation reads on its own terms (Envoy Gateway's SDS
            // reference Secret: where to fetch the certificate, not the certificate).
            let other_type = !gateways.is_empty()
                && info.secret_type != "kubernetes.io/tls"
                && gateways.iter().all(|u| {
                    let imp = implementation::of_parent(cx.graph, u.edge.from);
                    implementation::listener_secret_type_ok(imp, &info.secret_type)
                });
            if other_type {
                continue;
            }
            let both_keys = info.has_key("tls.crt") && info.has_key("tls.key");
            let keys_missing = !info.lengths.is_empty() && !both_keys;
            if info.secret_type != "kubernetes.io/tls" && (!gateways.is_empty() || keys_missing) {
                problems.push(format!("type: {} (kubernetes.io/tls expected)", info.secret_type));
            }
            // SOPS-encrypted data keeps its keys; a Secret with no data at all is a placeholder
            // something else fills, and its keys are not judged.
            if !info.lengths.is_empty() {
                for k in ["tls.crt", "tls.key"] {
                    if !info.has_key(k) {
                        if problems.is_empty() {
                            field = "data";
                        }
                        problems.push(format!("no `{k}` key"));
                    }
                }
            }
            if problems.is_empty() {
                continue;
            }
            let users: Vec<_> = users.iter().map(|u| u.from.to_ref()).collect();
            let keys: Vec<&str> = info.lengths.keys().map(|k| k.as_str()).collect();
            let mut b = out
                .at(secret, field)
                .message(format!(
                    "{} is served as a TLS certificate by {} but is not a usable TLS Secret ({}); the \
                     controller rejects it and serves no or a default certificate",
                    secret.to_ref(),
                    s.from.to_ref(),
                    problems.join(", ")
                ))
                .evidence(format!("type: {}", info.secret_type))
                .evidence(format!("keys: {}", if keys.is_empty() { "(none)".to_string() } else { keys.join(", ") }))
                .related_all(users);
            b = b.evidence(format!("referenced at {}: {}", s.from.to_ref(), s.edge.field));
            b.fix("use a Secret of type kubernetes.io/tls with the chain under tls.crt and the key under tls.key")
                .emit();
        }
    }
}
