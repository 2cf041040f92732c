use edgecheck_core::kind::K;
use edgecheck_core::{EdgeKind, Findings, Layer, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Traefik IngressRoute whose `spec.tls.options` names a TLSOption (in `traefik.io` or the old
    /// `traefik.containo.us` group; Traefik reads both) that is not in the inputs. The TLSOption
    /// named `default` is implicit and never missing.
    ///
    /// Reported as docs/design.md "Absence" says: an error on a full cluster dump, a warning when the
    /// inventory holds other TLSOptions in that namespace, silent otherwise.
    ///
    /// ## Why it matters
    /// Traefik logs `unknown TLS options: <ns>-<name>@kubernetescrd` and serves the router with its
    /// default TLS settings, or, for some versions, refuses the router: the TLS policy the route
    /// asks for is not what clients get.
    ///
    /// ## Example
    /// IngressRoute `shop/web` with `tls: {secretName: web-tls, options: {name: modern}}` and no
    /// TLSOption `shop/modern` (it lives in namespace `traefik`, but the reference names no
    /// namespace).
    ///
    /// ## How to fix
    /// Create the TLSOption, or set `options.namespace` to where it lives, or drop the reference.
    pub(crate) struct TraefikTlsOptionMissing {
        code: "TLS008", name: "traefik-tls-option-missing", layer: Layer::Tls, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl TraefikTlsOptionMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for e in cx.graph.edges().iter().filter(|e| e.kind == EdgeKind::TlsOption) {
            let Target::Missing(r) = &e.to else { continue };
            if r.name == "default" {
                continue;
            }
            let Some(severity) = cx
                .absence(K::TRAEFIK_TLS_OPTION, r.namespace.as_deref())
                .or(cx.absence(K::TRAEFIK_OLD_TLS_OPTION, r.namespace.as_deref()))
            else {
                continue;
            };
            let from = cx.graph.obj(e.from);
            let mut b = out
                .at(from, &e.field)
                .severity(severity)
                .message(format!(
                    "{} asks for TLS options {r}, which does not exist; Traefik does not apply the TLS policy the route asks for",
                    from.to_ref()
                ))
                .evidence(format!("spec.tls.options.name: {}", r.name))
                .related(r.clone());
            let elsewhere: Vec<_> = cx
                .graph
                .each::<edgecheck_core::views::TlsOption>()
                .into_iter()
                .filter(|(_, o, _)| o.name == r.name)
                .map(|(_, o, _)| o.to_ref())
                .collect();
            if let Some(o) = elsewhere.first() {
                b = b
                    .evidence(format!("{o} exists in another namespace"))
                    .fix(format!("set spec.tls.options.namespace: {}", o.namespace.as_deref().unwrap_or_default()));
            } else {
                b = b.fix(format!("create {r} or remove spec.tls.options"));
            }
            b.related_all(elsewhere).emit();
        }
    }
}
