//! Who claims a host: Ingress rules (exact, wildcard, hostless, default backend), HTTPRoute and
//! GRPCRoute hostnames intersected with the listeners they attached to, TLSRoute SNI names, and
//! Traefik IngressRoute / IngressRouteTCP rules. The path matters when several rules share a host.

use std::collections::HashMap;

use rayon::prelude::*;

use edgecheck_core::hostname::{gateway_intersect, normalize};
use edgecheck_core::traefik_rule::{self, Request, Verdict as RuleVerdict};
use edgecheck_core::views::{self, Listener};
use edgecheck_core::{Graph, ObjId, ValueRef};

use super::TraceTarget;
use crate::model::gateway::tls_mode;
use crate::model::Model;

/// The kind of object that claims a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RouteKind {
    /// networking.k8s.io Ingress.
    Ingress,
    /// Gateway API HTTPRoute.
    HttpRoute,
    /// Gateway API GRPCRoute.
    GrpcRoute,
    /// Gateway API TLSRoute (SNI).
    TlsRoute,
    /// Traefik IngressRoute.
    TraefikHttp,
    /// Traefik IngressRouteTCP (HostSNI).
    TraefikTcp,
}

/// One object's claim on the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The claiming object.
    pub route: ObjId,
    /// Its kind.
    pub kind: RouteKind,
    /// The rule that matched (Ingress rule, route rule, Traefik route); `None` for a default backend.
    pub rule: Option<usize>,
    /// Backend edge fields of the matched rule (prefixes of [`edgecheck_core::Edge::field`]).
    pub backend_fields: Vec<String>,
    /// TLS secret edge fields that serve the host (Ingress `tls[]`, IngressRoute `tls`).
    pub tls_fields: Vec<String>,
    /// Gateway listeners the route attached to that take this target: (Gateway or ListenerSet, name).
    pub listeners: Vec<(ObjId, edgecheck_core::Str)>,
    /// TLS is passed through to the backend.
    pub passthrough: bool,
    /// 0 exact host, 1 wildcard, 2 any host, 3 default backend.
    pub host_rank: u8,
    /// Length of the matched path (longer is more specific).
    pub path_len: usize,
    /// How it matched, for the report.
    pub how: String,
}

struct Source {
    route: ObjId,
    kind: RouteKind,
    /// Host pattern; `None` matches every host.
    host: Option<edgecheck_core::Str>,
}

/// Whether a claim takes the request: a Gateway API route only through a listener on the target's port
/// (Ingresses and Traefik routes are taken by their controller's entry point).
fn taken(c: &Claim) -> bool {
    !matches!(c.kind, RouteKind::HttpRoute | RouteKind::GrpcRoute | RouteKind::TlsRoute) || !c.listeners.is_empty()
}

/// Claims by host, built once per run.
pub struct ClaimIndex<'g> {
    graph: &'g Graph,
    model: &'g Model,
    sources: Vec<Source>,
    /// Held while the hosts are diagnosed: keys inline (hosts fit in a `Str`), not a string each (#17).
    exact: HashMap<edgecheck_core::Str, Vec<usize>>,
    loose: Vec<usize>,
    /// Per Ingress, its rules by exact host and the others (wildcard, hostless): a claim reads only the
    /// rules that can match, not every rule of an Ingress with thousands of them for every host.
    ingress_rules: HashMap<ObjId, RuleIndex>,
}

/// Ingresses with more rules and `tls` entries than this have them indexed by host.
const INDEXED_RULES: usize = 16;

#[derive(Default)]
struct RuleIndex {
    exact: HashMap<String, Vec<usize>>,
    other: Vec<usize>,
    /// `spec.tls` entries by exact host, and those with a wildcard or no hosts (which cover every host).
    tls_exact: HashMap<String, Vec<usize>>,
    tls_other: Vec<usize>,
}

impl RuleIndex {
    /// The index of an Ingress whose rules' normalized hosts are `hosts`.
    fn of(ing: &views::Ingress, hosts: &[Option<String>]) -> RuleIndex {
        let mut rules = RuleIndex::default();
        for (ri, h) in hosts.iter().enumerate() {
            match h {
                Some(h) if !h.contains('*') => rules.exact.entry(h.clone()).or_default().push(ri),
                _ => rules.other.push(ri),
            }
        }
        for (ti, tls) in ing.spec.tls.iter().enumerate() {
            let exact: Vec<String> = tls.hosts.iter().map(|h| normalize(h)).filter(|h| !h.contains('*')).collect();
            if tls.hosts.is_empty() || exact.len() < tls.hosts.len() {
                rules.tls_other.push(ti);
            }
            for h in exact {
                rules.tls_exact.entry(h).or_default().push(ti);
            }
        }
        rules
    }

    /// The `spec.tls` entries of the Ingress whose hosts cover `host`, in order.
    fn tls_for(&self, ing: &views::Ingress, host: &str) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .tls_exact
            .get(host)
            .into_iter()
            .flatten()
            .chain(self.tls_other.iter().filter(|&&i| {
                ing.spec.tls.get(i).is_some_and(|t| {
                    t.hosts.is_empty() || t.hosts.iter().any(|p| pattern_matches(&normalize(p), host, true))
                })
            }))
            .copied()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl<'g> ClaimIndex<'g> {
    /// Indexes every host pattern of every claiming object.
    pub fn build(graph: &'g Graph, model: &'g Model) -> ClaimIndex<'g> {
        ClaimIndex::indexing(graph, model, INDEXED_RULES)
    }

    /// [`ClaimIndex::build`], indexing the rules of Ingresses with more than `indexed_rules` rules and `tls`
    /// entries.
    fn indexing(graph: &'g Graph, model: &'g Model, indexed_rules: usize) -> ClaimIndex<'g> {
        let mut ix = ClaimIndex {
            graph,
            model,
            sources: Vec::new(),
            exact: HashMap::new(),
            loose: Vec::new(),
            ingress_rules: HashMap::new(),
        };
        for (id, _, ing) in graph.each::<views::Ingress>() {
            let mut hosts: Vec<Option<String>> =
                ing.spec.rules.iter().map(|r| r.host.as_deref().map(normalize)).collect();
            // A few rules are read as they are; an index of each Ingress's was, for a repository of small
            // Ingresses, most of the claim index's memory (#17).
            if ing.spec.rules.len() + ing.spec.tls.len() > indexed_rules {
                ix.ingress_rules.insert(id, RuleIndex::of(ing, &hosts));
            }
            if ing.spec.default_backend.is_some() || ing.spec.backend.is_some() {
                hosts.push(None);
            }
            ix.add_all(id, RouteKind::Ingress, hosts);
        }
        for (id, o, r) in graph.each::<views::Route>() {
            let kind = match o.kind.kind.as_str() {
                "HTTPRoute" => RouteKind::HttpRoute,
                "GRPCRoute" => RouteKind::GrpcRoute,
                "TLSRoute" => RouteKind::TlsRoute,
                _ => continue,
            };
            let mut hosts: Vec<Option<String>> = r.spec.hostnames.iter().map(|h| Some(normalize(h))).collect();
            if hosts.is_empty() {
                // No hostnames: the route takes the hostnames of the listeners it attached to.
                hosts = attached_listeners(graph, model, id)
                    .iter()
                    .map(|(_, l)| l.hostname.as_deref().map(normalize))
                    .collect();
                if hosts.is_empty() {
                    hosts.push(None);
                }
            }
            ix.add_all(id, kind, hosts);
        }
        for (id, o, r) in graph.each::<views::TraefikRoute>() {
            let kind = if o.kind.kind == "IngressRouteTCP" { RouteKind::TraefikTcp } else { RouteKind::TraefikHttp };
            let mut hosts: Vec<Option<String>> = Vec::new();
            for rule in &r.spec.routes {
                match traefik_rule::parse(&rule.rule) {
                    Ok(e) => {
                        let hs = e.hosts();
                        if hs.is_empty() {
                            hosts.push(None);
                        }
                        hosts.extend(hs.iter().map(|h| Some(normalize(h))));
                    }
                    Err(_) => hosts.push(None),
                }
            }
            ix.add_all(id, kind, hosts);
        }
        ix
    }

    fn add_all(&mut self, route: ObjId, kind: RouteKind, mut hosts: Vec<Option<String>>) {
        hosts.dedup();
        for host in hosts {
            let i = self.sources.len();
            match &host {
                Some(h) if !h.contains('*') => self.exact.entry(h.as_str().into()).or_default().push(i),
                _ => self.loose.push(i),
            }
            self.sources.push(Source { route, kind, host: host.map(Into::into) });
        }
    }

    /// The claims on `t`, best first (exact host, then longest path).
    pub fn claims(&self, t: &TraceTarget) -> Vec<Claim> {
        let mut routes: Vec<(ObjId, RouteKind)> = Vec::new();
        let exact = self.exact.get(t.host.as_str()).map_or(&[][..], Vec::as_slice);
        for &i in exact.iter().chain(&self.loose) {
            let s = &self.sources[i];
            if s.host.as_deref().is_some_and(|p| !pattern_matches(p, &t.host, s.kind == RouteKind::Ingress)) {
                continue;
            }
            routes.push((s.route, s.kind));
        }
        // A route claims a host once however many of its rules name it (the claims are ordered below). Sorted,
        // not searched: one host can be claimed by every route of a large repository.
        routes.sort_by_key(|(id, _)| *id);
        routes.dedup();
        let mut out: Vec<Claim> = routes
            .into_iter()
            .filter_map(|(id, kind)| match kind {
                RouteKind::Ingress => self.ingress_claim(id, t),
                RouteKind::HttpRoute | RouteKind::GrpcRoute | RouteKind::TlsRoute => self.route_claim(id, kind, t),
                RouteKind::TraefikHttp | RouteKind::TraefikTcp => self.traefik_claim(id, kind, t),
            })
            .collect();
        out.sort_by(|a, b| {
            (a.host_rank, std::cmp::Reverse(a.path_len), a.listeners.is_empty(), a.route).cmp(&(
                b.host_rank,
                std::cmp::Reverse(b.path_len),
                b.listeners.is_empty(),
                b.route,
            ))
        });
        out
    }

    /// Every exact host the inventory claims, as targets: https when a claim serves TLS for it.
    pub fn hosts(&self) -> Vec<TraceTarget> {
        self.hosts_claimed().into_iter().map(|(t, _)| t).collect()
    }

    /// [`ClaimIndex::hosts`], each with its [`ClaimIndex::claims`] (worked out in parallel).
    pub fn hosts_claimed(&self) -> Vec<(TraceTarget, Vec<Claim>)> {
        self.claimed_hosts().into_par_iter().filter_map(|h| self.host_claimed(h)).collect()
    }

    /// The exact hosts claims name, sorted.
    pub fn claimed_hosts(&self) -> Vec<&str> {
        let mut hosts: Vec<&str> = self.exact.keys().map(|h| h.as_str()).collect();
        hosts.sort_unstable();
        hosts
    }

    /// The request at which `h` (one of [`ClaimIndex::claimed_hosts`]) is diagnosed, and its claims; `None` for
    /// a name that is no host yet.
    pub fn host_claimed(&self, h: &str) -> Option<(TraceTarget, Vec<Claim>)> {
        // A placeholder (`portal.${domain}`) is no host yet: nothing to diagnose.
        if edgecheck_core::hostname::malformed(h).is_some() || edgecheck_core::placeholder::unresolved(h) {
            return None;
        }
        let https = self.exact[h].iter().any(|&i| self.serves_tls(self.sources[i].route, self.sources[i].kind, h));
        let scheme = if https { "https" } else { "http" };
        let t = TraceTarget::parse(&format!("{scheme}://{h}/"))?;
        let claims = self.claims(&t);
        if claims.iter().any(taken) {
            return Some((t, claims));
        }
        // Claimed only below `/` (a `PathPrefix: /v1/` route, a webhook's `/hook/` beside an HTTP-to-HTTPS
        // redirect that no HTTPS listener takes), or only on another port (a TLS passthrough listener on
        // 9094): diagnose a request that a claim takes, so the host is neither unclaimed nor judged by a
        // request nobody routes.
        let mut others: Vec<String> =
            self.exact[h].iter().flat_map(|&i| self.listener_roots(self.sources[i].route, h)).collect();
        others.sort_unstable();
        others.dedup();
        let roots = std::iter::once(format!("{scheme}://{h}")).chain(others);
        // Else the first request claimed at all (`/` first), else `/` unclaimed.
        let mut first_claimed = None;
        let mut seen = std::collections::HashSet::new();
        let paths: Vec<String> = std::iter::once("/".to_string())
            .chain(self.exact[h].iter().flat_map(|&i| self.paths_of(self.sources[i].route)))
            .filter(|p| seen.insert(p.clone()))
            .collect();
        for root in roots {
            for p in &paths {
                let Some(t) = TraceTarget::parse(&format!("{root}{p}")) else { continue };
                let c = self.claims(&t);
                if c.iter().any(taken) {
                    return Some((t, c));
                }
                if first_claimed.is_none() && !c.is_empty() {
                    first_claimed = Some((t, c));
                }
            }
        }
        Some(first_claimed.unwrap_or((t, claims)))
    }

    /// `scheme://host:port` for each listener a Gateway API route is attached to, other than the scheme's
    /// default port: where else the route may take the host.
    fn listener_roots(&self, route: ObjId, host: &str) -> Vec<String> {
        attached_listeners(self.graph, self.model, route)
            .into_iter()
            .filter_map(|(_, l)| {
                let scheme = match l.protocol.as_str() {
                    "HTTPS" | "TLS" => "https",
                    "HTTP" => "http",
                    _ => return None,
                };
                let port = u16::try_from(l.port).ok()?;
                let default = if scheme == "https" { 443 } else { 80 };
                (port != default).then(|| format!("{scheme}://{host}:{port}"))
            })
            .collect()
    }

    /// The paths a route's rules match (Ingress `paths[].path`, Gateway API `matches[].path.value`, Traefik
    /// `Path`/`PathPrefix`), sorted, `/` left out.
    fn paths_of(&self, route: ObjId) -> Vec<String> {
        let o = self.graph.obj(route);
        let mut out: Vec<String> = Vec::new();
        fn arr(v: Option<ValueRef<'_>>) -> edgecheck_core::SeqRef<'_> {
            v.and_then(ValueRef::as_array).unwrap_or_default()
        }
        for rule in arr(o.value.pointer("/spec/rules")) {
            for p in arr(rule.pointer("/http/paths")) {
                out.extend(p.get("path").and_then(ValueRef::as_str).map(str::to_string));
            }
            for m in arr(rule.get("matches")) {
                out.extend(m.pointer("/path/value").and_then(ValueRef::as_str).map(str::to_string));
            }
        }
        for r in arr(o.value.pointer("/spec/routes")) {
            let text = r.get("match").and_then(ValueRef::as_str).unwrap_or("");
            for key in ["PathPrefix(`", "Path(`"] {
                for part in text.split(key).skip(1) {
                    out.extend(part.split('`').next().map(str::to_string));
                }
            }
        }
        out.retain(|p| p.starts_with('/') && p != "/" && !p.contains(['{', '(', '*', ' ']));
        out.sort();
        out.dedup();
        out
    }

    fn serves_tls(&self, route: ObjId, kind: RouteKind, host: &str) -> bool {
        let g = self.graph;
        match kind {
            RouteKind::Ingress => {
                g.view::<views::Ingress>(route).is_some_and(|ing| match self.ingress_rules.get(&route) {
                    Some(ix) => !ix.tls_for(ing, host).is_empty(),
                    None => ing.spec.tls.iter().any(|t| {
                        t.hosts.is_empty() || t.hosts.iter().any(|p| pattern_matches(&normalize(p), host, true))
                    }),
                })
            }
            RouteKind::TlsRoute => true,
            RouteKind::HttpRoute | RouteKind::GrpcRoute => attached_listeners(g, self.model, route)
                .iter()
                .any(|(_, l)| matches!(l.protocol.as_str(), "HTTPS" | "TLS")),
            RouteKind::TraefikHttp | RouteKind::TraefikTcp => {
                g.view::<views::TraefikRoute>(route).is_some_and(|r| r.spec.tls.is_some())
            }
        }
    }

    fn ingress_claim(&self, id: ObjId, t: &TraceTarget) -> Option<Claim> {
        let o = self.graph.obj(id);
        let ing = self.graph.view::<views::Ingress>(id)?;
        let mut best: Option<(u8, usize, usize, Option<usize>, String)> = None; // rank, len, rule, path, how
                                                                                // The rules that can match `t.host`, in rule order (the first of equals wins).
        let mut candidates: Vec<usize> = match self.ingress_rules.get(&id) {
            Some(ix) => ix.exact.get(&t.host).into_iter().flatten().chain(&ix.other).copied().collect(),
            None => (0..ing.spec.rules.len()).collect(),
        };
        candidates.sort_unstable();
        for (ri, rule) in candidates.into_iter().filter_map(|ri| ing.spec.rules.get(ri).map(|r| (ri, r))) {
            let rank = match rule.host.as_deref().map(normalize) {
                None => 2,
                Some(h) if h == t.host => 0,
                Some(h) if pattern_matches(&h, &t.host, true) => 1,
                Some(_) => continue,
            };
            for (pi, p) in rule.http.iter().flat_map(|h| h.paths.iter().enumerate()) {
                let path = p.path.as_deref().unwrap_or("/");
                let ty = p.path_type.as_deref().unwrap_or("ImplementationSpecific");
                let Some(len) = ingress_path_match(ty, path, &t.path) else { continue };
                let better =
                    best.as_ref().is_none_or(|b| (rank, std::cmp::Reverse(len)) < (b.0, std::cmp::Reverse(b.1)));
                if better {
                    let host = rule.host.as_deref().unwrap_or("*");
                    best = Some((rank, len, ri, Some(pi), format!("rule host {host} path {path} ({ty})")));
                }
            }
        }
        let (rank, len, rule, how, fields) = match best {
            Some((rank, len, ri, Some(pi), how)) => {
                (rank, len, Some(ri), how, vec![format!("spec.rules[{ri}].http.paths[{pi}].backend")])
            }
            _ => {
                let field = if ing.spec.default_backend.is_some() {
                    "spec.defaultBackend"
                } else if ing.spec.backend.is_some() {
                    "spec.backend"
                } else {
                    return None;
                };
                (3, 0, None, "default backend".to_string(), vec![field.to_string()])
            }
        };
        let tls_fields: Vec<String> = if t.tls() {
            let entries: Vec<usize> = match self.ingress_rules.get(&id) {
                Some(ix) => ix.tls_for(ing, &t.host),
                None => (0..ing.spec.tls.len()).collect(),
            };
            entries
                .into_iter()
                .filter(|&i| {
                    ing.spec.tls.get(i).is_some_and(|tls| {
                        tls.hosts.is_empty() || tls.hosts.iter().any(|p| pattern_matches(&normalize(p), &t.host, true))
                    })
                })
                .map(|i| format!("spec.tls[{i}].secretName"))
                .collect()
        } else {
            Vec::new()
        };
        let passthrough = o.annotation("nginx.ingress.kubernetes.io/ssl-passthrough") == Some("true");
        Some(Claim {
            route: id,
            kind: RouteKind::Ingress,
            rule,
            backend_fields: fields,
            tls_fields,
            listeners: Vec::new(),
            passthrough,
            host_rank: rank,
            path_len: len,
            how: format!("Ingress {how}"),
        })
    }

    fn route_claim(&self, id: ObjId, kind: RouteKind, t: &TraceTarget) -> Option<Claim> {
        let r = self.graph.view::<views::Route>(id)?;
        let route_hosts: Vec<String> = r.spec.hostnames.iter().map(|h| normalize(h)).collect();
        let mut listeners = Vec::new();
        let mut passthrough = false;
        let mut rank = if route_hosts.contains(&t.host) {
            0
        } else if route_hosts.is_empty() {
            2
        } else {
            1
        };
        for (owner, l) in attached_listeners(self.graph, self.model, id) {
            if l.port != i64::from(t.port) {
                continue;
            }
            let proto_ok = match kind {
                RouteKind::TlsRoute => l.protocol == "TLS",
                _ if t.tls() => l.protocol == "HTTPS" || (l.protocol == "TLS" && tls_mode(&l) == "Terminate"),
                _ => l.protocol == "HTTP",
            };
            if !proto_ok {
                continue;
            }
            let host_ok = match l.hostname.as_deref() {
                None => true,
                Some(lh) => gateway_intersect(Some(lh), &t.host).is_some(),
            };
            if !host_ok {
                continue;
            }
            if route_hosts.is_empty() && l.hostname.as_deref().map(normalize).as_deref() == Some(t.host.as_str()) {
                rank = 0;
            }
            if l.protocol == "TLS" && tls_mode(&l) == "Passthrough" {
                passthrough = true;
            }
            listeners.push((owner, l.name.clone()));
        }
        if kind == RouteKind::TlsRoute {
            passthrough = passthrough || listeners.is_empty();
        }
        // The rule: longest matching path (HTTPRoute); every rule matches a gRPC or TLS request.
        let mut best: Option<(usize, usize, String)> = None;
        for (ri, rule) in r.spec.rules.iter().enumerate() {
            let m = if kind == RouteKind::HttpRoute {
                route_rule_path_match(&rule.matches, &t.path)
            } else {
                Some((0, String::new()))
            };
            if let Some((len, how)) = m {
                if best.as_ref().is_none_or(|b| len > b.0) {
                    best = Some((len, ri, how));
                }
            }
        }
        let (len, ri, how) = best?;
        let names: Vec<&str> = listeners.iter().map(|(_, n)| n.as_str()).collect();
        let how = format!(
            "{} rule {ri}{}{}",
            self.graph.obj(id).kind.kind,
            if how.is_empty() { String::new() } else { format!(" path {how}") },
            if names.is_empty() {
                " (attached to no listener on this port)".into()
            } else {
                format!(" via listener {}", names.join(", "))
            }
        );
        Some(Claim {
            route: id,
            kind,
            rule: Some(ri),
            backend_fields: vec![format!("spec.rules[{ri}].backendRefs")],
            tls_fields: Vec::new(),
            listeners,
            passthrough,
            host_rank: rank,
            path_len: len,
            how,
        })
    }

    fn traefik_claim(&self, id: ObjId, kind: RouteKind, t: &TraceTarget) -> Option<Claim> {
        let r = self.graph.view::<views::TraefikRoute>(id)?;
        let tcp = kind == RouteKind::TraefikTcp;
        let req = Request { host: &t.host, path: if tcp { None } else { Some(&t.path) } };
        let mut best: Option<(u8, usize, usize)> = None; // rank, priority (rule length), index
        for (ri, rule) in r.spec.routes.iter().enumerate() {
            let Ok(expr) = traefik_rule::parse(&rule.rule) else { continue };
            if expr.matches(&req) == RuleVerdict::No {
                continue;
            }
            let hosts = expr.hosts();
            let rank = if hosts.iter().any(|h| normalize(h) == t.host) {
                0
            } else if hosts.is_empty() {
                2
            } else {
                1
            };
            let prio = rule.rule.len();
            if best.is_none_or(|b| (rank, std::cmp::Reverse(prio)) < (b.0, std::cmp::Reverse(b.1))) {
                best = Some((rank, prio, ri));
            }
        }
        let (rank, prio, ri) = best?;
        let tls = r.spec.tls.as_ref();
        let passthrough = tls.and_then(|t| t.passthrough).unwrap_or(false);
        let tls_fields = if t.tls() && tls.is_some_and(|x| x.secret_name.is_some()) {
            vec!["spec.tls.secretName".to_string()]
        } else {
            Vec::new()
        };
        Some(Claim {
            route: id,
            kind,
            rule: Some(ri),
            backend_fields: vec![format!("spec.routes[{ri}].services")],
            tls_fields,
            listeners: Vec::new(),
            passthrough,
            host_rank: rank,
            path_len: prio,
            how: format!("{} route {ri}: {}", self.graph.obj(id).kind.kind, r.spec.routes[ri].rule),
        })
    }
}

/// Listeners a route attached to (from the status model), with their owners.
pub(crate) fn attached_listeners(graph: &Graph, model: &Model, route: ObjId) -> Vec<(ObjId, Listener)> {
    let mut out = Vec::new();
    for a in model.gateway.attachments.get(&route).into_iter().flatten() {
        let ls: Vec<Listener> = if let Some(gw) = graph.view::<views::Gateway>(a.owner) {
            gw.spec.listeners.clone()
        } else if let Some(set) = graph.view::<views::ListenerSet>(a.owner) {
            set.spec.listeners.clone()
        } else {
            Vec::new()
        };
        for l in ls {
            if a.listeners.contains(&l.name) {
                out.push((a.owner, l));
            }
        }
    }
    out
}

/// Host pattern matching: exact, or `*.` wildcards (Ingress: exactly one label; Gateway API and
/// Traefik: one or more).
fn pattern_matches(pattern: &str, host: &str, one_label: bool) -> bool {
    match pattern.strip_prefix("*.") {
        None => pattern == host,
        Some(suffix) => match host.strip_suffix(suffix).and_then(|p| p.strip_suffix('.')) {
            Some(prefix) => !prefix.is_empty() && (!one_label || !prefix.contains('.')),
            None => false,
        },
    }
}

/// Ingress path matching: `Exact`, `Prefix` (by path element), `ImplementationSpecific` (string
/// prefix, as ingress-nginx does). The length of the matched path, when it matches.
fn ingress_path_match(path_type: &str, path: &str, request: &str) -> Option<usize> {
    match path_type {
        "Exact" => (path == request).then_some(path.len()),
        "Prefix" => {
            let p = path.trim_end_matches('/');
            (p.is_empty() || request == p || request.starts_with(&format!("{p}/"))).then_some(path.len())
        }
        _ => request.starts_with(path).then_some(path.len()),
    }
}

/// HTTPRoute match: the longest matching path of a rule's matches (no matches = `/` prefix).
fn route_rule_path_match(matches: &[edgecheck_core::views::RouteMatch], request: &str) -> Option<(usize, String)> {
    if matches.is_empty() {
        return Some((1, String::new()));
    }
    let mut best: Option<(usize, String)> = None;
    for m in matches {
        let ty = m.path.as_ref().and_then(|p| p.type_.as_deref()).unwrap_or("PathPrefix");
        let value = m.path.as_ref().and_then(|p| p.value.as_deref()).unwrap_or("/");
        let hit = match ty {
            "Exact" => value == request,
            "RegularExpression" => regex::Regex::new(&format!("^(?:{value})$")).is_ok_and(|re| re.is_match(request)),
            _ => {
                let p = value.trim_end_matches('/');
                p.is_empty() || request == p || request.starts_with(&format!("{p}/"))
            }
        };
        if hit && best.as_ref().is_none_or(|b| value.len() + 1 > b.0) {
            best = Some((value.len() + 1, format!("{value} ({ty})")));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An Ingress's rules read in turn and looked up by host claim alike: by exact host, by wildcard, by
    /// path, with `tls` entries of exact and wildcard hosts.
    #[test]
    fn indexed_and_unindexed_ingress_rules_claim_alike() {
        let rules: String = (0..20)
            .map(|i| {
                let host = match i % 4 {
                    0 => format!("h{i}.example.com"),
                    1 => "*.example.com".to_string(),
                    2 => "shop.example.com".to_string(),
                    _ => format!("a{i}.example.org"),
                };
                format!(
                    "    - host: \"{host}\"\n      http: {{paths: [{{path: /p{i}, pathType: Prefix, backend: {{service: {{name: s{i}, port: {{number: 80}}}}}}}}]}}\n"
                )
            })
            .collect();
        let yaml = format!(
            "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {{name: big, namespace: web}}\nspec:\n  tls:\n    - {{hosts: [shop.example.com], secretName: a}}\n    - {{hosts: ['*.example.com'], secretName: b}}\n    - {{secretName: c}}\n  rules:\n{rules}"
        );
        let options = edgecheck_core::Options::default();
        let graph = Graph::build(edgecheck_load::load_text("t.yaml", &yaml), &options);
        let model = Model::compute(&graph, crate::test_support::NOW);
        let (read, looked_up) =
            (ClaimIndex::indexing(&graph, &model, usize::MAX), ClaimIndex::indexing(&graph, &model, 0));
        assert!(read.ingress_rules.is_empty() && looked_up.ingress_rules.len() == 1);
        let mut claimed = 0;
        for url in [
            "https://shop.example.com/p2/x",
            "https://shop.example.com/p6",
            "https://shop.example.com/none",
            "https://h4.example.com/p4",
            "https://h4.example.com/p1",
            "https://other.example.com/p5",
            "https://a3.example.org/p3",
            "https://a3.example.org/p7",
            "http://nobody.example.net/",
        ] {
            let t = TraceTarget::parse(url).expect("url");
            let (a, b) = (read.claims(&t), looked_up.claims(&t));
            assert_eq!(a, b, "{url}");
            claimed += usize::from(!a.is_empty());
        }
        assert!(claimed >= 6, "the URLs are claimed: {claimed}");
    }

    #[test]
    fn host_patterns() {
        assert!(pattern_matches("a.example.com", "a.example.com", true));
        assert!(pattern_matches("*.example.com", "a.example.com", true));
        assert!(!pattern_matches("*.example.com", "a.b.example.com", true));
        assert!(pattern_matches("*.example.com", "a.b.example.com", false));
        assert!(!pattern_matches("*.example.com", "example.com", false));
        assert!(!pattern_matches("*.example.com", "badexample.com", false));
    }

    #[test]
    fn ingress_paths() {
        assert_eq!(ingress_path_match("Prefix", "/api", "/api/v1"), Some(4));
        assert_eq!(ingress_path_match("Prefix", "/api", "/apiv1"), None);
        assert_eq!(ingress_path_match("Prefix", "/", "/x"), Some(1));
        assert_eq!(ingress_path_match("Exact", "/a", "/a/"), None);
        assert_eq!(ingress_path_match("ImplementationSpecific", "/api", "/apiv1"), Some(4));
    }

    #[test]
    fn route_paths() {
        let m: Vec<edgecheck_core::views::RouteMatch> = serde_json::from_str(
            r#"[{"path":{"type":"PathPrefix","value":"/api"}},{"path":{"type":"Exact","value":"/login"}},
                {"headers":[{"name":"x","value":"y"}]}]"#,
        )
        .unwrap_or_default();
        assert_eq!(m.len(), 3);
        assert_eq!(route_rule_path_match(&m, "/api/x"), Some((5, "/api (PathPrefix)".into())));
        assert_eq!(route_rule_path_match(&m, "/login"), Some((7, "/login (Exact)".into())));
        // A match of headers alone matches every path, as `/` (PathPrefix).
        assert_eq!(route_rule_path_match(&m, "/other"), Some((2, "/ (PathPrefix)".into())));
        assert_eq!(route_rule_path_match(&m[..2], "/other"), None);
        // Read leniently, as the raw matches were: odd items are matches without a path.
        let odd: Vec<edgecheck_core::views::RouteMatch> =
            serde_json::from_str(r#"[null, "x", {"path": "/x"}, {"path": {"type": 5, "value": "/v"}}]"#)
                .unwrap_or_default();
        assert_eq!(odd.len(), 4);
        assert!(odd[..3].iter().all(|m| m.path.is_none()));
        assert_eq!(route_rule_path_match(&odd[3..], "/v/w"), Some((3, "/v (PathPrefix)".into())));
        assert!(route_rule_path_match(&[], "/other").is_some());
    }
}
