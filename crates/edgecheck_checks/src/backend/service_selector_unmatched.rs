use edgecheck_core::views::{Service, Workload};
use edgecheck_core::{EdgeKind, Findings, Layer, Severity};

use super::helpers::is_routed;
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Service that a route sends traffic to (Ingress, Gateway API route, Traefik IngressRoute),
    /// with a non-empty `spec.selector` that matches the pod template labels of no workload
    /// (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Pod) in the inputs.
    ///
    /// Reported only when the inputs hold workloads in the Service's namespace (otherwise the pods
    /// come from elsewhere: a chart, an operator). A warning for files, where an operator's custom
    /// resource may still create the pods; an error on a full cluster dump. Services without
    /// selector (manually managed endpoints) are fine.
    ///
    /// ## Why it matters
    /// A selector that matches no pod leaves the Service without endpoints: the route resolves, but
    /// every request gets 503 (ingress-nginx), `no healthy upstream` (Envoy) or 503/502 from the
    /// cloud load balancer. A renamed `app` label on the Deployment is the usual cause.
    ///
    /// ## Example
    /// ```yaml
    /// kind: Service
    /// spec: {selector: {app: web}}
    /// ---
    /// kind: Deployment
    /// spec: {template: {metadata: {labels: {app.kubernetes.io/name: web}}}}
    /// ```
    ///
    /// ## How to fix
    /// Make the selector equal a subset of the pod template's labels (every key and value), or fix
    /// the labels of the workload.
    pub(crate) struct ServiceSelectorUnmatched {
        code: "BKD004", name: "service-selector-unmatched", layer: Layer::Backend, severity: Severity::Warning,
    }
}

impl ServiceSelectorUnmatched {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let workloads = cx.graph.each::<Workload>();
        for (id, obj, svc) in cx.graph.each::<Service>() {
            let Some(sel) = svc.spec.selector.as_ref().filter(|s| !s.is_empty()) else { continue };
            if svc.spec.kind() == "ExternalName" || !is_routed(cx.graph, id) {
                continue;
            }
            if cx.graph.edges_from_kind(id, EdgeKind::Selects).next().is_some() {
                continue;
            }
            let in_ns: Vec<_> = workloads.iter().filter(|(_, o, _)| o.namespace == obj.namespace).collect();
            // No workloads here, or a chart rendered into the namespace may hold the pods it selects.
            let unseen = !cx.graph.complete && obj.namespace.as_deref().is_some_and(|ns| cx.graph.renders_unseen(ns));
            if in_ns.is_empty() || unseen {
                continue;
            }
            let selector = sel.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",");
            let mut f = out
                .at(obj, "spec.selector")
                .severity(if cx.graph.complete { Severity::Error } else { Severity::Warning })
                .message(format!(
                    "{} selects `{selector}`, which matches no pod template in its namespace; it has no endpoints and requests to it fail",
                    obj.to_ref()
                ))
                .evidence(format!("spec.selector: {selector}"));
            // The closest workloads: those sharing at least one selector key.
            for (_, wo, w) in in_ns.iter().filter(|(_, _, w)| sel.keys().any(|k| w.labels.contains_key(k))).take(3) {
                let labels = w.labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",");
                f = f.evidence(format!("{} pod labels: {labels}", wo.to_ref())).related(wo.to_ref());
            }
            f.fix("make the selector a subset of the pod template labels, or fix the workload's labels").emit();
        }
    }
}
