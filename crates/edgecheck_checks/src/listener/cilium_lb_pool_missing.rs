use edgecheck_core::labels::Labels;
use edgecheck_core::ValueRef;

use edgecheck_core::graph::EdgeKind;
use edgecheck_core::kind::K;
use edgecheck_core::views::{CiliumLbIpPool, Gateway, GatewayClass, Service};
use edgecheck_core::Value;
use edgecheck_core::{Findings, Graph, Layer, ObjId, Object, Severity};

use crate::framework::{declare_check, CheckContext};

/// The controller name of Cilium's Gateway API implementation.
const CILIUM_CONTROLLER: &str = "io.cilium/gateway-controller";
/// Cilium kinds whose presence shows the repository manages Cilium's load-balancer addressing.
const LB_AREA_KINDS: &[&str] = &[
    "CiliumLoadBalancerIPPool",
    "CiliumL2AnnouncementPolicy",
    "CiliumBGPPeeringPolicy",
    "CiliumBGPClusterConfig",
    "CiliumBGPAdvertisement",
    "CiliumGatewayClassConfig",
];

declare_check! {
    /// ## What it checks
    /// A Gateway of a Cilium GatewayClass (`controllerName: io.cilium/gateway-controller`) for which
    /// Cilium creates a `LoadBalancer` Service (the default; a CiliumGatewayClassConfig with
    /// `service.type: NodePort` or `ClusterIP` avoids it), or a `LoadBalancer` Service in a repository
    /// that defines CiliumLoadBalancerIPPools, when no pool would give it an address:
    /// - no CiliumLoadBalancerIPPool in the inputs: an error on a full dump, a warning when the
    ///   repository manages Cilium load-balancer addressing (it holds pools, L2 announcement or BGP
    ///   policies, or CiliumGatewayClassConfigs) or holds the Gateway's Cilium GatewayClass itself,
    ///   silence otherwise. A Gateway that asks a cloud load balancer for its address (cloud
    ///   annotations in `spec.infrastructure.annotations`), Cilium Gateways on the host network
    ///   (`gatewayAPI.hostNetwork.enabled` in Cilium's chart values), and a repository that gives
    ///   LoadBalancer addresses another way (MetalLB pools, kube-vip) need no pool;
    /// - pools exist but every one is disabled or its `serviceSelector` does not match the Service's
    ///   labels (for a Gateway, `io.cilium.gateway/owning-gateway: <name>`, the
    ///   `spec.infrastructure.labels`, and Cilium's `io.kubernetes.service.namespace`/`name`): a warning.
    ///
    /// ## Why it matters
    /// Without a pool Cilium LB IPAM has no address to hand out: the Service's external IP stays
    /// `<pending>`, the Gateway reports `Programmed=False` with `AddressNotAssigned`, Argo CD shows the
    /// Gateway's Application Degraded, and nothing outside the cluster reaches its listeners.
    ///
    /// ## Example
    /// ```yaml
    /// kind: GatewayClass
    /// metadata: {name: cilium}
    /// spec: {controllerName: io.cilium/gateway-controller}   # default: a LoadBalancer Service
    /// ---
    /// kind: Gateway
    /// spec: {gatewayClassName: cilium, ...}                  # and no CiliumLoadBalancerIPPool
    /// ```
    ///
    /// ## How to fix
    /// Add a CiliumLoadBalancerIPPool whose `serviceSelector` matches the Service (and announce it with
    /// L2 or BGP), or use a CiliumGatewayClassConfig with `service.type: NodePort` and a GatewayClass
    /// that names it.
    pub(crate) struct CiliumLbPoolMissing {
        code: "LSN033", name: "cilium-lb-pool-missing", layer: Layer::Listener, severity: Severity::Warning, also: [Severity::Error],
    }
}

impl CiliumLbPoolMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let pools = cx.graph.each::<CiliumLbIpPool>();
        let manages =
            cx.graph.iter().any(|(_, o)| o.kind.group == "cilium.io" && LB_AREA_KINDS.contains(&o.kind.kind.as_str()));
        let other_way = cx.graph.iter().any(|(_, o)| cilium_host_network(o.value.root()) || other_lb_ipam(o));
        let mut subjects: Vec<Subject<'_>> = Vec::new();
        for (id, o, gw) in cx.graph.each::<Gateway>() {
            let Some(class) = cilium_class(cx.graph, id) else { continue };
            let service_type = class_service_type(cx.graph, class);
            if service_type != "LoadBalancer" || has_address(o) || other_way || cloud_load_balancer(o) {
                continue;
            }
            let ns = o.namespace.clone().unwrap_or_default();
            let mut labels: Labels = gw
                .spec
                .infrastructure
                .as_ref()
                .and_then(|i| i.get("labels"))
                .and_then(Value::as_object)
                .map(|m| m.iter().filter_map(|(k, v)| Some((k.as_str(), v.as_str()?))).collect())
                .unwrap_or_default();
            labels.insert("io.cilium.gateway/owning-gateway", o.name.as_str());
            labels.insert("io.kubernetes.service.namespace", ns);
            labels.insert("io.kubernetes.service.name", format!("cilium-gateway-{}", o.name));
            let why = format!(
                "GatewayClass `{}` is Cilium's and makes a {service_type} Service for the Gateway",
                cx.graph.obj(class).name
            );
            // The repository holds the Cilium GatewayClass: it manages what Cilium needs for it.
            subjects.push(Subject { o, path: "spec.gatewayClassName", labels, why, class_held: true });
        }
        if !pools.is_empty() {
            for (_, o, svc) in cx.graph.each::<Service>() {
                if svc.spec.kind() != "LoadBalancer"
                    || svc.spec.load_balancer_class.as_deref().is_some_and(|c| !c.starts_with("io.cilium"))
                    || has_address(o)
                {
                    continue;
                }
                let mut labels: Labels = o
                    .labels()
                    .map(|m| m.iter().filter_map(|(k, v)| Some((k, v.as_str()?))).collect())
                    .unwrap_or_default();
                labels.insert("io.kubernetes.service.namespace", o.namespace.as_deref().unwrap_or_default());
                labels.insert("io.kubernetes.service.name", o.name.as_str());
                subjects.push(Subject {
                    o,
                    path: "spec.type",
                    labels,
                    why: "type: LoadBalancer".into(),
                    class_held: false,
                });
            }
        }
        for Subject { o, path, labels, why, class_held } in subjects {
            if pools.is_empty() {
                let sev = if cx.graph.complete {
                    Severity::Error
                } else if manages || class_held {
                    Severity::Warning
                } else {
                    continue;
                };
                out.at(o, path)
                    .severity(sev)
                    .message(format!(
                        "{} needs a LoadBalancer address from Cilium LB IPAM, and no CiliumLoadBalancerIPPool exists; its address stays pending",
                        o.to_ref()
                    ))
                    .evidence(why)
                    .evidence("CiliumLoadBalancerIPPools in the inputs: none")
                    .fix("add a CiliumLoadBalancerIPPool (announced by L2 or BGP), or a CiliumGatewayClassConfig with service.type NodePort")
                    .emit();
                continue;
            }
            if pools.iter().any(|(_, _, p)| p.serves(&labels)) {
                continue;
            }
            let names: Vec<String> = pools.iter().map(|(_, p, _)| p.name.to_string()).collect();
            let shown: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.at(o, path)
                .message(format!(
                    "{} needs a LoadBalancer address from Cilium LB IPAM, and no CiliumLoadBalancerIPPool selects it; its address stays pending",
                    o.to_ref()
                ))
                .evidence(why)
                .evidence(format!("Service labels: {}", shown.join(", ")))
                .evidence(format!("pools (disabled or serviceSelector not matching): {}", names.join(", ")))
                .related_all(pools.iter().map(|(_, p, _)| p.to_ref()))
                .fix("widen a pool's serviceSelector to match the Service, or add a pool for it")
                .emit();
        }
    }
}

/// What needs an address from Cilium LB IPAM: a Gateway of a Cilium class, or a LoadBalancer Service.
struct Subject<'a> {
    o: &'a Object,
    /// The field the finding points at.
    path: &'static str,
    /// The labels of the Service a pool's `serviceSelector` is matched against.
    labels: Labels,
    /// Why it needs one, as evidence.
    why: String,
    /// The repository holds its Cilium GatewayClass (so it manages what Cilium needs for it).
    class_held: bool,
}

/// Another way the repository gives LoadBalancer addresses: MetalLB's pools and advertisements, kube-vip.
fn other_lb_ipam(o: &Object) -> bool {
    o.kind.group == "metallb.io" || o.name.starts_with("kube-vip") || o.name == "kubevip"
}

/// The GatewayClass of a Gateway when it is Cilium's.
fn cilium_class(graph: &Graph, gateway: ObjId) -> Option<ObjId> {
    graph.edges_from_kind(gateway, EdgeKind::GatewayClass).find_map(|e| {
        let id = e.to.found()?;
        (graph.view::<GatewayClass>(id)?.spec.controller_name == CILIUM_CONTROLLER).then_some(id)
    })
}

/// The Service type Cilium creates for Gateways of this class: its CiliumGatewayClassConfig's
/// `spec.service.type`, else `LoadBalancer`.
fn class_service_type(graph: &Graph, class: ObjId) -> String {
    graph
        .edges_from_kind(class, EdgeKind::ClassParameters)
        .filter_map(|e| e.to.found())
        .map(|id| graph.obj(id))
        .find(|o| o.is(K::CILIUM_GATEWAY_CLASS_CONFIG))
        .and_then(|o| o.value.pointer("/spec/service/type").and_then(ValueRef::as_str).map(str::to_string))
        .unwrap_or_else(|| "LoadBalancer".into())
}

/// An address in live status proves an IP was allocated (by a pool elsewhere, or another LB): no alarm.
fn has_address(o: &Object) -> bool {
    let non_empty = |p: &str| o.value.pointer(p).and_then(ValueRef::as_array).is_some_and(|a| !a.is_empty());
    non_empty("/status/addresses") || non_empty("/status/loadBalancer/ingress")
}

/// Cloud load-balancer annotations a Gateway passes to its Service (`spec.infrastructure.annotations`):
/// the cloud's controller, not Cilium LB IPAM, gives the address.
fn cloud_load_balancer(o: &Object) -> bool {
    const CLOUD: &[&str] =
        &["service.beta.kubernetes.io/", "cloud.google.com/", "networking.gke.io/", "service.kubernetes.io/"];
    o.value
        .pointer("/spec/infrastructure/annotations")
        .and_then(ValueRef::as_object)
        .is_some_and(|a| a.keys().any(|k| CLOUD.iter().any(|c| k.starts_with(c))))
}

/// Cilium chart values that put Gateways on the host network (`gatewayAPI.hostNetwork.enabled: true`, in
/// a HelmRelease's `spec.values` or an Application's Helm `valuesObject`): no LoadBalancer Service.
fn cilium_host_network(v: ValueRef<'_>) -> bool {
    let on = |x: Option<ValueRef<'_>>| x.and_then(ValueRef::as_bool) == Some(true);
    on(v.pointer("/spec/values/gatewayAPI/hostNetwork/enabled"))
        || ["/spec/source", "/spec/sources/0", "/spec/sources/1", "/spec/sources/2"]
            .iter()
            .any(|p| on(v.pointer(&format!("{p}/helm/valuesObject/gatewayAPI/hostNetwork/enabled"))))
}
