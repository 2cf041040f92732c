use std::collections::BTreeMap;

use edgecheck_core::kind::K;
use edgecheck_core::views::{Event, Service, Workload};
use edgecheck_core::{EdgeKind, Findings, Layer, ObjId, Severity, Target};

use crate::framework::{declare_check, CheckContext};

/// The message the ACK ALB controller writes (Event) for a ClusterIP backend on a non-ENI cluster.
const ALB_MESSAGE: &str = "cluster service type just support eni mode";

declare_check! {
    /// ## What it checks
    /// An Alibaba Cloud ACK ALB Ingress (IngressClass controller `ingress.k8s.alibabacloud/alb`, or
    /// class `alb` when the IngressClass is not in the inputs) on a Flannel cluster whose backend
    /// Service is `ClusterIP`. Flannel is known from `--cni flannel` or from a flannel DaemonSet in the
    /// inputs (`kube-flannel-ds`, label `app: flannel`, a `flannel` image); k3s's embedded flannel is
    /// invisible, so pass `--cni`. Live: an Event whose message says
    /// `cluster service type just support eni mode for alb ingress` is reported too (about the
    /// Event's object), or quoted when the manifests already show the fault.
    ///
    /// ## Why it matters
    /// ALB sends traffic straight to backend servers. With Terway (ENI) pods have VPC addresses and a
    /// ClusterIP Service works; with Flannel pod addresses are not reachable from the VPC, so the
    /// controller refuses to build the server group and the Ingress never serves.
    ///
    /// ## Example
    /// ```yaml
    /// kind: Ingress
    /// spec: {ingressClassName: alb, rules: [{http: {paths: [{backend: {service: {name: web, port: {number: 80}}}}]}}]}
    /// ---
    /// kind: Service
    /// metadata: {name: web}
    /// spec: {type: ClusterIP}
    /// ```
    ///
    /// ## How to fix
    /// Use a NodePort (or LoadBalancer) Service as the ALB backend. For a Service already in use,
    /// create a new NodePort Service and point the Ingress at it: switching a live Service's type can
    /// break the ALB server group that already uses it.
    pub(crate) struct AlbBackendClusterIp {
        code: "BKD009", name: "alb-backend-cluster-ip", layer: Layer::Backend, severity: Severity::Error,
    }
}

const FIX: &str = "use a NodePort or LoadBalancer Service as the ALB backend; for a live Service create a new NodePort Service and point the Ingress at it (changing a live Service's type can break its ALB server group)";

impl AlbBackendClusterIp {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let g = cx.graph;
        // Events naming the fault, by the object they are about.
        let mut events: BTreeMap<Option<ObjId>, Vec<ObjId>> = BTreeMap::new();
        for (id, _, ev) in g.each::<Event>() {
            if ev.text().contains(ALB_MESSAGE) {
                let about = g.edges_from_kind(id, EdgeKind::Involves).next().and_then(|e| e.to.found());
                events.entry(about).or_default().push(id);
            }
        }
        let flannel = flannel_evidence(cx);
        for (iid, ing, _) in g.each::<edgecheck_core::views::Ingress>() {
            let Some(class) =
                g.ingress_owner(iid).filter(|o| o.is(edgecheck_core::ingress::ACK_ALB)).map(|o| o.evidence)
            else {
                continue;
            };
            let Some(flannel) = &flannel else { continue };
            let mut seen = Vec::new();
            for e in g.edges_from_kind(iid, EdgeKind::Backend) {
                let Target::Found(sid) = e.to else { continue };
                let Some(svc) = g.view::<Service>(sid) else { continue };
                if svc.spec.kind() != "ClusterIP" || seen.contains(&sid) {
                    continue;
                }
                seen.push(sid);
                let sobj = g.obj(sid);
                let mut f = out
                    .at(ing, &e.field)
                    .message(format!(
                        "{} is an ALB Ingress on a Flannel cluster with ClusterIP backend {}; ALB supports ClusterIP backends only in ENI (Terway) mode, so the server group is never built",
                        ing.to_ref(),
                        sobj.to_ref()
                    ))
                    .evidence(class.clone())
                    .evidence(flannel.clone())
                    .evidence(format!("{} type: ClusterIP", sobj.to_ref()))
                    .related(sobj.to_ref());
                for ev in events.remove(&Some(iid)).unwrap_or_default() {
                    f = f
                        .evidence(format!("Event: {}", g.view::<Event>(ev).map(Event::text).unwrap_or("")))
                        .related(g.obj(ev).to_ref());
                }
                f.fix(FIX).emit();
            }
        }
        for (about, evs) in events {
            for ev in evs {
                let eo = g.obj(ev);
                let Some(view) = g.view::<Event>(ev) else { continue };
                let subject = match about {
                    Some(a) => g.obj(a).to_ref(),
                    None => g
                        .edges_from_kind(ev, EdgeKind::Involves)
                        .next()
                        .and_then(|e| match &e.to {
                            Target::Missing(r) => Some((**r).clone()),
                            Target::Found(_) => None,
                        })
                        .unwrap_or_else(|| eo.to_ref()),
                };
                let f = match about {
                    Some(a) => out.at(g.obj(a), ""),
                    None => out.about(subject.clone(), eo.source.file().map(str::to_string), eo.source.line()),
                };
                f.message(format!(
                    "the ALB controller refuses the ClusterIP backend of {subject} (`{}`); the Ingress does not serve",
                    view.text()
                ))
                .evidence(format!("{} reason {}: {}", eo.to_ref(), view.reason.as_deref().unwrap_or(""), view.text()))
                .related(eo.to_ref())
                .fix(FIX)
                .emit();
            }
        }
    }
}

/// Why the cluster runs Flannel, when it does.
fn flannel_evidence(cx: &CheckContext<'_>) -> Option<String> {
    if let Some(cni) = &cx.options.cni {
        return cni.eq_ignore_ascii_case("flannel").then(|| format!("cni: {cni} (option)"));
    }
    for &id in cx.graph.ids(K::DAEMON_SET) {
        let o = cx.graph.obj(id);
        let by_label = ["app", "k8s-app"].iter().any(|k| o.label(k) == Some("flannel"));
        let by_image = cx
            .graph
            .view::<Workload>(id)
            .is_some_and(|w| w.containers.iter().any(|c| c.image.as_deref().is_some_and(|i| i.contains("flannel"))));
        if o.name.starts_with("kube-flannel") || by_label || by_image {
            return Some(format!("{} runs flannel", o.to_ref()));
        }
    }
    None
}
