use edgecheck_core::graph::{EdgeKind, Target};
use edgecheck_core::kind::K;
use edgecheck_core::views::Ingress;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An Ingress whose `spec.ingressClassName` names no IngressClass in the inputs, or whose legacy
    /// `kubernetes.io/ingress.class` annotation names none on a full cluster dump.
    ///
    /// Reported as the absence rule says: an error on a full dump of a cluster, a warning when the
    /// repository manages IngressClasses (it holds at least one), silence otherwise (the class may be
    /// installed by the controller's Helm chart). The legacy annotation is matched by controllers
    /// against their `--ingress-class` flag (ingress-nginx, Traefik, HAProxy, Kong) without any
    /// IngressClass object, so it is only reported on a full dump, and then as a warning. Class
    /// `traefik` is not reported when the inputs show k3s's bundled Traefik (its chart creates it).
    ///
    /// ## Why it matters
    /// Controllers pick an Ingress up only when its class is theirs. ingress-nginx, Traefik, the ALB
    /// controllers and the others look the class up as an IngressClass whose `spec.controller` is their
    /// own; a class that does not exist belongs to no controller, so the Ingress is never programmed:
    /// no address in `status.loadBalancer`, and every host in it answers 404 or not at all.
    ///
    /// ## Example
    /// ```yaml
    /// kind: Ingress
    /// spec:
    ///   ingressClassName: ngnix   # the IngressClass is `nginx`
    /// ```
    ///
    /// ## How to fix
    /// Name an existing IngressClass (`kubectl get ingressclass`), or add the IngressClass for the
    /// controller that should serve this Ingress.
    pub(crate) struct IngressClassMissing {
        code: "RTE030", name: "ingress-class-missing", layer: Layer::Route, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl IngressClassMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let known: Vec<String> =
            cx.graph.ids(K::INGRESS_CLASS).iter().map(|id| cx.graph.obj(*id).name.to_string()).collect();
        for (id, o, _) in cx.graph.each::<Ingress>() {
            for e in cx.graph.edges_from_kind(id, EdgeKind::IngressClass) {
                let Target::Missing(r) = &e.to else { continue };
                let severity = match e.how() {
                    "ingressClassName" => cx.absence(K::INGRESS_CLASS, None),
                    "annotation" if cx.graph.complete => Some(Severity::Warning),
                    _ => None,
                };
                let Some(severity) = severity else { continue };
                if r.name == "traefik" && super::ingress_class_default_missing::k3s_traefik(cx.graph) {
                    continue;
                }
                let via = if e.how() == "annotation" {
                    "annotation `kubernetes.io/ingress.class`"
                } else {
                    "ingressClassName"
                };
                let mut f = out
                    .at(o, &e.field)
                    .severity(severity)
                    .message(if e.how() == "annotation" {
                        format!(
                            "{} names IngressClass `{}` ({via}), which does not exist; only a controller started with `--ingress-class={}` claims the Ingress",
                            o.to_ref(),
                            r.name,
                            r.name
                        )
                    } else {
                        format!(
                            "{} names IngressClass `{}` ({via}), which does not exist; no controller claims the Ingress",
                            o.to_ref(),
                            r.name
                        )
                    })
                    .evidence(format!("{}: {}", e.field, r.name))
                    .related((**r).clone());
                f = if known.is_empty() {
                    f.evidence("no IngressClass in the inputs")
                } else {
                    f.evidence(format!("IngressClasses in the inputs: {}", known.join(", ")))
                };
                f.fix("name an existing IngressClass or add the IngressClass of the controller meant to serve it")
                    .emit();
            }
        }
    }
}
