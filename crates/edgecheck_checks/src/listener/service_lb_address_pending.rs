use edgecheck_core::graph::EdgeKind;
use edgecheck_core::kind::K;
use edgecheck_core::views::{Event, Service};
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Service of `type: LoadBalancer` read with its status (a dump or a live cluster) whose
    /// `status.loadBalancer.ingress` is empty: the external IP is `<pending>`. Warning Events about the
    /// Service (`SyncLoadBalancerFailed`, `AllocationFailed`, ...) are quoted as evidence, and so is the
    /// absence of any CiliumLoadBalancerIPPool when the Service uses Cilium's LB IPAM. Finds nothing in
    /// a Git repository (no status).
    ///
    /// ## Why it matters
    /// Without an address nothing outside the cluster can reach the Service, nor the Gateway or ingress
    /// controller behind it: DNS has nothing to point at, and a Gateway reports
    /// `Programmed=False AddressNotAssigned`. On bare metal it usually means no load-balancer
    /// implementation hands out addresses (no MetalLB pool, no CiliumLoadBalancerIPPool, k3s ServiceLB
    /// disabled); in a cloud, a quota or annotation error in the Events.
    ///
    /// ## Example
    /// ```yaml
    /// kind: Service
    /// spec: {type: LoadBalancer}
    /// status:
    ///   loadBalancer: {}
    /// ```
    ///
    /// ## How to fix
    /// Give the cluster a source of addresses (a CiliumLoadBalancerIPPool or MetalLB IPAddressPool whose
    /// selector matches the Service, k3s ServiceLB), fix what the Events report, or use `type: NodePort`
    /// (for Cilium Gateways, a CiliumGatewayClassConfig with `service.type: NodePort`).
    pub(crate) struct ServiceLbAddressPending {
        code: "LSN032", name: "service-lb-address-pending", layer: Layer::Listener, severity: Severity::Error,
    }
}

impl ServiceLbAddressPending {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, o, svc) in cx.graph.each::<Service>() {
            if svc.spec.kind() != "LoadBalancer" || !o.has_status() {
                continue;
            }
            let has_address =
                svc.status.as_ref().and_then(|s| s.load_balancer.as_ref()).is_some_and(|lb| !lb.ingress.is_empty());
            if has_address {
                continue;
            }
            let mut b = out
                .at(o, "status")
                .message(format!(
                    "{} is of type LoadBalancer and has no address (status.loadBalancer.ingress is empty); nothing outside the cluster reaches it",
                    o.to_ref()
                ))
                .evidence("status.loadBalancer.ingress: (none)");
            if let Some(c) = &svc.spec.load_balancer_class {
                b = b.evidence(format!("spec.loadBalancerClass: {c}"));
            }
            let cilium = o.annotation("io.cilium/lb-ipam-ips").is_some()
                || o.label("io.cilium.gateway/owning-gateway").is_some()
                || svc.spec.load_balancer_class.as_deref().is_some_and(|c| c.starts_with("io.cilium"));
            if cilium && cx.graph.count(K::CILIUM_LB_IP_POOL) == 0 {
                b = b.evidence("no CiliumLoadBalancerIPPool in the inputs: Cilium LB IPAM has no addresses to give");
            }
            for e in cx.graph.edges_to_kind(id, EdgeKind::Involves) {
                if let Some(ev) = cx.graph.view::<Event>(e.from) {
                    if ev.event_type.as_deref() == Some("Warning") {
                        b = b
                            .evidence(format!("Event {}: {}", ev.reason.as_deref().unwrap_or("-"), ev.text()))
                            .related(cx.graph.obj(e.from).to_ref());
                    }
                }
            }
            b.fix("provide a load-balancer address source for the Service (IP pool, ServiceLB), or use type NodePort")
                .emit();
        }
    }
}
