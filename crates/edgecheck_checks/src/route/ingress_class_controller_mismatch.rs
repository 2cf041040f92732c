use edgecheck_core::ingress::{ACK_ALB, AWS_ALB, KNOWN_CONTROLLERS};
use edgecheck_core::views::IngressClass;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

/// Parameter kinds that belong to exactly one controller: `(apiGroup, kind, controller)`.
const PARAMETER_OWNERS: &[(&str, &str, &str)] =
    &[("alibabacloud.com", "AlbConfig", ACK_ALB), ("elbv2.k8s.aws", "IngressClassParams", AWS_ALB)];

declare_check! {
    /// ## What it checks
    /// An IngressClass whose `spec.controller` cannot serve it:
    /// - its `spec.parameters` name a kind that belongs to another controller (an `AlbConfig` of
    ///   `alibabacloud.com` needs `ingress.k8s.alibabacloud/alb`, an `IngressClassParams` of
    ///   `elbv2.k8s.aws` needs `ingress.k8s.aws/alb`), or the ALB controllers' class names parameters
    ///   of the wrong kind;
    /// - the controller string differs from a well-known one only in case or surrounding blanks
    ///   (`Traefik.io/ingress-controller`, `k8s.io/ingress-nginx `). Controllers compare it exactly:
    ///   ingress-nginx `k8s.io/ingress-nginx`, Traefik `traefik.io/ingress-controller`, ACK ALB
    ///   `ingress.k8s.alibabacloud/alb`, AWS `ingress.k8s.aws/alb`, HAProxy `haproxy.org/ingress-controller`,
    ///   Contour `projectcontour.io/ingress-controller`, Kong `ingress-controllers.konghq.com/kong`, Istio
    ///   `istio.io/ingress-controller`, Cilium `cilium.io/ingress-controller`.
    ///
    /// ## Why it matters
    /// A controller claims only the IngressClasses whose `spec.controller` is its own string, and reads
    /// only its own parameter kinds. With the wrong pair, either no controller claims the class (every
    /// Ingress of it stays unprogrammed) or the claiming controller ignores the parameters (the ALB and
    /// its listeners the AlbConfig describes are never attached).
    ///
    /// ## Example
    /// ```yaml
    /// kind: IngressClass
    /// metadata: {name: alb}
    /// spec:
    ///   controller: ingress.k8s.aws/alb
    ///   parameters: {apiGroup: alibabacloud.com, kind: AlbConfig, name: alb}
    /// ```
    ///
    /// ## How to fix
    /// Set `spec.controller` to the string of the controller that owns the parameters
    /// (`ingress.k8s.alibabacloud/alb` for AlbConfig), spelled exactly.
    pub(crate) struct IngressClassControllerMismatch {
        code: "RTE033", name: "ingress-class-controller-mismatch", layer: Layer::Route, severity: Severity::Error,
    }
}

impl IngressClassControllerMismatch {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (_, o, c) in cx.graph.each::<IngressClass>() {
            let Some(controller) = c.spec.controller.as_deref() else { continue };
            if let Some(known) = KNOWN_CONTROLLERS.iter().find(|k| k.eq_ignore_ascii_case(controller.trim())) {
                if *known != controller {
                    out.at(o, "spec.controller")
                        .message(format!(
                            "{} has controller `{controller}`, not `{known}`; controllers compare the string exactly, so none claims the class",
                            o.to_ref()
                        ))
                        .evidence(format!("spec.controller: {controller:?}"))
                        .fix(format!("write spec.controller: {known}"))
                        .emit();
                    continue;
                }
            }
            let Some(p) = &c.spec.parameters else { continue };
            let group = p.api_group.as_deref().unwrap_or("");
            let kind = p.kind.as_deref().unwrap_or("");
            let owner = PARAMETER_OWNERS.iter().find(|(g, k, _)| *g == group && *k == kind).map(|(_, _, c)| *c);
            let problem = match owner {
                Some(owner) if owner != controller.trim() => Some(format!(
                    "names parameters {kind} (`{group}`), which only `{owner}` reads, but its controller is `{controller}`"
                )),
                Some(_) => None,
                None => PARAMETER_OWNERS.iter().find(|(_, _, c)| *c == controller.trim()).map(|(g, k, _)| {
                    format!(
                        "has controller `{controller}`, which reads parameters of kind {k} (`{g}`), but names {kind} (`{group}`)"
                    )
                }),
            };
            let Some(problem) = problem else { continue };
            out.at(o, "spec.parameters")
                .message(format!("{} {problem}; the parameters are never applied", o.to_ref()))
                .evidence(format!("spec.controller: {controller}"))
                .evidence(format!("spec.parameters: apiGroup={group} kind={kind} name={}", p.name))
                .fix("make spec.controller and spec.parameters belong to the same controller")
                .emit();
        }
    }
}
