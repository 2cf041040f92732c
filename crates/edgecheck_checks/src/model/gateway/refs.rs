//! References a listener, a route or a policy makes: certificate Secrets, backends, CA ConfigMaps.

use super::*;

impl GatewayModel {
    pub(super) fn policies(&mut self, graph: &Graph) {
        // Policies that target one Service (and section) conflict: the oldest wins (creation time when
        // known, then namespace/name), the others are `Accepted=False Conflicted`.
        let mut order: Vec<(Option<String>, String, ObjId)> = graph
            .each::<views::BackendTlsPolicy>()
            .into_iter()
            .map(|(id, o, _)| {
                let created = o
                    .is_live()
                    .then(|| o.value.pointer("/metadata/creationTimestamp").and_then(|t| t.as_str()))
                    .flatten()
                    .map(str::to_string);
                (created, format!("{}/{}", o.namespace.as_deref().unwrap_or_default(), o.name), id)
            })
            .collect();
        order.sort();
        let mut taken: HashMap<(String, String, String, Option<String>), ObjId> = HashMap::new();
        let mut conflicted: HashMap<ObjId, String> = HashMap::new();
        for (_, _, id) in &order {
            let o = graph.obj(*id);
            let ns = o.namespace.as_deref().unwrap_or_default().to_string();
            let targets = o.value.pointer("/spec/targetRefs").and_then(|t| t.as_array()).unwrap_or_default();
            for t in targets {
                let s = |k: &str| t.get(k).and_then(|v| v.as_str()).map(str::to_string);
                let key = (ns.clone(), s("kind").unwrap_or_default(), s("name").unwrap_or_default(), s("sectionName"));
                match taken.get(&key) {
                    Some(first) if first != id => {
                        if !self.policy_conflicts.iter().any(|(l, _)| l == id) {
                            self.policy_conflicts.push((*id, *first));
                        }
                        let what = key.3.as_ref().map(|sn| format!(" port `{sn}`")).unwrap_or_default();
                        conflicted.entry(*id).or_insert(format!(
                            "{} `{}`{what} is already targeted by {}",
                            key.1,
                            key.2,
                            graph.obj(*first).to_ref()
                        ));
                    }
                    Some(_) => {}
                    None => {
                        taken.insert(key, *id);
                    }
                }
            }
        }
        for (id, o, p) in graph.each::<views::BackendTlsPolicy>() {
            let ns = o.namespace.as_deref().unwrap_or_default().to_string();
            let mut v = vec![cond(Type::Accepted, true, Reason::Accepted, "accepted")];
            let refs = p
                .spec
                .validation
                .get("caCertificateRefs")
                .and_then(|r| r.as_array())
                .map(<[_]>::to_vec)
                .unwrap_or_default();
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
                    (Kind { group: "".into(), kind: k.into() }, Some(ns.as_str()))
                } else {
                    // ClusterTrustBundle: cluster-scoped, in certificates.k8s.io.
                    (Kind { group: "certificates.k8s.io".into(), kind: k.into() }, None)
                };
                // A ConfigMap without `ca.crt` holds no CA (the key the spec names).
                if let Some(cm) = graph.find_kind(&kk, kns, n).filter(|_| k == "ConfigMap") {
                    if graph.obj(cm).value.pointer("/data/ca.crt").is_none() {
                        res = Err((
                            Reason::InvalidCACertificateRef,
                            format!("ConfigMap `{}` has no ca.crt", display_ns(kns, n)),
                        ));
                        break;
                    }
                }
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
            if let Some(m) = conflicted.remove(&id) {
                if v[0].status {
                    v[0] = cond(Type::Accepted, false, Reason::Conflicted, m);
                }
            }
            self.conditions.insert(id, v);
        }
    }
}

/// The Gateway-wide client certificate validation that applies to an HTTPS listener (its port's
/// `perPort` entry, else `default`), when a CA it names cannot be used: the reason, the message and the
/// field. Applies to the listeners of the Gateway and of its ListenerSets.
pub(super) fn frontend_ca(graph: &Graph, owner: ObjId, l: &Listener) -> Option<(Reason, String, String)> {
    if l.protocol != "HTTPS" {
        return None;
    }
    let gid = if graph.view::<views::ListenerSet>(owner).is_some() {
        graph.edges_from_kind(owner, edgecheck_core::EdgeKind::ParentRef).find_map(|e| e.to.found())?
    } else {
        owner
    };
    let front = graph.view::<views::Gateway>(gid)?.spec.tls.as_ref()?.frontend.as_ref()?;
    let (base, cfg) = match front.per_port.iter().position(|p| p.port == l.port) {
        Some(i) => (format!("spec.tls.frontend.perPort[{i}].tls"), &front.per_port[i].tls),
        None => ("spec.tls.frontend.default".to_string(), front.default.as_ref()?),
    };
    let refs = &cfg.validation.as_ref()?.ca_certificate_refs;
    let gns = graph.obj(gid).namespace.clone().unwrap_or_default();
    for (i, r) in refs.iter().enumerate() {
        let field = format!("{base}.validation.caCertificateRefs[{i}]");
        let g = r.group.as_deref().unwrap_or("");
        let k = r.kind.as_deref().unwrap_or("ConfigMap");
        let rns = r.namespace.as_deref().unwrap_or(&gns);
        // ConfigMap is core; a Secret is implementation-specific and several implementations read it.
        if !(g.is_empty() && matches!(k, "ConfigMap" | "Secret")) {
            let group = if g.is_empty() { String::new() } else { format!(" (group `{g}`)") };
            let m = format!("caCertificateRefs names {k} `{}`{group}, not a ConfigMap", r.name);
            return Some((Reason::InvalidCACertificateKind, m, field));
        }
        if [rns, r.name.as_str()].into_iter().any(edgecheck_core::placeholder::unresolved) {
            continue;
        }
        if rns != gns && !graph.reference_granted((GROUP, "Gateway"), &gns, ("", k), rns, &r.name) {
            let m = format!(
                "caCertificateRef {k} `{rns}/{}` is in another namespace and no ReferenceGrant in `{rns}` allows it",
                r.name
            );
            return Some((Reason::RefNotPermitted, m, field));
        }
        let kind = Kind { group: "".into(), kind: k.into() };
        match graph.find_kind(&kind, Some(rns), &r.name) {
            None => {
                let produced = k == "Secret" && !graph.secret_producers(rns, &r.name).is_empty();
                if !produced && absent_is_missing(graph, &kind, Some(rns)) {
                    return Some((
                        Reason::InvalidCACertificateRef,
                        format!("{k} `{rns}/{}` {NOT_IN_INVENTORY}", r.name),
                        field,
                    ));
                }
            }
            Some(id) => {
                let o = graph.obj(id);
                let has_ca = match &o.secret {
                    Some(info) => info.encrypted || info.has_key("ca.crt"),
                    None => o.value.pointer("/data/ca.crt").is_some() || o.value.get("data").is_none(),
                };
                if !has_ca {
                    return Some((
                        Reason::InvalidCACertificateRef,
                        format!("{k} `{rns}/{}` has no ca.crt", r.name),
                        field,
                    ));
                }
            }
        }
    }
    None
}

/// The Gateway's `ResolvedRefs` for the client certificate it presents to backends
/// (`spec.tls.backend.clientCertificateRef`), when it names one.
pub(super) fn backend_client_cert(
    graph: &Graph,
    go: &edgecheck_core::Object,
    gw: &views::Gateway,
) -> Option<Result<(), (Reason, String)>> {
    let r = gw.spec.tls.as_ref()?.backend.as_ref()?.client_certificate_ref.as_ref()?;
    let ns = go.namespace.clone().unwrap_or_default();
    let g = r.group.as_deref().unwrap_or("");
    let k = r.kind.as_deref().unwrap_or("Secret");
    let rns = r.namespace.as_deref().unwrap_or(&ns);
    let bad = |m: String| Some(Err((Reason::InvalidClientCertificateRef, m)));
    if !(g.is_empty() && k == "Secret") {
        let group = if g.is_empty() { String::new() } else { format!(" (group `{g}`)") };
        return bad(format!("clientCertificateRef {k} `{}`{group} is not a core Secret", r.name));
    }
    if [rns, r.name.as_str()].into_iter().any(edgecheck_core::placeholder::unresolved) {
        return Some(Ok(()));
    }
    if rns != ns && !graph.reference_granted((GROUP, "Gateway"), &ns, ("", "Secret"), rns, &r.name) {
        return Some(Err((
            Reason::RefNotPermitted,
            format!("clientCertificateRef Secret `{rns}/{}` is in another namespace and no ReferenceGrant in `{rns}` allows it", r.name),
        )));
    }
    match graph.find(K::SECRET, Some(rns), &r.name) {
        None if graph.secret_producers(rns, &r.name).is_empty()
            && absent_is_missing(graph, &K::SECRET.to_kind(), Some(rns)) =>
        {
            bad(format!("Secret `{rns}/{}` {NOT_IN_INVENTORY}", r.name))
        }
        None => Some(Ok(())),
        Some(sid) => match graph.obj(sid).secret.as_ref().and_then(|i| tls_secret_fault(i)) {
            Some(why) => bad(format!("Secret `{rns}/{}` {why}", r.name)),
            None => Some(Ok(())),
        },
    }
}

/// Why a Secret cannot serve as a certificate and key: its type, a missing key, or a `tls.crt` or
/// `tls.key` that does not parse. SOPS-encrypted data is not judged.
fn tls_secret_fault(info: &edgecheck_core::secret::SecretInfo) -> Option<String> {
    if info.encrypted {
        return None;
    }
    if info.secret_type != "kubernetes.io/tls" {
        return Some(format!("has type {}, not kubernetes.io/tls", info.secret_type));
    }
    malformed(info)
}

/// A `kubernetes.io/tls` Secret whose `tls.crt` or `tls.key` is missing, or present and unreadable.
fn malformed(info: &edgecheck_core::secret::SecretInfo) -> Option<String> {
    if !info.has_key("tls.crt") || !info.has_key("tls.key") {
        return Some("lacks tls.crt or tls.key".into());
    }
    let filled = |k: &str| info.lengths.get(k).is_some_and(|n| *n > 0);
    if filled("tls.crt") && info.cert_error.is_some() {
        return Some("holds a tls.crt that is not a PEM certificate".into());
    }
    if filled("tls.key") && info.key_error.is_some() {
        return Some("holds a tls.key that is not a PEM private key".into());
    }
    None
}

/// Whether the GatewayClass of a Gateway (or of the Gateway a ListenerSet attaches to) is in the
/// inventory: then the repository manages that controller's area (the absence rule,
/// [`Graph::absence_managed`]).
fn class_held(graph: &Graph, owner: ObjId) -> bool {
    let gateway = if graph.view::<views::ListenerSet>(owner).is_some() {
        graph.edges_from_kind(owner, edgecheck_core::EdgeKind::ParentRef).find_map(|e| e.to.found())
    } else {
        Some(owner)
    };
    gateway.is_some_and(|g| {
        graph.edges_from_kind(g, edgecheck_core::EdgeKind::GatewayClass).any(|e| e.to.found().is_some())
    })
}

/// Listener `ResolvedRefs` from its certificateRefs.
pub(super) fn cert_refs(
    graph: &Graph,
    (owner_id, imp): (ObjId, Option<&Implementation>),
    ns: &str,
    l: &Listener,
) -> Result<(), (Reason, String)> {
    let owner = graph.obj(owner_id);
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
                // The Gateway's class in the inventory: the repository manages this Gateway's area.
                if graph.secret_producers(rns, &r.name).is_empty()
                    && graph.absence_managed(&K::SECRET.to_kind(), Some(rns), class_held(graph, owner_id)).is_some()
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
                    if let Some(why) =
                        (info.secret_type == "kubernetes.io/tls" && !info.encrypted).then(|| malformed(info)).flatten()
                    {
                        return Err((Reason::InvalidCertificateRef, format!("Secret `{rns}/{}` {why}", r.name)));
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
                // A kind no listed implementation defines, on a parent whose implementation is not known, that
                // the repository holds objects or a CRD of (agentgateway's `AgentgatewayBackend`): that
                // controller is installed and may be this parent's.
                BackendKind::Unknown
                    if imp.is_none() && !g.is_empty() && {
                        let kind = Kind { group: g.into(), kind: k.into() };
                        !graph.ids_of(&kind).is_empty() || graph.crd_for(&kind).is_some()
                    } =>
                {
                    true
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
