use edgecheck_core::kind::K;
use edgecheck_core::ValueRef;
use edgecheck_core::{EdgeKind, Findings, Graph, Layer, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Traefik IngressRoute whose `spec.tls.options` names a TLSOption (in `traefik.io` or the old
    /// `traefik.containo.us` group; Traefik reads both) that is not in the inputs. The TLSOption
    /// named `default` is implicit and never missing.
    ///
    /// Reported as docs/design.md "Absence" says: an error on a full cluster dump; a warning when the
    /// inventory manages the area — it holds other TLSOptions in that namespace, or Traefik's own objects
    /// (a Traefik IngressClass, IngressRoutes) and nothing in it makes TLSOptions out of sight (a Traefik
    /// chart's `tlsOptions` values, in a HelmRelease, an Argo CD Application or a k3s HelmChartConfig);
    /// silent otherwise. A name with a provider (`modern@file`) is not a Kubernetes object: never missing.
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
            if r.name == "default" || r.name.contains('@') {
                continue;
            }
            let ns = r.namespace.as_deref();
            let held = traefik_held(cx.graph);
            let Some(severity) = cx
                .graph
                .absence_managed(&K::TRAEFIK_TLS_OPTION.to_kind(), ns, held)
                .or(cx.absence(K::TRAEFIK_OLD_TLS_OPTION, ns))
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
                .related((**r).clone());
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

/// Whether the inventory holds Traefik's own objects (a Traefik IngressClass, or IngressRoutes of either
/// group), so that it manages Traefik's TLS options, and nothing in it makes TLSOptions edgecheck cannot
/// see: a Traefik chart's `tlsOptions` values (HelmRelease `spec.values`, an Application's Helm
/// `valuesObject` or `values`, a k3s HelmChart or HelmChartConfig `valuesContent`).
fn traefik_held(g: &Graph) -> bool {
    let class = g.each::<edgecheck_core::views::IngressClass>().iter().any(|(_, _, c)| {
        c.spec
            .controller
            .as_deref()
            .is_some_and(|c| c.starts_with("traefik.io/") || c == "containo.us/ingress-controller")
    });
    let routes = [K::TRAEFIK_INGRESS_ROUTE, K::TRAEFIK_OLD_INGRESS_ROUTE].iter().any(|k| !g.ids(*k).is_empty());
    (class || routes) && !g.iter().any(|(_, o)| chart_values_make_tls_options(o.value.root()))
}

/// Traefik chart values with `tlsOptions` in an object that installs a chart.
fn chart_values_make_tls_options(v: ValueRef<'_>) -> bool {
    let text_has = |p: &str| v.pointer(p).and_then(ValueRef::as_str).is_some_and(|t| t.contains("tlsOptions:"));
    v.pointer("/spec/values/tlsOptions").is_some()
        || text_has("/spec/valuesContent")
        || ["/spec/source", "/spec/sources"].iter().any(|p| {
            let sources: Vec<ValueRef<'_>> = match v.pointer(p) {
                Some(a) if a.is_array() => a.as_array().into_iter().flatten().collect(),
                Some(o) if o.is_object() => vec![o],
                _ => Vec::new(),
            };
            sources.iter().any(|s| {
                s.pointer("/helm/valuesObject/tlsOptions").is_some()
                    || s.pointer("/helm/values").and_then(ValueRef::as_str).is_some_and(|t| t.contains("tlsOptions:"))
            })
        })
}
