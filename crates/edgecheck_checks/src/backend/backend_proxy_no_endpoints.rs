use edgecheck_core::observation::HttpOutcome;
use edgecheck_core::views;
use edgecheck_core::{EdgeKind, Findings, Layer, Severity};

use crate::app::endpoint_proxy_reply::identify;
use crate::framework::{declare_check, CheckContext};
use crate::observed::{report, transport_ok};

declare_check! {
    /// ## What it checks
    /// A probed endpoint answered by the proxy itself with a 502, 503 or 504 (an nginx, Envoy,
    /// Traefik or cloud load balancer error page), while the objects on its path say why: the
    /// backend Service selects no pod template, its EndpointSlices have no ready endpoint, or the
    /// workloads it selects have no ready replica (or are scaled to zero).
    ///
    /// ## Why it matters
    /// The proxy's page says only "no upstream"; the objects say which Service and why. Together
    /// they place the fault in the backend layer, not in the proxy, the route or the application.
    ///
    /// ## Example
    /// `GET https://shop.example.com/` → nginx's 503, and Service `shop/shop` selects `app: shop-v2`,
    /// which no Deployment's pods carry.
    ///
    /// ## How to fix
    /// Make the Service select the pods that serve it (selector and pod labels), and make those pods
    /// ready (readiness probe, image, crash loop): the proxy then has endpoints to send to.
    pub(crate) struct BackendProxyNoEndpoints {
        code: "BKD100", name: "backend-proxy-no-endpoints", layer: Layer::Backend, severity: Severity::Error,
    }
}

impl BackendProxyNoEndpoints {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for s in cx.serving {
            let o = &cx.observations[s.observation];
            if !transport_ok(o) {
                continue;
            }
            let Some(h) = o.http.iter().find(|h| {
                h.outcome == HttpOutcome::Response && matches!(h.status, Some(502..=504)) && identify(h).is_some()
            }) else {
                continue;
            };
            let Some((what, _)) = identify(h) else { continue };
            let mut why = Vec::new();
            for &sid in &s.services {
                let svc = cx.graph.obj(sid);
                let selects: Vec<_> =
                    cx.graph.edges_from_kind(sid, EdgeKind::Selects).filter_map(|e| e.to.found()).collect();
                let has_selector = cx
                    .graph
                    .view::<views::Service>(sid)
                    .is_some_and(|v| v.spec.selector.as_ref().is_some_and(|m| !m.is_empty()));
                if has_selector && selects.is_empty() {
                    why.push((sid, format!("{} selects no pod template in the inventory", svc.to_ref())));
                    continue;
                }
                let slices: Vec<_> = s
                    .slices
                    .iter()
                    .filter(|&&e| cx.graph.obj(e).label("kubernetes.io/service-name") == Some(svc.name.as_str()))
                    .collect();
                if !slices.is_empty() {
                    let ready: usize = slices
                        .iter()
                        .filter_map(|&&e| cx.graph.view::<views::EndpointSlice>(e))
                        .map(|es| {
                            es.endpoints
                                .iter()
                                .filter(|ep| {
                                    ep.conditions.get("ready").and_then(edgecheck_core::Value::as_bool).unwrap_or(true)
                                })
                                .count()
                        })
                        .sum();
                    if ready == 0 {
                        why.push((sid, format!("{}: its EndpointSlices have no ready endpoint", svc.to_ref())));
                        continue;
                    }
                }
                let unready: Vec<String> = selects
                    .iter()
                    .filter_map(|&w| {
                        let v = cx.graph.view::<views::Workload>(w)?;
                        let status = views::Workload::status(cx.graph.obj(w));
                        let ready =
                            status.and_then(|st| st.get("readyReplicas")).and_then(edgecheck_core::ValueRef::as_i64);
                        let zero = v.replicas == Some(0);
                        (zero || (status.is_some() && ready.unwrap_or(0) == 0)).then(|| {
                            let wo = cx.graph.obj(w);
                            if zero {
                                format!("{} is scaled to 0 replicas", wo.to_ref())
                            } else {
                                format!("{} has 0 ready replicas", wo.to_ref())
                            }
                        })
                    })
                    .collect();
                if !selects.is_empty() && unready.len() == selects.len() {
                    why.push((sid, format!("{}: {}", svc.to_ref(), unready.join("; "))));
                }
            }
            let Some((sid, _)) = why.first() else { continue };
            let svc = cx.graph.obj(*sid).to_ref();
            let mut b = report(out, o)
                .message(format!("the proxy answers {} because {svc} has no ready endpoint", h.status.unwrap_or(0)))
                .evidence(format!("GET {} over {}: {} — {what}", h.url, h.protocol, h.status.unwrap_or(0)));
            for (_, w) in &why {
                b = b.evidence(w.clone());
            }
            b = b.related(svc);
            if let Some(r) = s.route {
                b = b.related(cx.graph.obj(r).to_ref());
            }
            b.fix("make the Service select the pods that serve it and make those pods ready").emit();
        }
    }
}
