use edgecheck_core::kind::K;
use edgecheck_core::reasons::layer_for;
use edgecheck_core::views::{EndpointSlice, Event, Service};
use edgecheck_core::{EdgeKind, Findings, Layer, Severity};

use super::helpers::is_routed;
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// Live status: a Service that a route sends traffic to, whose EndpointSlices
    /// (`discovery.k8s.io/v1`, label `kubernetes.io/service-name`) hold no ready endpoint
    /// (`conditions.ready` absent counts as ready, as the API defines). On a full dump that holds
    /// EndpointSlices, a selector Service without any slice counts as having none. Events of the
    /// selected Pods whose reason places the fault in the backend layer (`Unhealthy` probe failures such as `connection reset by peer`,
    /// `http: server gave HTTP response to HTTPS client`, `BackOff`) are quoted as the reason.
    ///
    /// Finds nothing in a Git repository (no EndpointSlices there). ExternalName Services are skipped.
    ///
    /// ## Why it matters
    /// Every controller forwards only to ready endpoints: with none, ingress-nginx answers 503, Envoy
    /// `no healthy upstream`, Traefik 503, a cloud ALB 502/503. The manifests can all be right while
    /// the pods fail their readiness probe or crash-loop.
    ///
    /// ## Example
    /// ```yaml
    /// kind: EndpointSlice
    /// metadata: {labels: {kubernetes.io/service-name: argocd-server}}
    /// endpoints: [{addresses: [10.42.0.7], conditions: {ready: false}}]
    /// ```
    ///
    /// ## How to fix
    /// Find out why the pods are not ready (`kubectl describe pod`, their Events): a probe whose scheme
    /// or port does not match the server, a crash, a missing Secret. Fix that, not the route.
    pub(crate) struct ServiceEndpointsUnready {
        code: "BKD005", name: "service-endpoints-unready", layer: Layer::Backend, severity: Severity::Error,
    }
}

impl ServiceEndpointsUnready {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let slices = cx.graph.each::<EndpointSlice>();
        for (id, obj, svc) in cx.graph.each::<Service>() {
            if svc.spec.kind() == "ExternalName" || !is_routed(cx.graph, id) {
                continue;
            }
            let mine: Vec<_> = slices
                .iter()
                .filter(|(_, o, _)| {
                    o.namespace == obj.namespace && o.label("kubernetes.io/service-name") == Some(obj.name.as_str())
                })
                .collect();
            if mine.is_empty() && !(cx.graph.complete && !slices.is_empty() && svc.spec.selector.is_some()) {
                continue;
            }
            let (mut ready, mut total) = (0usize, 0usize);
            for (_, _, s) in &mine {
                for ep in &s.endpoints {
                    total += 1;
                    if ep.conditions.get("ready").and_then(edgecheck_core::Value::as_bool) != Some(false) {
                        ready += 1;
                    }
                }
            }
            if ready > 0 {
                continue;
            }
            let mut f = out
                .at(obj, "")
                .message(format!(
                    "{} has no ready endpoints ({total} not ready); every request routed to it fails",
                    obj.to_ref()
                ))
                .evidence(if mine.is_empty() {
                    "no EndpointSlice labelled kubernetes.io/service-name=".to_string() + &obj.name
                } else {
                    format!("EndpointSlices: {} endpoint(s), 0 ready", total)
                });
            for (sid, so, _) in &mine {
                let _ = sid;
                f = f.related(so.to_ref());
            }
            let pods: Vec<_> = cx
                .graph
                .edges_from_kind(id, EdgeKind::Selects)
                .filter_map(|e| e.to.found())
                .filter(|p| cx.graph.obj(*p).is(K::POD))
                .collect();
            let mut quoted = 0;
            for p in pods {
                for e in cx.graph.edges_to_kind(p, EdgeKind::Involves) {
                    let Some(ev) = cx.graph.view::<Event>(e.from) else { continue };
                    let reason = ev.reason.as_deref().unwrap_or("");
                    if layer_for("", reason) != Some(Layer::Backend) || quoted >= 3 {
                        continue;
                    }
                    quoted += 1;
                    f = f
                        .evidence(format!("{} {}: {}", cx.graph.obj(p).to_ref(), reason, ev.text()))
                        .related(cx.graph.obj(e.from).to_ref());
                }
            }
            f.fix("find out why the selected pods are not ready (their Events, probes, logs) and fix that").emit();
        }
    }
}
