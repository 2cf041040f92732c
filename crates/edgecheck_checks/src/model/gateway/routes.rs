//! Routes: which parentRefs accept them, on which listeners, and whether their backends resolve.

use super::*;

/// A route's `ResolvedRefs`: fine, or the reason and message.
type Resolved = Result<(), (Reason, String)>;

impl GatewayModel {
    pub(super) fn routes(&mut self, graph: &Graph, slots: &HashMap<ObjId, Vec<Slot>>) {
        // Routes name their parents alike (every route of a team the one Gateway's `https` listener): one
        // copy of each parentRef is shared by the conditions of all (#17).
        let mut parents: std::collections::HashSet<std::sync::Arc<ParentKey>> = std::collections::HashSet::new();
        for (rid, ro, r) in graph.each::<views::Route>() {
            let rns = ro.namespace.clone().unwrap_or_default();
            let kind = ro.kind.kind.as_str();
            // ResolvedRefs depends on the parent's implementation only through the backend kinds it
            // accepts: computed once per implementation the route's parents have.
            let mut resolved_by: Vec<(Option<&'static str>, Resolved)> = Vec::new();
            let mut resolved_for = |imp: Option<&'static Implementation>, fields: &mut HashMap<ObjId, String>| {
                let key = imp.map(|i| i.name);
                if let Some((_, r)) = resolved_by.iter().find(|(k, _)| *k == key) {
                    return r.clone();
                }
                let r = match backend_refs(graph, ro, &rns, r, imp) {
                    Ok(()) => Ok(()),
                    Err((reason, m, field)) => {
                        fields.entry(rid).or_insert(field);
                        Err((reason, m))
                    }
                };
                resolved_by.push((key, r.clone()));
                r
            };
            let edges: Vec<_> = graph.edges_from_kind(rid, edgecheck_core::EdgeKind::ParentRef).collect();
            let mut v = Vec::new();
            for (pi, p) in r.spec.parent_refs.iter().enumerate() {
                let key = parent_key(p);
                let pk = match parents.get(&key) {
                    Some(shared) => shared.clone(),
                    None => {
                        let new = std::sync::Arc::new(key);
                        parents.insert(new.clone());
                        new
                    }
                };
                let field = format!("spec.parentRefs[{pi}]");
                let edge = edges.iter().find(|e| e.field == field);
                let Some(edge) = edge else { continue }; // not a Gateway/ListenerSet parent (mesh, ...)
                let pc = |t: Type, s: bool, reason: Reason, m: std::borrow::Cow<'static, str>| ExpectedCondition {
                    parent: Some(pk.clone()),
                    ..cond(t, s, reason, m)
                };
                let imp = edge.to.found().and_then(|pid| implementation::of_parent(graph, pid));
                let resolved = resolved_for(imp, &mut self.ref_fields);
                let accepted: Option<Result<String, (Reason, String)>> = match &edge.to {
                    edgecheck_core::Target::Missing(mref) => {
                        let k = mref.group_kind();
                        // Installed elsewhere: acceptance unknown, references still checked.
                        absent_is_missing(graph, &k, mref.namespace.as_deref()).then(|| {
                            Err((
                                Reason::NoMatchingParent,
                                format!(
                                    "{} `{}` {NOT_IN_INVENTORY}",
                                    k.kind,
                                    display_ns(mref.namespace.as_deref(), &mref.name)
                                ),
                            ))
                        })
                    }
                    edgecheck_core::Target::Found(pid) => {
                        let owner_ok = self
                            .of(*pid)
                            .iter()
                            .find(|c| c.condition_type == Type::Accepted && c.listener.is_none())
                            .is_none_or(|c| c.status || c.reason != Reason::NotAllowed);
                        let ls = slots.get(pid).map_or(&[][..], Vec::as_slice);
                        Some(if owner_ok {
                            self.attach(graph, (*pid, ls, imp), p, kind, &rns, &r.spec.hostnames)
                        } else {
                            Err((
                                Reason::NotAllowedByListeners,
                                "the parent ListenerSet is not accepted by its Gateway".into(),
                            ))
                        })
                    }
                };
                for l in std::mem::take(&mut self.pending_terminated) {
                    self.terminated_tls_routes.push((rid, (*pk).clone(), l));
                }
                let mut attached = std::mem::take(&mut self.pending_attached);
                // Held for every route until the report: no growth slack.
                attached.shrink_to_fit();
                if let (Some(Ok(_)), Some(owner)) = (&accepted, edge.to.found()) {
                    self.attachments.entry(rid).or_default().push(Attachment {
                        parent_index: pi,
                        owner,
                        listeners: attached,
                    });
                }
                match accepted {
                    None => {}
                    Some(Ok(m)) => v.push(pc(Type::Accepted, true, Reason::Accepted, m.into())),
                    Some(Err((reason, m))) => v.push(pc(Type::Accepted, false, reason, m.into())),
                }
                match &resolved {
                    Ok(()) => v.push(pc(Type::ResolvedRefs, true, Reason::ResolvedRefs, "references resolved".into())),
                    Err((reason, m)) => v.push(pc(Type::ResolvedRefs, false, *reason, m.clone().into())),
                }
            }
            // Held for every route until the report: no growth slack (a route has two or three).
            v.shrink_to_fit();
            if let Some(a) = self.attachments.get_mut(&rid) {
                a.shrink_to_fit();
            }
            self.conditions.insert(rid, v);
        }
    }

    /// Attaches a route to the listeners a parentRef selects; counts `attachedRoutes`.
    fn attach(
        &mut self,
        graph: &Graph,
        (pid, ls, imp): (ObjId, &[Slot], Option<&Implementation>),
        p: &ParentRef,
        kind: &str,
        rns: &str,
        hostnames: &[Str],
    ) -> Result<String, (Reason, String)> {
        // A controller that attaches by the parentRef's name alone takes the route on every listener.
        let by_name = imp.filter(|i| i.attaches_by_name);
        let cands: Vec<&Slot> = ls
            .iter()
            .filter(|s| by_name.is_some() || p.section_name.as_deref().is_none_or(|n| s.listener.name == n))
            .filter(|s| by_name.is_some() || p.port.is_none_or(|port| s.listener.port == port))
            .collect();
        if cands.is_empty() {
            let what = match (&p.section_name, p.port) {
                (Some(n), Some(port)) => format!("no listener named `{n}` on port {port}"),
                (Some(n), None) => format!("no listener named `{n}`"),
                (None, Some(port)) => format!("no listener on port {port}"),
                (None, None) => "no listeners".into(),
            };
            return Err((Reason::NoMatchingParent, format!("{} has {what}", graph.obj(pid).to_ref())));
        }
        let has_hosts = matches!(kind, "HTTPRoute" | "GRPCRoute" | "TLSRoute");
        let mut why_not = Vec::new();
        let mut host_miss = Vec::new();
        let mut notes = Vec::new();
        let mut hit = Vec::new();
        for s in &cands {
            if !s.supported.iter().any(|k| k == kind) {
                let mode = if s.listener.protocol == "TLS" {
                    format!(" mode {}", tls_mode(&s.listener))
                } else {
                    String::new()
                };
                why_not.push(format!(
                    "listener `{}` ({}{mode}) does not allow {kind} (supported: {})",
                    s.listener.name,
                    s.listener.protocol,
                    if s.supported.is_empty() { "none".to_string() } else { s.supported.join(", ") }
                ));
                continue;
            }
            match namespace_allowed(graph, &s.listener, &s.namespace, rns) {
                Err(m) => {
                    why_not.push(m);
                    continue;
                }
                Ok(Some(n)) => notes.push(n),
                Ok(None) => {}
            }
            // A placeholder (`portal.${DOMAIN}`, docs/design.md "Placeholders") is no hostname yet: not judged.
            let lh = s.listener.hostname.as_deref();
            if has_hosts
                && by_name.is_none()
                && !hostnames.is_empty()
                && lh.is_some_and(|l| !edgecheck_core::placeholder::unresolved(l))
            {
                let placeholder = hostnames.iter().any(|h| edgecheck_core::placeholder::unresolved(h));
                if !placeholder && !hostnames.iter().any(|h| gateway_intersect(lh, h).is_some()) {
                    host_miss.push(format!(
                        "listener `{}` hostname {} does not intersect route hostnames {}",
                        s.listener.name,
                        lh.unwrap_or(""),
                        hostnames.join(", ")
                    ));
                    continue;
                }
            }
            if kind == "TLSRoute" && tls_mode(&s.listener) == "Terminate" {
                self.pending_terminated.push(s.listener.name.clone());
            }
            hit.push(s.listener.name.clone());
        }
        if hit.is_empty() {
            if !host_miss.is_empty() {
                return Err((Reason::NoMatchingListenerHostname, host_miss.join("; ")));
            }
            return Err((Reason::NotAllowedByListeners, why_not.join("; ")));
        }
        for name in &hit {
            if let Some(st) = self.listeners.get_mut(&(pid, name.clone())) {
                st.attached_routes += 1;
            }
        }
        self.pending_attached.clone_from(&hit);
        let mut m = format!("attached to listener(s) {}", hit.join(", "));
        if let Some(i) = by_name {
            m.push_str(&format!(
                "; {} attaches routes by the parentRef's name and does not apply listener hostnames or sectionName",
                i.name
            ));
        }
        for n in notes {
            m.push_str("; ");
            m.push_str(&n);
        }
        Ok(m)
    }
}

fn namespace_allowed(graph: &Graph, l: &Listener, owner_ns: &str, route_ns: &str) -> Result<Option<String>, String> {
    let ns = l.allowed_routes.as_ref().and_then(|a| a.namespaces.as_ref());
    // A namespace still to be substituted may be any: not judged.
    if edgecheck_core::placeholder::unresolved(route_ns) {
        return Ok(None);
    }
    match ns.and_then(|n| n.from.as_deref()).unwrap_or("Same") {
        "All" => Ok(None),
        "Selector" => {
            let sel = ns.and_then(|n| n.selector.clone()).unwrap_or_default();
            match graph.namespace_labels(route_ns) {
                Some(labels) if sel.matches(&labels) => Ok(None),
                Some(_) => Err(format!(
                    "listener `{}` allows routes from namespaces matching its selector; Namespace `{route_ns}` does not match",
                    l.name
                )),
                None => Ok(Some(format!(
                    "Namespace `{route_ns}` {NOT_IN_INVENTORY}: listener `{}`'s namespace selector was not evaluated",
                    l.name
                ))),
            }
        }
        "Same" => {
            if owner_ns == route_ns {
                Ok(None)
            } else {
                Err(format!(
                    "listener `{}` allows routes from its own namespace `{owner_ns}` only (from: Same), not `{route_ns}`",
                    l.name
                ))
            }
        }
        other => Err(format!("listener `{}` has allowedRoutes.namespaces.from `{other}`", l.name)),
    }
}
