//! Gateways and ListenerSets: which listeners are valid, which conflict on a port, what each listener
//! and each Gateway reports.

use super::*;

/// Per-listener conditions or one reason and message, keyed by (owner, index in its spec).
type ByListener<T> = HashMap<(ObjId, usize), T>;

/// A listener's fault: the reason and why.
type Why = (Reason, String);

impl GatewayModel {
    /// Gateways and ListenerSets; returns every listener slot, indexed by owner.
    pub(super) fn gateways(&mut self, graph: &Graph) -> HashMap<ObjId, Vec<Slot>> {
        let mut slots: HashMap<ObjId, Vec<Slot>> = HashMap::new();
        let mut sets_by_gw = self.listener_sets(graph);
        for (gid, go, gw) in graph.each::<views::Gateway>() {
            let mut sets = sets_by_gw.remove(&gid).unwrap_or_default();
            // Oldest first, then namespace/name (the spec's precedence); creation times are known only
            // for objects read from a cluster or a dump.
            sets.sort();
            let tie = sets.len() > 1 && sets.iter().any(|(created, _, _)| created.is_none());
            let feats = Features::of(graph, gid);
            let mut owners: Vec<(ObjId, String, &[Listener])> =
                vec![(gid, go.namespace.as_deref().unwrap_or_default().to_string(), &gw.spec.listeners)];
            for (_, _, sid) in &sets {
                if let Some(s) = graph.view::<views::ListenerSet>(*sid) {
                    owners.push((
                        *sid,
                        graph.obj(*sid).namespace.as_deref().unwrap_or_default().to_string(),
                        &s.spec.listeners,
                    ));
                }
            }
            let (mut all, invalid) = slots_of(&owners);
            let conflicted = self.conflicts(gid, &all, tie, &feats);
            let mut per = self.listener_conditions(graph, &mut all, (&invalid, &conflicted), &feats);
            let own: Vec<&Slot> = all.iter().filter(|s| s.owner == gid).collect();
            let mut gv = gateway_conditions(graph, gid, go, gw, &own, &per);
            let mut attached_sets = 0;
            for (_, _, sid) in &sets {
                let mine: Vec<&Slot> = all.iter().filter(|s| s.owner == *sid).collect();
                if self.listener_set_conditions(*sid, &mine, &per) {
                    attached_sets += 1;
                }
            }
            self.attached_listener_sets.insert(gid, attached_sets);
            for (owner, _, ls) in &owners {
                let target = if *owner == gid { &mut gv } else { self.conditions.entry(*owner).or_default() };
                for i in 0..ls.len() {
                    if let Some(v) = per.remove(&(*owner, i)) {
                        target.extend(v);
                    }
                }
            }
            self.conditions.insert(gid, gv);
            for s in all {
                slots.entry(s.owner).or_default().push(s);
            }
        }
        slots
    }

    /// ListenerSets: whether their parent Gateway allows them (`allowedListeners`). Returns the allowed ones
    /// by parent Gateway, each with its creation time (when it was read from a cluster or a dump) and
    /// namespace/name, the keys of their precedence.
    fn listener_sets(&mut self, graph: &Graph) -> BTreeMap<ObjId, Vec<SetKey>> {
        let mut sets_by_gw: BTreeMap<ObjId, Vec<SetKey>> = BTreeMap::new();
        for (id, o, s) in graph.each::<views::ListenerSet>() {
            let mut v = Vec::new();
            let parent =
                graph.edges_from_kind(id, edgecheck_core::EdgeKind::ParentRef).next().and_then(|e| e.to.found());
            match parent {
                None => {
                    let pns = s.spec.parent_ref.namespace.as_deref().or(o.namespace.as_deref());
                    // A Gateway installed elsewhere: acceptance unknown.
                    if absent_is_missing(graph, &K::GATEWAY.to_kind(), pns) {
                        v.push(cond(
                            Type::Accepted,
                            false,
                            Reason::ParentNotAccepted,
                            format!("parent Gateway `{}` {NOT_IN_INVENTORY}", display_ns(pns, &s.spec.parent_ref.name)),
                        ));
                    }
                }
                Some(gw) => {
                    let gwo = graph.obj(gw);
                    let allowed = graph.view::<views::Gateway>(gw).and_then(|g| g.spec.allowed_listeners.as_ref());
                    let from = allowed
                        .and_then(|a| a.pointer("/namespaces/from"))
                        .and_then(|f| f.as_str())
                        .unwrap_or("None")
                        .to_string();
                    let ns = o.namespace.clone().unwrap_or_default();
                    let ok = match from.as_str() {
                        "All" => true,
                        "Same" => gwo.namespace.as_deref() == Some(ns.as_str()),
                        "Selector" => {
                            let sel: views::LabelSelector = allowed
                                .and_then(|a| a.pointer("/namespaces/selector"))
                                .and_then(|s| edgecheck_core::value::from_value(s).ok())
                                .unwrap_or_default();
                            graph.namespace_labels(&ns).is_none_or(|l| sel.matches(&l))
                        }
                        _ => false,
                    };
                    if ok {
                        // Accepted and Programmed follow from its listeners: `listener_set_conditions`.
                        let created = o
                            .is_live()
                            .then(|| o.value.pointer("/metadata/creationTimestamp").and_then(|t| t.as_str()))
                            .flatten()
                            .map(str::to_string);
                        sets_by_gw.entry(gw).or_default().push((created, format!("{ns}/{}", o.name), id));
                    } else {
                        v.push(cond(
                            Type::Accepted,
                            false,
                            Reason::NotAllowed,
                            format!("{} allowedListeners.namespaces.from is `{from}`", gwo.to_ref()),
                        ));
                        v.push(cond(Type::Programmed, false, Reason::NotAllowed, "not accepted by the parent Gateway"));
                    }
                }
            }
            self.conditions.insert(id, v);
        }
        sets_by_gw
    }

    /// A ListenerSet's own `Accepted` and `Programmed`, from its listeners (as the Gateway's from its
    /// own). Returns whether it is accepted (it counts in the Gateway's `attachedListenerSets`).
    fn listener_set_conditions(
        &mut self,
        sid: ObjId,
        mine: &[&Slot],
        per: &ByListener<Vec<ExpectedCondition>>,
    ) -> bool {
        let bad = |t: Type| {
            mine.iter()
                .filter(|s| {
                    per.get(&(s.owner, s.index)).is_some_and(|v| v.iter().any(|c| c.condition_type == t && !c.status))
                })
                .count()
        };
        let (invalid, unprogrammed) = (bad(Type::Accepted), bad(Type::Programmed));
        let n = mine.len();
        let v = self.conditions.entry(sid).or_default();
        // A set none of whose listeners can be programmed (invalid, conflicted, or with unresolved
        // references) is not accepted (ListenerSetReferenceGrant, ListenerSetProtocolConflict).
        let accepted = n == 0 || unprogrammed < n;
        if !accepted {
            v.push(cond(Type::Accepted, false, Reason::ListenersNotValid, "no listener is valid"));
            v.push(cond(Type::Programmed, false, Reason::ListenersNotValid, "no listener is valid"));
            return false;
        }
        if invalid > 0 {
            let m = format!("{invalid} of {n} listeners are not valid");
            v.push(cond(Type::Accepted, true, Reason::ListenersNotValid, m));
        } else {
            v.push(cond(Type::Accepted, true, Reason::Accepted, "accepted by the parent Gateway"));
        }
        v.push(cond(Type::Programmed, true, Reason::Programmed, "programmed"));
        true
    }

    /// Listeners on one port that cannot share it: incompatible protocols, or one transport with the same
    /// hostname. In the Gateway's own spec both are conflicted; a ListenerSet's listener loses to the
    /// Gateway's own and to earlier sets. TLS Passthrough and Terminate on one port of the Gateway's own
    /// spec conflict (`ProtocolConflict`) where the implementation is known not to support
    /// `TLSRouteModeMixed`; where that is unknown the port is recorded in `shared_tls_ports`.
    fn conflicts(&mut self, gid: ObjId, all: &[Slot], tie: bool, feats: &Features<'_>) -> ByListener<Why> {
        let mut conflicted: ByListener<Why> = HashMap::new();
        let mut by_port: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
        for (i, s) in all.iter().enumerate() {
            by_port.entry(s.listener.port).or_default().push(i);
        }
        for (port, idx) in &by_port {
            if let Some((pass, term)) = shared_tls_port(gid, idx.iter().map(|&i| &all[i])) {
                match feats.supports("TLSRouteModeMixed") {
                    Some(true) => {}
                    Some(false) => {
                        let m = format!(
                            "TLS Passthrough ({}) and Terminate ({}) listeners share port {port}, and {} does not list TLSRouteModeMixed",
                            pass.join(", "),
                            term.join(", "),
                            feats.source()
                        );
                        for &i in idx {
                            let s = &all[i];
                            if s.owner == gid && (pass.contains(&s.listener.name) || term.contains(&s.listener.name)) {
                                conflicted.entry((s.owner, s.index)).or_insert((Reason::ProtocolConflict, m.clone()));
                            }
                        }
                    }
                    None => self.shared_tls_ports.push(SharedTlsPort {
                        gateway: gid,
                        port: *port,
                        passthrough: pass,
                        terminate: term,
                    }),
                }
            }
            // The Gateway's own listeners are all there: a conflicting pair is conflicted on both sides.
            // A ListenerSet's listener, in precedence order, loses to any listener already standing
            // (the Gateway's own, or an earlier one that did not lose itself).
            let mut standing: Vec<usize> = Vec::new();
            for &b in idx {
                let lb = &all[b].listener;
                let kb = (all[b].owner, all[b].index);
                if all[b].owner == gid {
                    for &a in &standing {
                        if let Some((reason, msg)) = conflict(&all[a].listener, lb, *port) {
                            conflicted.entry((all[a].owner, all[a].index)).or_insert((reason, msg.clone()));
                            conflicted.entry(kb).or_insert((reason, msg));
                        }
                    }
                    standing.push(b);
                    continue;
                }
                let lost = standing.iter().find_map(|&a| conflict(&all[a].listener, lb, *port).map(|c| (a, c)));
                match lost {
                    Some((a, (reason, msg))) => {
                        let mut msg = format!("{msg}; the earlier listener wins");
                        if tie && all[a].owner != gid {
                            msg.push_str(
                                " (ListenerSets ordered by name: the real order is by creation time, unknown in Git)",
                            );
                        }
                        conflicted.entry(kb).or_insert((reason, msg));
                    }
                    None => standing.push(b),
                }
            }
        }
        conflicted
    }
}

/// A ListenerSet's precedence keys (creation time when known, namespace/name) and id.
type SetKey = (Option<String>, String, ObjId);

/// On one port of the Gateway's own spec, the TLS Passthrough listeners and the terminating ones, when
/// both are there.
fn shared_tls_port<'s>(gid: ObjId, slots: impl Iterator<Item = &'s Slot>) -> Option<(Vec<Str>, Vec<Str>)> {
    let (mut pass, mut term) = (Vec::new(), Vec::new());
    for s in slots.filter(|s| s.owner == gid) {
        let l = &s.listener;
        if l.protocol == "TLS" && tls_mode(l) == "Passthrough" {
            pass.push(l.name.clone());
        } else if matches!(l.protocol.as_str(), "HTTPS" | "TLS") {
            term.push(l.name.clone());
        }
    }
    (!pass.is_empty() && !term.is_empty()).then_some((pass, term))
}

impl GatewayModel {
    /// Accepted, Programmed, ResolvedRefs and Conflicted for every listener; records each listener's
    /// supported kinds. A conflicted listener is not accepted and not programmed, with the conflict's
    /// reason; a listener whose client certificate validation names no usable CA is not accepted
    /// (`NoValidCACertificate`).
    fn listener_conditions(
        &mut self,
        graph: &Graph,
        all: &mut [Slot],
        (invalid, conflicted): (&ByListener<Why>, &ByListener<Why>),
        feats: &Features<'_>,
    ) -> ByListener<Vec<ExpectedCondition>> {
        let mut per: ByListener<Vec<ExpectedCondition>> = HashMap::new();
        for s in all.iter_mut() {
            let l = &s.listener;
            let key = (s.owner, s.index);
            let c = conflicted.get(&key);
            let mut accepted = match (invalid.get(&key), c) {
                (Some(why), _) => Err(why.clone()),
                (None, Some(why)) => Err(why.clone()),
                (None, None) => listener_valid(l, feats),
            };
            let (supported, mut resolved) = match route_kinds(l, feats) {
                Ok(supported) => {
                    (supported, cert_refs(graph, (s.owner, implementation::of_parent(graph, s.owner)), &s.namespace, l))
                }
                Err((supported, why)) => (supported, Err(why)),
            };
            if resolved.is_ok() {
                if let Some((reason, m, field)) = frontend_ca(graph, s.owner, l) {
                    if accepted.is_ok() {
                        accepted = Err((Reason::NoValidCACertificate, m.clone()));
                    }
                    self.listener_ref_fields.insert((s.owner, l.name.clone()), field);
                    resolved = Err((reason, m));
                }
            }
            s.accepted = accepted.is_ok();
            s.supported.clone_from(&supported);
            let v = per.entry(key).or_default();
            match &accepted {
                Ok(()) => v.push(lcond(&l.name, Type::Accepted, true, Reason::Accepted, "accepted")),
                Err((r, m)) => v.push(lcond(&l.name, Type::Accepted, false, *r, m.clone())),
            }
            if accepted.is_ok() && resolved.is_ok() {
                v.push(lcond(&l.name, Type::Programmed, true, Reason::Programmed, "programmed"));
            } else {
                let (r, m) = match c {
                    Some((r, _)) => (*r, "listener is conflicted"),
                    None => (Reason::Invalid, "listener is invalid or has unresolved references"),
                };
                v.push(lcond(&l.name, Type::Programmed, false, r, m));
            }
            match &resolved {
                Ok(()) => v.push(lcond(&l.name, Type::ResolvedRefs, true, Reason::ResolvedRefs, "references resolved")),
                Err((r, m)) => v.push(lcond(&l.name, Type::ResolvedRefs, false, *r, m.clone())),
            }
            match c {
                Some((r, m)) => v.push(lcond(&l.name, Type::Conflicted, true, *r, m.clone())),
                None => v.push(lcond(&l.name, Type::Conflicted, false, Reason::NoConflicts, "no conflicts")),
            }
            self.listeners
                .insert((s.owner, l.name.clone()), ListenerState { attached_routes: 0, supported_kinds: supported });
        }
        per
    }
}

/// Every listener of the Gateway and its accepted ListenerSets as a slot, and the names used twice in one
/// owner (the later one is invalid).
fn slots_of(owners: &[(ObjId, String, &[Listener])]) -> (Vec<Slot>, ByListener<Why>) {
    let mut invalid: ByListener<Why> = HashMap::new();
    let mut all: Vec<Slot> = Vec::new();
    for (owner, ns, ls) in owners {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, l) in ls.iter().enumerate() {
            if let Some(first) = seen.insert(l.name.as_str(), i) {
                let m = format!("listener name `{}` is used twice (also listener {first})", l.name);
                invalid.insert((*owner, i), (Reason::Invalid, m));
            }
            all.push(Slot {
                owner: *owner,
                index: i,
                listener: l.clone(),
                namespace: ns.clone(),
                supported: Vec::new(),
                accepted: true,
            });
        }
    }
    (all, invalid)
}

/// Why two listeners on `port` cannot share it, if they cannot.
fn conflict(la: &Listener, lb: &Listener, port: i64) -> Option<Why> {
    if !compatible(la, lb) {
        Some((
            Reason::ProtocolConflict,
            format!(
                "listeners `{}` ({}) and `{}` ({}) share port {port} with incompatible protocols",
                la.name, la.protocol, lb.name, lb.protocol
            ),
        ))
    } else if same_transport(la, lb) && host_key(la) == host_key(lb) {
        let h = la.hostname.as_deref().unwrap_or("(any)");
        Some((
            Reason::HostnameConflict,
            format!("listeners `{}` and `{}` share port {port} and hostname {h}", la.name, lb.name),
        ))
    } else {
        None
    }
}

/// Whether a listener's protocol and TLS settings are ones the spec (and, where known, the
/// implementation) accepts.
fn listener_valid(l: &Listener, feats: &Features<'_>) -> Result<(), Why> {
    // What the CRD leaves open: a protocol without a domain prefix is one the implementation must define
    // (STUNner's `TURN-UDP`, Istio's `HBONE`, from the implementation table; where the implementation is not
    // known, any implementation's), and HTTPS needs tls only for an implementation known to read it (not an
    // unknown one, nor the Cloudflare gateway, which terminates at its edge).
    let defined = match feats.imp {
        Some(i) => i.protocols.contains(&l.protocol.as_str()),
        None => edgecheck_core::implementation::defines_protocol(&l.protocol),
    };
    let follows_spec = feats.imp.is_some_and(|i| !i.attaches_by_name);
    if l.protocol.is_empty() || (!is_core_protocol(&l.protocol) && !l.protocol.contains('/') && !defined) {
        Err((Reason::UnsupportedProtocol, format!("protocol `{}` is not a Gateway API protocol", l.protocol)))
    } else if l.protocol == "TLS" && l.tls.is_none() {
        // The CRD's validation rule: the API server refuses the Gateway as written.
        Err((Reason::Invalid, "protocol TLS requires tls.mode (the API server refuses a Gateway without it)".into()))
    } else if l.protocol == "HTTPS" && l.tls.is_none() && follows_spec {
        // The spec requires tls for HTTPS (the CRD does not enforce it): no certificate to serve.
        Err((Reason::Invalid, "protocol HTTPS without tls: the listener has no certificate to serve".into()))
    } else if l.protocol == "TLS"
        && tls_mode(l) == "Terminate"
        && feats.supports("TLSRouteModeTerminate") == Some(false)
    {
        Err((
            Reason::UnsupportedValue,
            format!("tls.mode Terminate on protocol TLS, and {} does not list TLSRouteModeTerminate", feats.source()),
        ))
    } else if matches!(l.protocol.as_str(), "HTTP" | "TCP" | "UDP") && l.tls.is_some() {
        Err((Reason::UnsupportedValue, format!("protocol {} does not take tls", l.protocol)))
    } else if l.protocol == "HTTPS" && tls_mode(l) == "Passthrough" {
        Err((Reason::UnsupportedValue, "protocol HTTPS allows tls.mode Terminate only".into()))
    } else if !matches!(tls_mode(l), "Terminate" | "Passthrough") {
        Err((Reason::UnsupportedValue, format!("tls.mode `{}` is not Terminate or Passthrough", tls_mode(l))))
    } else {
        Ok(())
    }
}

/// The route kinds a listener supports: those its protocol admits, narrowed by `allowedRoutes.kinds`. Kinds
/// written there that the protocol cannot carry make `ResolvedRefs=False InvalidRouteKinds` (the supported
/// ones still count).
fn route_kinds(l: &Listener, feats: &Features<'_>) -> Result<Vec<Str>, (Vec<Str>, Why)> {
    // Route kinds are features of their own (`HTTPRoute` is core); one the implementation is known not
    // to support is not a kind its listeners take.
    let base: Option<Vec<&'static str>> = protocol_kinds(l)
        .map(|b| b.iter().copied().filter(|k| *k == "HTTPRoute" || feats.supports(k) != Some(false)).collect());
    let base = base.as_deref();
    let written = l.allowed_routes.as_ref().map(|a| a.kinds.as_slice()).unwrap_or_default();
    if written.is_empty() {
        return Ok(base.map(|b| b.iter().map(|k| Str::from(*k)).collect()).unwrap_or_default());
    }
    let (mut supported, mut bad) = (Vec::new(), Vec::new());
    for k in written {
        let g = k.group.as_deref().unwrap_or(GROUP);
        let ok = g == GROUP && base.is_none_or(|b| b.contains(&k.kind.as_str()));
        if ok || (base.is_none() && g != GROUP) {
            supported.push(k.kind.clone());
        } else {
            bad.push(k.kind.clone());
        }
    }
    if bad.is_empty() {
        return Ok(supported);
    }
    let mode = if l.protocol == "TLS" { format!(" mode {}", tls_mode(l)) } else { String::new() };
    let m = format!("allowedRoutes.kinds {} not supported on protocol {}{mode}", bad.join(", "), l.protocol);
    Err((supported, (Reason::InvalidRouteKinds, m)))
}

/// The Gateway's own Accepted and Programmed, from its class, parameters, addresses and listeners.
fn gateway_conditions(
    graph: &Graph,
    gid: ObjId,
    go: &edgecheck_core::Object,
    gw: &views::Gateway,
    own: &[&Slot],
    per: &ByListener<Vec<ExpectedCondition>>,
) -> Vec<ExpectedCondition> {
    let has = |s: &Slot, f: &dyn Fn(&ExpectedCondition) -> bool| {
        per.get(&(s.owner, s.index)).is_some_and(|v| v.iter().any(f))
    };
    let unprogrammed = own.iter().filter(|s| has(s, &|c| c.condition_type == Type::Programmed && !c.status)).count();
    // Not accepted or conflicted: what `ListenersNotValid` means. A listener with unresolved references is
    // still accepted (only not programmed).
    let invalid = own
        .iter()
        .filter(|s| {
            has(s, &|c| {
                (c.condition_type == Type::Accepted && !c.status) || (c.condition_type == Type::Conflicted && c.status)
            })
        })
        .count();
    let class = graph.edges_from_kind(gid, edgecheck_core::EdgeKind::GatewayClass).next().map(|e| &e.to);
    let class_missing = matches!(class, Some(edgecheck_core::Target::Missing(_)))
        && absent_is_missing(graph, &K::GATEWAY_CLASS.to_kind(), None)
        && !edgecheck_core::implementation::class_made_by_chart(graph, &gw.spec.gateway_class_name);
    // The core and Extended types; a domain-prefixed type is implementation-specific, and no
    // implementation in `edgecheck_core::implementation` defines one.
    let addr = gw.spec.addresses.iter().find_map(|a| {
        let t = a.get("type").and_then(|t| t.as_str()).unwrap_or("IPAddress");
        (!matches!(t, "IPAddress" | "Hostname" | "NamedAddress")).then(|| t.to_string())
    });
    let mut gv = Vec::new();
    if class_missing {
        let m = format!(
            "GatewayClass `{}` {NOT_IN_INVENTORY}: no controller will reconcile this Gateway",
            gw.spec.gateway_class_name
        );
        gv.push(cond(Type::Accepted, false, Reason::Pending, m));
        gv.push(cond(Type::Programmed, false, Reason::Pending, "not reconciled"));
    } else if let Some(m) = infra_params_missing(graph, go, gw) {
        gv.push(cond(Type::Accepted, false, Reason::InvalidParameters, m));
        gv.push(cond(Type::Programmed, false, Reason::Invalid, "not accepted"));
    } else if let Some(t) = addr {
        gv.push(cond(
            Type::Accepted,
            false,
            Reason::UnsupportedAddress,
            if t.contains('/') {
                format!(
                    "address type `{t}` is implementation-specific, and no implementation edgecheck knows defines it"
                )
            } else {
                format!("address type `{t}` is not a Gateway API address type")
            },
        ));
        gv.push(cond(Type::Programmed, false, Reason::Invalid, "not accepted"));
    } else if !own.is_empty() && invalid == own.len() {
        gv.push(cond(Type::Accepted, false, Reason::ListenersNotValid, "no listener is valid"));
        gv.push(cond(Type::Programmed, false, Reason::Invalid, "no listener is valid"));
    } else {
        if invalid > 0 {
            let m = format!("{invalid} of {} listeners are not valid", own.len());
            gv.push(cond(Type::Accepted, true, Reason::ListenersNotValid, m));
        } else {
            gv.push(cond(Type::Accepted, true, Reason::Accepted, "accepted"));
        }
        if !own.is_empty() && unprogrammed == own.len() {
            gv.push(cond(Type::Programmed, false, Reason::Invalid, "no listener is programmed"));
        } else {
            gv.push(cond(Type::Programmed, true, Reason::Programmed, "programmed"));
        }
    }
    // Client certificate validation that lets unverified clients through says so on the Gateway.
    let insecure = gw.spec.tls.as_ref().and_then(|t| t.frontend.as_ref()).is_some_and(|f| {
        f.default
            .iter()
            .chain(f.per_port.iter().map(|p| &p.tls))
            .any(|c| c.validation.as_ref().and_then(|v| v.mode.as_deref()) == Some("AllowInsecureFallback"))
    });
    if insecure {
        let m = "client certificate validation mode AllowInsecureFallback: clients without a valid certificate are let through";
        gv.push(cond(Type::InsecureFrontendValidationMode, true, Reason::ConfigurationChanged, m));
    }
    match backend_client_cert(graph, go, gw) {
        None => {}
        Some(Ok(())) => gv.push(cond(Type::ResolvedRefs, true, Reason::ResolvedRefs, "clientCertificateRef resolved")),
        Some(Err((r, m))) => gv.push(cond(Type::ResolvedRefs, false, r, m)),
    }
    gv
}

/// Whether two listeners on one port are protocol-compatible.
fn compatible(a: &Listener, b: &Listener) -> bool {
    let tlsish = |p: &str| matches!(p, "HTTPS" | "TLS");
    match (a.protocol.as_str(), b.protocol.as_str()) {
        ("UDP", "UDP") => true,
        ("UDP", _) | (_, "UDP") => true, // another transport
        ("HTTP", "HTTP") => true,
        (x, y) if tlsish(x) && tlsish(y) => true,
        (x, y) if !is_core_protocol(x) || !is_core_protocol(y) => true, // implementation-specific: unknown
        _ => false,
    }
}

fn same_transport(a: &Listener, b: &Listener) -> bool {
    (a.protocol == "UDP") == (b.protocol == "UDP")
}

fn host_key(l: &Listener) -> String {
    l.hostname.as_deref().map(normalize).unwrap_or_default()
}

fn infra_params_missing(graph: &Graph, go: &edgecheck_core::Object, gw: &views::Gateway) -> Option<String> {
    let p = gw.spec.infrastructure.as_ref()?.get("parametersRef")?;
    let kind = Kind {
        group: p.get("group").and_then(|x| x.as_str()).unwrap_or("").into(),
        kind: p.get("kind").and_then(|x| x.as_str()).unwrap_or("").into(),
    };
    let name = p.get("name").and_then(|x| x.as_str()).unwrap_or("");
    let ns = go.namespace.as_deref();
    (graph.find_kind(&kind, ns, name).is_none() && kind_known(graph, &kind))
        .then(|| format!("infrastructure.parametersRef {} `{}` {NOT_IN_INVENTORY}", kind.kind, display_ns(ns, name)))
}
