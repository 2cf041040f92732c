//! References a listener, a route or a policy makes: certificate Secrets, backends, CA ConfigMaps.

use super::*;

impl GatewayModel {
    pub(super) fn policies(&mut self, graph: &Graph) {
        for (id, o, p) in graph.each::<views::BackendTlsPolicy>() {
            let ns = o.namespace.clone().unwrap_or_default();
            let mut v = vec![cond(Type::Accepted, true, Reason::Accepted, "accepted")];
            let refs =
                p.spec.validation.get("caCertificateRefs").and_then(|r| r.as_array()).cloned().unwrap_or_default();
            let mut res = Ok(());
            for r in refs {
                let g = r.get("group").and_then(|x| x.as_str()).unwrap_or("");
                let k = r.get("kind").and_then(|x| x.as_str()).unwrap_or("");
                let n = r.get("name").and_then(|x| x.as_str()).unwrap_or("");
                // ConfigMap (core), Secret and ClusterTrustBundle (implementation-specific, matched by
                // kind as Envoy Gateway does): the table in `edgecheck_core::implementation`.
                let core = matches!(k, "ConfigMap" | "Secret");
                if !(implementation::ca_kind_ok(k) && (!core || g.is_empty())) {
                    res = Err((Reason::InvalidKind, format!("caCertificateRefs names {k} `{n}`, not a ConfigMap")));
                    break;
                }
                let (kk, kns) = if core {
                    (Kind { group: String::new(), kind: k.to_string() }, Some(ns.as_str()))
                } else {
                    // ClusterTrustBundle: cluster-scoped, in certificates.k8s.io.
                    (Kind { group: "certificates.k8s.io".into(), kind: k.to_string() }, None)
                };
                if graph.find_kind(&kk, kns, n).is_none()
                    && !edgecheck_core::placeholder::unresolved(n)
                    && absent_is_missing(graph, &kk, kns)
                    && (k != "Secret" || graph.secret_producers(&ns, n).is_empty())
                {
                    res = Err((
                        Reason::InvalidCACertificateRef,
                        format!("{k} `{}` {NOT_IN_INVENTORY}", display_ns(kns, n)),
                    ));
                    break;
                }
            }
            match res {
                Ok(()) => v.push(cond(Type::ResolvedRefs, true, Reason::ResolvedRefs, "references resolved")),
                Err((r, m)) => {
                    v[0] = cond(Type::Accepted, false, Reason::NoValidCACertificate, m.clone());
                    v.push(cond(Type::ResolvedRefs, false, r, m));
                }
            }
            self.conditions.insert(id, v);
        }
    }
}

/// Listener `ResolvedRefs` from its certificateRefs.
pub(super) fn cert_refs(
    graph: &Graph,
    (owner, imp): (&edgecheck_core::Object, Option<&Implementation>),
    ns: &str,
    l: &Listener,
) -> Result<(), (Reason, String)> {
    let Some(tls) = &l.tls else { return Ok(()) };
    if tls_mode(l) == "Passthrough" {
        return Ok(());
    }
    if tls.certificate_refs.is_empty() && tls.options.is_empty() && matches!(l.protocol.as_str(), "HTTPS" | "TLS") {
        return Err((Reason::InvalidCertificateRef, "mode Terminate with no certificateRefs".into()));
    }
    for r in &tls.certificate_refs {
        let g = r.group.as_deref().unwrap_or("");
        let k = r.kind.as_deref().unwrap_or("Secret");
        let rns = r.namespace.as_deref().unwrap_or(ns);
        if !(g.is_empty() && k == "Secret") {
            return Err((Reason::InvalidCertificateRef, format!("certificateRef {k} `{}` is not a Secret", r.name)));
        }
        if rns != ns
            && ![rns, ns].into_iter().any(edgecheck_core::placeholder::unresolved)
            && !graph.reference_granted((GROUP, owner.kind.kind.as_str()), ns, ("", "Secret"), rns, &r.name)
        {
            return Err((
                Reason::RefNotPermitted,
                format!("certificateRef Secret `{rns}/{}` is in another namespace and no ReferenceGrant in `{rns}` allows it", r.name),
            ));
        }
        match graph.find(K::SECRET, Some(rns), &r.name) {
            // A placeholder is not a name yet: never missing.
            None if edgecheck_core::placeholder::unresolved(&r.name)
                || edgecheck_core::placeholder::unresolved(rns) => {}
            None => {
                if graph.secret_producers(rns, &r.name).is_empty()
                    && absent_is_missing(graph, &K::SECRET.to_kind(), Some(rns))
                {
                    return Err((
                        Reason::InvalidCertificateRef,
                        format!("Secret `{rns}/{}` {NOT_IN_INVENTORY}", r.name),
                    ));
                }
            }
            Some(sid) => {
                if let Some(info) = &graph.obj(sid).secret {
                    if !implementation::listener_secret_type_ok(imp, &info.secret_type) {
                        return Err((
                            Reason::InvalidCertificateRef,
                            format!("Secret `{rns}/{}` has type {}, not kubernetes.io/tls", r.name, info.secret_type),
                        ));
                    }
                    // A reference Secret (Envoy Gateway SDS) holds where to fetch the certificate, not it.
                    if info.secret_type == "kubernetes.io/tls"
                        && !info.encrypted
                        && (!info.has_key("tls.crt") || !info.has_key("tls.key"))
                    {
                        return Err((
                            Reason::InvalidCertificateRef,
                            format!("Secret `{rns}/{}` lacks tls.crt or tls.key", r.name),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Route `ResolvedRefs` from its backendRefs (the same for every parent).
pub(super) fn backend_refs(
    graph: &Graph,
    ro: &edgecheck_core::Object,
    rns: &str,
    r: &views::Route,
    imp: Option<&Implementation>,
) -> Result<(), (Reason, String, String)> {
    for (ri, rule) in r.spec.rules.iter().enumerate() {
        for (bi, b) in rule.backend_refs.iter().enumerate() {
            let field = format!("spec.rules[{ri}].backendRefs[{bi}]");
            let g = b.group.as_deref().unwrap_or("");
            let k = b.kind.as_deref().unwrap_or("Service");
            let bns = b.namespace.as_deref().unwrap_or(rns);
            // Extended kinds of the spec, and the backend kinds implementations define for themselves
            // (`edgecheck_core::implementation`): not typos, and what they resolve to is outside the
            // inventory's reach. A kind of another implementation is one this parent's controller rejects.
            let known_ext = match implementation::backend_kind(imp, g, k) {
                BackendKind::Service => false,
                BackendKind::Extension => true,
                BackendKind::OtherImplementation(vendor) => {
                    let here = imp.map_or("this Gateway's implementation", |i| i.name);
                    return Err((
                        Reason::InvalidKind,
                        format!(
                            "backendRef {k} `{}` (group `{g}`) is a {} kind; {here} does not route to it",
                            b.name, vendor.name
                        ),
                        field,
                    ));
                }
                BackendKind::Unknown => {
                    return Err((
                        Reason::InvalidKind,
                        format!("backendRef {k} `{}` (group `{g}`) is not a supported kind", b.name),
                        field,
                    ));
                }
            };
            let placeholder_ns = [bns, rns].into_iter().any(edgecheck_core::placeholder::unresolved);
            if bns != rns
                && !placeholder_ns
                && !graph.reference_granted((GROUP, ro.kind.kind.as_str()), rns, (g, k), bns, &b.name)
            {
                return Err((
                    Reason::RefNotPermitted,
                    format!(
                        "backendRef {k} `{bns}/{}` is in another namespace and no ReferenceGrant in `{bns}` allows it",
                        b.name
                    ),
                    field,
                ));
            }
            if known_ext {
                continue;
            }
            if graph.find(K::SERVICE, Some(bns), &b.name).is_none()
                && graph.service_producers(bns, &b.name).is_empty()
                && !edgecheck_core::placeholder::unresolved(&b.name)
                && !edgecheck_core::placeholder::unresolved(bns)
                && absent_is_missing(graph, &K::SERVICE.to_kind(), Some(bns))
            {
                return Err((Reason::BackendNotFound, format!("Service `{bns}/{}` {NOT_IN_INVENTORY}", b.name), field));
            }
        }
    }
    Ok(())
}
