//! Who owns an Ingress: one answer for every check. The controller string of its IngressClass (explicit, by
//! annotation, or the default class), or, when that class is not in the inventory, the controller its
//! well-known name stands for (`alb`, `traefik`, `nginx`). Controllers compare the string exactly, so
//! `Traefik.io/ingress-controller` is nobody's (RTE's class-controller check reports that).

use crate::graph::{EdgeKind, Graph, ObjId, Target};
use crate::views::IngressClass;

/// ACK ALB (Alibaba Cloud).
pub const ACK_ALB: &str = "ingress.k8s.alibabacloud/alb";
/// AWS Load Balancer Controller.
pub const AWS_ALB: &str = "ingress.k8s.aws/alb";
/// Traefik.
pub const TRAEFIK: &str = "traefik.io/ingress-controller";
/// ingress-nginx (Kubernetes community).
pub const INGRESS_NGINX: &str = "k8s.io/ingress-nginx";

/// Controller strings as their controllers compare them (exactly).
pub const KNOWN_CONTROLLERS: &[&str] = &[
    INGRESS_NGINX,
    "nginx.org/ingress-controller",
    TRAEFIK,
    ACK_ALB,
    AWS_ALB,
    "haproxy.org/ingress-controller",
    "haproxy-ingress.github.io/controller",
    "projectcontour.io/ingress-controller",
    "ingress-controllers.konghq.com/kong",
    "istio.io/ingress-controller",
    "cilium.io/ingress-controller",
    "apisix.apache.org/apisix-ingress-controller",
];

/// Class names that stand for one controller when the IngressClass itself is not in the inventory (the
/// names the controllers' charts and docs install).
const WELL_KNOWN_CLASS_NAMES: &[(&str, &str)] = &[("alb", ACK_ALB), ("traefik", TRAEFIK), ("nginx", INGRESS_NGINX)];

/// The annotation older Ingresses name their class with (still read by every controller).
pub const CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";

/// How an Ingress names its class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassName<'a> {
    /// The class name.
    pub name: &'a str,
    /// The field it is written in.
    pub field: &'static str,
    /// `ingressClassName` or `annotation`.
    pub how: &'static str,
}

/// The class an Ingress names: `spec.ingressClassName`, else the `kubernetes.io/ingress.class` annotation;
/// `None` when it names none (the default IngressClass then applies).
pub fn class_name<'a>(obj: &'a crate::Object, ing: &'a crate::views::Ingress) -> Option<ClassName<'a>> {
    if let Some(c) = ing.spec.ingress_class_name.as_deref() {
        return Some(ClassName { name: c, field: "spec.ingressClassName", how: "ingressClassName" });
    }
    obj.annotation(CLASS_ANNOTATION).map(|a| ClassName {
        name: a,
        field: "metadata.annotations[\"kubernetes.io/ingress.class\"]",
        how: "annotation",
    })
}

/// The owner of an Ingress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngressOwner {
    /// The controller string.
    pub controller: String,
    /// The IngressClass, when it is in the inventory.
    pub class: Option<ObjId>,
    /// How this is known, for evidence: `IngressClass `alb` controller: ingress.k8s.alibabacloud/alb`.
    pub evidence: String,
}

impl IngressOwner {
    /// Whether the controller is `controller`.
    pub fn is(&self, controller: &str) -> bool {
        self.controller == controller
    }
}

impl Graph {
    /// Who owns the Ingress `ingress`, when that can be told.
    pub fn ingress_owner(&self, ingress: ObjId) -> Option<IngressOwner> {
        let e = self.edges_from_kind(ingress, EdgeKind::IngressClass).next()?;
        match &e.to {
            Target::Found(c) => {
                let controller = self.view::<IngressClass>(*c)?.spec.controller.as_deref()?.to_string();
                let evidence = format!("{} controller: {controller}", self.obj(*c).to_ref());
                Some(IngressOwner { controller, class: Some(*c), evidence })
            }
            Target::Missing(r) => {
                let (_, controller) = WELL_KNOWN_CLASS_NAMES.iter().find(|(n, _)| *n == r.name)?;
                Some(IngressOwner {
                    controller: (*controller).to_string(),
                    class: None,
                    evidence: format!(
                        "ingress class: {} (not in the inventory; the name stands for {controller})",
                        r.name
                    ),
                })
            }
        }
    }
}
