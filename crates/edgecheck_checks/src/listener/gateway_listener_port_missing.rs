use edgecheck_core::{Findings, Layer, Severity};

use crate::diagnose::claims::attached_listeners;
use crate::diagnose::RouteKind;
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A traced URL (`edgecheck trace`) whose host a Gateway API route claims, but no listener of the
    /// Gateway the route is attached to takes the URL's scheme and port: the route attaches only to
    /// listeners on other ports (`https://` to a Gateway whose listener for the route is `:80 HTTP`), or the
    /// listener on the port speaks the other protocol (`https://host:80/` to an HTTP listener,
    /// `http://host:443/` to an HTTPS one).
    ///
    /// ## Why it matters
    /// The request dies at the listener: nothing on that port accepts it (the connection is refused or
    /// reset, or a TLS handshake meets a plain HTTP server). Whatever is wrong further down is not what the
    /// user of that URL sees.
    ///
    /// ## Example
    /// ```yaml
    /// kind: Gateway
    /// spec:
    ///   listeners:
    ///   - {name: http, port: 80, protocol: HTTP}      # no HTTPS listener
    /// ---
    /// kind: HTTPRoute
    /// spec:
    ///   parentRefs: [{name: public}]
    ///   hostnames: [auth.example.com]                 # traced as https://auth.example.com/
    /// ```
    ///
    /// ## How to fix
    /// Add a listener on the port with the protocol the URL speaks (HTTPS on 443 with `tls.certificateRefs`
    /// for the host) and let the route attach to it, or use the URL the Gateway serves.
    pub(crate) struct GatewayListenerPortMissing {
        code: "LSN040", name: "gateway-listener-port-missing", layer: Layer::Listener, severity: Severity::Error,
    }
}

impl GatewayListenerPortMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for t in cx.targets {
            let Some(claim) = cx.paths.claims.claims(t).into_iter().next() else { continue };
            if !matches!(claim.kind, RouteKind::HttpRoute | RouteKind::GrpcRoute | RouteKind::TlsRoute) {
                continue;
            }
            let attached = attached_listeners(cx.graph, cx.model, claim.route);
            let route = cx.graph.obj(claim.route).to_ref();
            let speaks = |protocol: &str| matches!(protocol, "HTTPS" | "TLS");
            let describe = |l: &edgecheck_core::views::Listener| format!("`{}` :{} {}", l.name, l.port, l.protocol);
            let on_port = attached.iter().find(|(_, l)| u16::try_from(l.port).ok() == Some(t.port));
            match on_port {
                // Attached on this port: the listener must speak the URL's protocol.
                Some((owner, l)) => {
                    if speaks(&l.protocol) == t.tls() || !claim.listeners.is_empty() {
                        continue;
                    }
                    let o = cx.graph.obj(*owner);
                    let (said, spoken) = if t.tls() { ("TLS", "plain HTTP") } else { ("plain HTTP", "TLS") };
                    let index = listener_index(cx, *owner, &l.name);
                    out.at(o, &index.map(|i| format!("spec.listeners[{i}]")).unwrap_or_default())
                        .port(t.port)
                        .message(format!(
                            "{} listener {} speaks {spoken}, but {} speaks {said} to it: the request fails at the listener",
                            o.to_ref(),
                            describe(l),
                            t.target
                        ))
                        .evidence(format!("traced: {}", t.target))
                        .evidence(format!("{route} attaches to listener {}", describe(l)))
                        .related(route.clone())
                        .fix(format!(
                            "use {}://{}:{}/ or add an {} listener for the host on another port",
                            if speaks(&l.protocol) { "https" } else { "http" },
                            t.host,
                            l.port,
                            if t.tls() { "HTTPS" } else { "HTTP" }
                        ))
                        .emit();
                }
                // Attached, but on no listener of this port.
                None => {
                    let Some((owner, _)) = attached.first() else { continue };
                    let o = cx.graph.obj(*owner);
                    let on: Vec<String> =
                        attached.iter().filter(|(w, _)| w == owner).map(|(_, l)| describe(l)).collect();
                    out.at(o, "spec.listeners")
                        .port(t.port)
                        .message(format!(
                            "{} has no listener on port {} that takes {route}: {} is not served (the route is attached to {} only)",
                            o.to_ref(),
                            t.port,
                            t.target,
                            on.join(", ")
                        ))
                        .evidence(format!("traced: {}", t.target))
                        .evidence(format!("{route} attaches to {}", on.join(", ")))
                        .related(route.clone())
                        .fix(format!(
                            "add a listener on port {} with protocol {}{} for {} and attach {route} to it, or use the URL the Gateway serves",
                            t.port,
                            if t.tls() { "HTTPS" } else { "HTTP" },
                            if t.tls() { " and tls.certificateRefs" } else { "" },
                            t.host
                        ))
                        .emit();
                }
            }
        }
    }
}

fn listener_index(cx: &CheckContext<'_>, owner: edgecheck_core::ObjId, name: &str) -> Option<usize> {
    let ls = match cx.graph.view::<edgecheck_core::views::Gateway>(owner) {
        Some(g) => &g.spec.listeners,
        None => &cx.graph.view::<edgecheck_core::views::ListenerSet>(owner)?.spec.listeners,
    };
    ls.iter().position(|l| l.name == name)
}
