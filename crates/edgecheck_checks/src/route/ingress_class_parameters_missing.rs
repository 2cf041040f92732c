use edgecheck_core::graph::{EdgeKind, Target};
use edgecheck_core::views::IngressClass;
use edgecheck_core::{Findings, Kind, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An IngressClass whose `spec.parameters` name an object of a kind edgecheck knows (an ACK
    /// `AlbConfig`, ...) that is not in the inputs. Reported as the absence rule says: an error on a
    /// full dump, a warning when the repository holds objects of that kind, silence otherwise.
    ///
    /// ## Why it matters
    /// For ACK ALB Ingress the AlbConfig is the ALB: it creates the instance and its listeners. An
    /// IngressClass pointing at a missing AlbConfig gives its Ingresses nowhere to be programmed; the
    /// controller reports the AlbConfig not found and no address is ever assigned.
    ///
    /// ## Example
    /// ```yaml
    /// kind: IngressClass
    /// spec:
    ///   controller: ingress.k8s.alibabacloud/alb
    ///   parameters: {apiGroup: alibabacloud.com, kind: AlbConfig, name: alb-prod}   # only `alb` exists
    /// ```
    ///
    /// ## How to fix
    /// Name the existing parameters object, or add it.
    pub(crate) struct IngressClassParametersMissing {
        code: "RTE034", name: "ingress-class-parameters-missing", layer: Layer::Route, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl IngressClassParametersMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, o, c) in cx.graph.each::<IngressClass>() {
            let Some(p) = &c.spec.parameters else { continue };
            let kind = Kind {
                group: p.api_group.as_deref().unwrap_or_default().into(),
                kind: p.kind.as_deref().unwrap_or_default().into(),
            };
            for e in cx.graph.edges_from_kind(id, EdgeKind::ClassParameters) {
                let Target::Missing(r) = &e.to else { continue };
                let Some(k) = kind.known() else { continue };
                let Some(severity) = cx.absence(k, r.namespace.as_deref()) else { continue };
                let present: Vec<String> = cx.graph.ids(k).iter().map(|i| cx.graph.obj(*i).name.to_string()).collect();
                out.at(o, "spec.parameters.name")
                    .severity(severity)
                    .message(format!(
                        "{} names parameters {} `{}`, which do not exist; its Ingresses are never programmed",
                        o.to_ref(),
                        r.kind,
                        r.name
                    ))
                    .evidence(format!("spec.parameters: kind={} name={}", r.kind, r.name))
                    .evidence(format!(
                        "{} objects in the inputs: {}",
                        r.kind,
                        if present.is_empty() { "none".into() } else { present.join(", ") }
                    ))
                    .related((**r).clone())
                    .fix(format!("name an existing {} or add {} `{}`", r.kind, r.kind, r.name))
                    .emit();
            }
        }
    }
}
