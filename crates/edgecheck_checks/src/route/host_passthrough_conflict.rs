use std::collections::{HashMap, HashSet};

use edgecheck_core::graph::{EdgeKind, Target};
use edgecheck_core::hostname::{gateway_intersect, normalize};
use edgecheck_core::kind::K;
use edgecheck_core::views::{Gateway, Ingress, ListenerSet, Route, TraefikRoute};
use edgecheck_core::{Findings, Layer, ObjId, Object, Severity};

use crate::dns::hostname_malformed::traefik_hosts;
use crate::framework::{declare_check, CheckContext};

/// The ingress-nginx annotation that hands TLS for an Ingress's hosts to its backend.
const SSL_PASSTHROUGH: &str = "nginx.ingress.kubernetes.io/ssl-passthrough";

/// One claim of a host: who, where in the object, on which shared address, and whether it passes TLS
/// through.
struct Claim<'a> {
    obj: &'a Object,
    path: String,
    address: String,
    host: String,
    passthrough: bool,
}

declare_check! {
    /// ## What it checks
    /// The same host on a TLS-passthrough route and a TLS-terminating route of the same address:
    /// - ingress-nginx: an Ingress with `nginx.ingress.kubernetes.io/ssl-passthrough: "true"` and
    ///   another Ingress of the same class without it, sharing a rule host;
    /// - Traefik: an IngressRouteTCP with `tls.passthrough: true` matching `HostSNI(host)` and an
    ///   IngressRoute with `Host(host)` on a shared entry point;
    /// - Gateway API: a TLSRoute attached to a `TLS` listener in `Passthrough` mode and an HTTPRoute
    ///   attached to an `HTTPS` listener on the same Gateway and port, with the same hostname (route
    ///   `hostnames`, else the listener's `hostname`);
    /// - Gateway API across Gateways: a host a TLSRoute passes through on one Gateway and an HTTPRoute
    ///   serves (HTTP or HTTPS) on another. The hosts are those the model attached the routes with, as
    ///   the spec intersects route and listener hostnames; a wildcard that remains is not compared (an
    ///   exact DNS record beside a wildcard one is ordinary). Two Gateways that request the same static
    ///   address are one address.
    ///
    /// ## Why it matters
    /// TLS for the host is decided before any HTTP is read. ingress-nginx's passthrough proxy sends
    /// every connection with that SNI to the passthrough backend, and Traefik's TCP routers take
    /// precedence over HTTP routers on the same entry point: the terminating route's paths are never
    /// reached over HTTPS, and clients see the passthrough backend's certificate and answers. On two
    /// Gateways the host has two addresses, and DNS can point at only one of them: one route is never
    /// reached by its name, and the other stays open as a stale or insecure door (plaintext, or the
    /// Gateway's certificate in front of a service meant to do its own TLS).
    ///
    /// ## Example
    /// IngressRouteTCP `vault` (`HostSNI(\`vault.example.com\`)`, `tls.passthrough: true`) and
    /// IngressRoute `vault-ui` (`Host(\`vault.example.com\`)`), both on entry point `websecure`.
    ///
    /// ## How to fix
    /// Serve the host one way: move the terminating route to another host or entry point, or drop the
    /// passthrough and terminate TLS at the proxy for all of the host's traffic. Across Gateways, remove
    /// the route from the Gateway DNS does not point at.
    pub(crate) struct HostPassthroughConflict {
        code: "RTE037", name: "host-passthrough-conflict", layer: Layer::Route, severity: Severity::Error,
    }
}

impl HostPassthroughConflict {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let mut claims: Vec<Claim<'_>> = Vec::new();
        for (id, o, ing) in cx.graph.each::<Ingress>() {
            let class = cx
                .graph
                .edges_from_kind(id, EdgeKind::IngressClass)
                .next()
                .map(|e| match &e.to {
                    Target::Found(c) => cx.graph.obj(*c).name.to_string(),
                    Target::Missing(r) => r.name.clone(),
                })
                .unwrap_or_default();
            let passthrough = o.annotation(SSL_PASSTHROUGH).is_some_and(|v| v.trim() == "true");
            for (i, r) in ing.spec.rules.iter().enumerate() {
                if let Some(h) = &r.host {
                    claims.push(Claim {
                        obj: o,
                        path: format!("spec.rules[{i}].host"),
                        address: format!("IngressClass `{class}`"),
                        host: normalize(h),
                        passthrough,
                    });
                }
            }
        }
        for (_, o, r) in cx.graph.each::<TraefikRoute>() {
            let tcp = o.is(K::TRAEFIK_INGRESS_ROUTE_TCP) || o.is(K::TRAEFIK_OLD_INGRESS_ROUTE_TCP);
            let passthrough = tcp && r.spec.tls.as_ref().and_then(|t| t.passthrough) == Some(true);
            if tcp && !passthrough {
                continue;
            }
            for (i, rule) in r.spec.routes.iter().enumerate() {
                for h in traefik_hosts(&rule.rule).into_iter().filter(|h| h != "*") {
                    for ep in &r.spec.entry_points {
                        claims.push(Claim {
                            obj: o,
                            path: format!("spec.routes[{i}].match"),
                            address: format!("entry point `{ep}`"),
                            host: normalize(&h),
                            passthrough,
                        });
                    }
                }
            }
        }
        for (id, o, r) in cx.graph.each::<Route>() {
            let passthrough = o.is(K::TLS_ROUTE);
            if !passthrough && !o.is(K::HTTP_ROUTE) {
                continue;
            }
            for (pi, e) in cx.graph.edges_from_kind(id, EdgeKind::ParentRef).enumerate() {
                let Some(gid) = e.to.found() else { continue };
                let Some(gw) = cx.graph.view::<Gateway>(gid) else { continue };
                let gref = cx.graph.obj(gid).to_ref();
                for l in &gw.spec.listeners {
                    if e.section().is_some_and(|s| s != l.name) {
                        continue;
                    }
                    let mode_passthrough = l
                        .tls
                        .as_ref()
                        .and_then(|t| t.mode.as_deref())
                        .is_some_and(|m| m.eq_ignore_ascii_case("Passthrough"));
                    let fits = if passthrough {
                        l.protocol.eq_ignore_ascii_case("TLS") && mode_passthrough
                    } else {
                        l.protocol.eq_ignore_ascii_case("HTTPS") && !mode_passthrough
                    };
                    if !fits {
                        continue;
                    }
                    let hosts: Vec<&str> = if r.spec.hostnames.is_empty() {
                        l.hostname.iter().map(edgecheck_core::Str::as_str).collect()
                    } else {
                        r.spec.hostnames.iter().map(edgecheck_core::Str::as_str).collect()
                    };
                    for h in hosts.iter().filter(|h| !h.starts_with('*')) {
                        claims.push(Claim {
                            obj: o,
                            path: if r.spec.hostnames.is_empty() {
                                format!("spec.parentRefs[{pi}]")
                            } else {
                                "spec.hostnames".to_string()
                            },
                            address: format!("{gref} port {}", l.port),
                            host: normalize(h),
                            passthrough,
                        });
                    }
                }
            }
        }
        cross_gateway(cx, out);
        // The passthrough claims by (host, address), in order; consecutive claims of one object (its rules,
        // entry points) are kept once, so that a lookup is a few comparisons however many rules there are.
        let mut passthrough: HashMap<(&str, &str), Vec<&Claim<'_>>> = HashMap::new();
        for p in claims.iter().filter(|c| c.passthrough) {
            let bucket = passthrough.entry((p.host.as_str(), p.address.as_str())).or_default();
            if bucket.last().is_none_or(|last| !std::ptr::eq(last.obj, p.obj)) {
                bucket.push(p);
            }
        }
        let mut reported: HashSet<(String, String, String)> = HashSet::new();
        for t in claims.iter().filter(|c| !c.passthrough) {
            let Some(p) = passthrough
                .get(&(t.host.as_str(), t.address.as_str()))
                .and_then(|b| b.iter().find(|p| p.obj.to_ref() != t.obj.to_ref()))
            else {
                continue;
            };
            if !reported.insert((t.obj.to_ref().to_string(), t.host.clone(), t.address.clone())) {
                continue;
            }
            out.at(t.obj, &t.path)
                .message(format!(
                    "{} terminates TLS for {} on {}, where {} passes TLS for that host through; its routes are never reached over HTTPS",
                    t.obj.to_ref(),
                    t.host,
                    t.address,
                    p.obj.to_ref()
                ))
                .evidence(format!("{} {}: {} (terminating)", t.obj.to_ref(), t.path, t.host))
                .evidence(format!("{} {}: {} (TLS passthrough)", p.obj.to_ref(), p.path, p.host))
                .related(p.obj.to_ref())
                .fix("serve the host either with passthrough or with termination, not both on one address")
                .emit();
        }
    }
}

/// A host a route attached with on one Gateway: the route, the Gateway, the listener's protocol.
struct GatewayClaim<'a> {
    route: &'a Object,
    /// The field naming the host (`spec.hostnames`, or the parentRef when the listener's hostname is it).
    field: &'static str,
    gateway: ObjId,
    protocol: String,
}

/// The exact hosts a route serves on a listener: its hostnames intersected with the listener's (the
/// listener's own when the route names none); wildcards and placeholders are left out.
fn effective_hosts(route_hosts: &[edgecheck_core::Str], listener: Option<&str>) -> Vec<String> {
    let hosts: Vec<String> = if route_hosts.is_empty() {
        listener.map(normalize).into_iter().collect()
    } else {
        route_hosts.iter().filter_map(|h| gateway_intersect(listener, h)).collect()
    };
    hosts.into_iter().filter(|h| !h.starts_with('*') && !edgecheck_core::placeholder::unresolved(h)).collect()
}

/// The Gateway a route's parent is (itself, or the Gateway of a ListenerSet), with the listeners the
/// route attached to.
fn attached_listeners<'g>(
    cx: &'g CheckContext<'_>,
    owner: ObjId,
    names: &'g [edgecheck_core::Str],
) -> Option<(ObjId, Vec<&'g edgecheck_core::views::Listener>)> {
    let (gateway, listeners) = match cx.graph.view::<Gateway>(owner) {
        Some(g) => (owner, &g.spec.listeners),
        None => {
            let set = cx.graph.view::<ListenerSet>(owner)?;
            let gw = cx.graph.edges_from_kind(owner, EdgeKind::ParentRef).find_map(|e| e.to.found())?;
            (gw, &set.spec.listeners)
        }
    };
    Some((gateway, listeners.iter().filter(|l| names.contains(&l.name)).collect()))
}

/// Whether two Gateways request the same static address (one address, not two).
fn same_address(cx: &CheckContext<'_>, a: ObjId, b: ObjId) -> bool {
    let addrs = |id| -> Vec<String> {
        cx.graph
            .view::<Gateway>(id)
            .map(|g| g.spec.addresses.iter().filter_map(|a| a.get("value")?.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    };
    let (x, y) = (addrs(a), addrs(b));
    x.iter().any(|v| y.contains(v))
}

/// A host a TLSRoute passes through on one Gateway and an HTTPRoute serves on another.
fn cross_gateway(cx: &CheckContext<'_>, out: &mut Findings<'_>) {
    let mut passthrough: HashMap<String, Vec<GatewayClaim<'_>>> = HashMap::new();
    let mut served: Vec<(String, GatewayClaim<'_>)> = Vec::new();
    for (id, o, r) in cx.graph.each::<Route>() {
        let tls = o.is(K::TLS_ROUTE);
        if !tls && !o.is(K::HTTP_ROUTE) {
            continue;
        }
        let field = if r.spec.hostnames.is_empty() { "spec.parentRefs" } else { "spec.hostnames" };
        for a in cx.model.gateway.attachments.get(&id).into_iter().flatten() {
            let Some((gateway, listeners)) = attached_listeners(cx, a.owner, &a.listeners) else { continue };
            for l in listeners {
                let pass = l.protocol == "TLS" && crate::model::gateway::tls_mode(l) == "Passthrough";
                if tls != pass || (!tls && !matches!(l.protocol.as_str(), "HTTP" | "HTTPS")) {
                    continue;
                }
                for h in effective_hosts(&r.spec.hostnames, l.hostname.as_deref()) {
                    let c = GatewayClaim { route: o, field, gateway, protocol: l.protocol.to_string() };
                    if tls {
                        passthrough.entry(h).or_default().push(c);
                    } else {
                        served.push((h, c));
                    }
                }
            }
        }
    }
    let mut reported: HashSet<(String, String, ObjId)> = HashSet::new();
    for (host, t) in &served {
        let Some(p) = passthrough
            .get(host)
            .and_then(|ps| ps.iter().find(|p| p.gateway != t.gateway && !same_address(cx, p.gateway, t.gateway)))
        else {
            continue;
        };
        if !reported.insert((t.route.to_ref().to_string(), host.clone(), t.gateway)) {
            continue;
        }
        let (tg, pg) = (cx.graph.obj(t.gateway).to_ref(), cx.graph.obj(p.gateway).to_ref());
        out.at(t.route, t.field)
            .message(format!(
                "{} serves {host} ({}) on {tg}, while {} passes TLS for {host} through on {pg}: two Gateways, two addresses, and DNS can point at only one of them",
                t.route.to_ref(),
                t.protocol,
                p.route.to_ref()
            ))
            .evidence(format!("{} {}: {host} on {tg} ({})", t.route.to_ref(), t.field, t.protocol))
            .evidence(format!("{} {}: {host} on {pg} (TLS passthrough)", p.route.to_ref(), p.field))
            .related(p.route.to_ref())
            .related(tg)
            .related(pg)
            .fix("serve the host from one Gateway: remove the route from the Gateway its DNS name does not point at")
            .emit();
    }
}
