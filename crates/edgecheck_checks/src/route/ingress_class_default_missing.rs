use edgecheck_core::graph::EdgeKind;
use edgecheck_core::kind::K;
use edgecheck_core::views::Ingress;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An Ingress with neither `spec.ingressClassName` nor the `kubernetes.io/ingress.class` annotation
    /// while no IngressClass in the inputs carries `ingressclass.kubernetes.io/is-default-class: "true"`.
    /// Only when the inputs hold IngressClasses (the repository manages them) or are a full dump, and
    /// not when a k3s node config (Traefik not disabled) or a `traefik` HelmChartConfig shows k3s's
    /// Traefik, whose chart makes IngressClass `traefik` the default.
    ///
    /// ## Why it matters
    /// Without a default class the API server leaves the Ingress class-less, and most controllers ignore
    /// class-less Ingresses: ingress-nginx unless started with `--watch-ingress-without-class`, the
    /// ALB controllers always. Traefik serves them by default, so the fault is inferred with doubt: a
    /// warning.
    ///
    /// ## Example
    /// ```yaml
    /// kind: Ingress
    /// metadata: {name: web}
    /// spec:
    ///   rules: [{host: shop.example.com, ...}]   # no ingressClassName
    /// ```
    ///
    /// ## How to fix
    /// Set `spec.ingressClassName`, or mark one IngressClass as the default with the annotation
    /// `ingressclass.kubernetes.io/is-default-class: "true"`.
    pub(crate) struct IngressClassDefaultMissing {
        code: "RTE031", name: "ingress-class-default-missing", layer: Layer::Route, severity: Severity::Warning,
    }
}

impl IngressClassDefaultMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        if cx.absence(K::INGRESS_CLASS, None).is_none() {
            return;
        }
        let k3s_traefik = k3s_traefik(cx.graph);
        if k3s_traefik {
            return;
        }
        let classes: Vec<String> =
            cx.graph.ids(K::INGRESS_CLASS).iter().map(|id| cx.graph.obj(*id).name.to_string()).collect();
        for (id, o, ing) in cx.graph.each::<Ingress>() {
            if edgecheck_core::ingress::class_name(o, ing).is_some()
                || cx.graph.edges_from_kind(id, EdgeKind::IngressClass).next().is_some()
            {
                continue;
            }
            let list = if classes.is_empty() { "none".to_string() } else { classes.join(", ") };
            out.at(o, "spec")
                .message(format!(
                    "{} names no IngressClass and no IngressClass is the default; most controllers ignore it",
                    o.to_ref()
                ))
                .evidence("spec.ingressClassName: (unset), annotation kubernetes.io/ingress.class: (unset)")
                .evidence(format!("IngressClasses in the inputs, none marked is-default-class: {list}"))
                .fix("set spec.ingressClassName, or annotate one IngressClass with ingressclass.kubernetes.io/is-default-class: \"true\"")
                .emit();
        }
    }
}

/// True when the inputs show k3s's bundled Traefik, whose chart creates the default IngressClass
/// `traefik`: a k3s node config that does not disable traefik, or a `traefik` HelmChartConfig.
pub(super) fn k3s_traefik(graph: &edgecheck_core::Graph) -> bool {
    graph.node_configs.iter().filter(|n| n.is_node()).any(|n| {
        let disabled =
            |v: &edgecheck_core::Value| v.as_str().is_some_and(|s| s.split(',').any(|x| x.trim() == "traefik"));
        !match n.value.get("disable") {
            Some(edgecheck_core::Value::Array(a)) => a.iter().any(disabled),
            Some(v) => disabled(v),
            None => false,
        }
    }) || graph.ids(K::HELM_CHART_CONFIG).iter().any(|id| graph.obj(*id).name == "traefik")
}
