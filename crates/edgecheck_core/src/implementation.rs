//! What each Gateway API implementation accepts beyond the spec's core, keyed by the
//! `controllerName` of its GatewayClass. One table, read by the Gateway model (which conditions a
//! controller would write) and by the checks that judge Secrets and backends.
//!
//! The spec leaves some choices to implementations: extra backend kinds, extra CA sources, extra
//! Secret types, and (for implementations that are not conformant) whether listener hostnames and
//! `sectionName` matter at all. Each entry names the source that says so. When a parent's
//! implementation is not known (no GatewayClass in the inputs, or a controller not listed), every
//! implementation's extensions are accepted: edgecheck never calls a kind invalid that some
//! implementation routes to.

use crate::doc::ValueRef;
use crate::graph::{EdgeKind, Graph, ObjId};
use crate::views;

/// One Gateway API implementation.
#[derive(Debug, PartialEq, Eq)]
pub struct Implementation {
    /// Its name, as operators say it.
    pub name: &'static str,
    /// `controllerName` values of its GatewayClasses.
    pub controllers: &'static [&'static str],
    /// Backend kinds (group, kind) its routes may name besides the core `Service`.
    pub backend_kinds: &'static [(&'static str, &'static str)],
    /// Kinds a BackendTLSPolicy's `caCertificateRefs` may name besides `ConfigMap` (matched by kind,
    /// as the implementation does).
    pub ca_kinds: &'static [&'static str],
    /// Secret types a listener's `certificateRefs` may name besides `kubernetes.io/tls`.
    pub listener_secret_types: &'static [&'static str],
    /// Routes attach by the parentRef's name alone: listener hostnames, `sectionName` and `port` are
    /// not applied (the controller is not conformant there, and says `Accepted` anyway).
    pub attaches_by_name: bool,
    /// Listener protocols it defines besides the core ones, spelled without the domain prefix the spec asks
    /// for (the CRD accepts them).
    pub protocols: &'static [&'static str],
    /// Gateway API features (`pkg/features` names) whose support is known for every release in use,
    /// with whether they are supported: what a GatewayClass's `status.supportedFeatures` would say when
    /// the inputs do not hold it. A feature not listed is unknown (it depends on the version, or
    /// nobody reported it).
    pub features: &'static [(&'static str, bool)],
    /// Where this is written (source file at a commit, or documentation).
    pub source: &'static str,
}

impl Implementation {
    /// Whether the implementation supports `feature`, when that is known.
    pub fn supports(&self, feature: &str) -> Option<bool> {
        self.features.iter().find(|(f, _)| *f == feature).map(|(_, s)| *s)
    }
}

/// The conformance reports the `features` entries are read from: kubernetes-sigs/gateway-api at tag
/// v1.6.1 (8bb74df00e56ec8f944d48c25e6c1c9c2f6848e3), `conformance/reports/v1.5/<implementation>/`.
pub const FEATURE_REPORTS: &str = "kubernetes-sigs/gateway-api v1.6.1 conformance/reports/v1.5";

/// Backend kinds the spec itself names as Extended or that several implementations share: accepted
/// whatever the implementation.
pub const SHARED_BACKEND_KINDS: &[(&str, &str)] = &[
    ("multicluster.x-k8s.io", "ServiceImport"),
    ("inference.networking.k8s.io", "InferencePool"),
    ("inference.networking.x-k8s.io", "InferencePool"),
];

/// The implementations edgecheck knows.
pub const IMPLEMENTATIONS: &[Implementation] = &[
    Implementation {
        name: "Envoy Gateway",
        controllers: &["gateway.envoyproxy.io/gatewayclass-controller"],
        backend_kinds: &[("gateway.envoyproxy.io", "Backend")],
        ca_kinds: &["Secret", "ClusterTrustBundle"],
        listener_secret_types: &["gateway.envoyproxy.io/sds"],
        attaches_by_name: false,
        protocols: &[],
        features: &[("TLSRouteModeMixed", true), ("TLSRouteModeTerminate", true)],
        source: "envoyproxy/gateway internal/gatewayapi/validate.go (validateBackendRefKind, certificate refs \
                 with SDSSecretType), backendtlspolicy.go (getCaCertsFromCARefs: ConfigMap, Secret, \
                 ClusterTrustBundle), api/v1alpha1/shared_types.go (SDSSecretType); TLSRouteModeMixed and TLSRouteModeTerminate: envoy-gateway/experimental-v1.8.0-default-report.yaml (FEATURE_REPORTS)",
    },
    Implementation {
        name: "kgateway",
        controllers: &["kgateway.dev/kgateway"],
        backend_kinds: &[("gateway.kgateway.dev", "Backend")],
        ca_kinds: &["Secret"],
        listener_secret_types: &[],
        attaches_by_name: false,
        protocols: &[],
        features: &[("TLSRouteModeMixed", true), ("TLSRouteModeTerminate", true)],
        source: "kgateway docs: Backend (gateway.kgateway.dev) as a backendRef; TLSRouteModeMixed and TLSRouteModeTerminate: kgateway/v2.3.0-beta.3-report.yaml (FEATURE_REPORTS)",
    },
    Implementation {
        name: "Traefik",
        controllers: &["traefik.io/gateway-controller"],
        backend_kinds: &[("traefik.io", "TraefikService"), ("traefik.containo.us", "TraefikService")],
        ca_kinds: &["Secret"],
        listener_secret_types: &[],
        attaches_by_name: false,
        protocols: &[],
        features: &[("TLSRouteModeMixed", true), ("TLSRouteModeTerminate", true)],
        source: "Traefik docs, Kubernetes Gateway provider: TraefikService as a backendRef; TLSRouteModeMixed and TLSRouteModeTerminate: traefik-traefik/experimental-v3.7.0-default-report.yaml (FEATURE_REPORTS)",
    },
    Implementation {
        name: "Istio",
        controllers: &["istio.io/gateway-controller", "istio.io/unmanaged-gateway", "istio.io/mesh-controller"],
        backend_kinds: &[("networking.istio.io", "Hostname"), ("networking.istio.io", "ServiceEntry")],
        ca_kinds: &["Secret"],
        listener_secret_types: &[],
        attaches_by_name: false,
        protocols: &["HBONE"],
        features: &[],
        source: "Istio docs, Gateway API: backendRefs of kind Hostname and ServiceEntry (networking.istio.io); ambient waypoints: GatewayClass `istio-waypoint` (controller istio.io/mesh-controller) with an `HBONE` listener on 15008",
    },
    Implementation {
        name: "GKE Gateway",
        controllers: &["networking.gke.io/gateway", "networking.gke.io/gateway-controller"],
        backend_kinds: &[("net.gke.io", "ServiceImport")],
        ca_kinds: &[],
        listener_secret_types: &[],
        attaches_by_name: false,
        protocols: &[],
        features: &[],
        source: "GKE docs, multi-cluster Gateways: ServiceImport (net.gke.io) as a backendRef",
    },
    Implementation {
        name: "Cilium",
        controllers: &["io.cilium/gateway-controller"],
        backend_kinds: &[],
        ca_kinds: &[],
        listener_secret_types: &[],
        attaches_by_name: false,
        protocols: &[],
        features: &[],
        // TLSRouteModeMixed: supported in the v1.20.0-pre.2 report (FEATURE_REPORTS), while earlier
        // releases program one of a port's Passthrough and Terminate listeners only: version-dependent.
        source: "Cilium docs, Gateway API support; cilium/experimental-v1.20.0-pre.2-default-report.yaml \
                 (FEATURE_REPORTS) for TLS modes, which earlier releases lack",
    },
    Implementation {
        name: "NGINX Gateway Fabric",
        controllers: &["gateway.nginx.org/nginx-gateway-controller"],
        backend_kinds: &[],
        ca_kinds: &[],
        listener_secret_types: &[],
        attaches_by_name: false,
        protocols: &[],
        features: &[("TLSRouteModeMixed", false), ("TLSRouteModeTerminate", false)],
        source: "nginx-nginx-gateway-fabric/experimental-2.6.0-default-report.yaml (FEATURE_REPORTS): \
                 TLSRouteModeMixed and TLSRouteModeTerminate under unsupportedFeatures",
    },
    Implementation {
        name: "Cloudflare Kubernetes Gateway (pl4nty)",
        controllers: &["github.com/pl4nty/cloudflare-kubernetes-gateway"],
        backend_kinds: &[],
        ca_kinds: &[],
        listener_secret_types: &[],
        attaches_by_name: true,
        protocols: &[],
        features: &[],
        source: "pl4nty/cloudflare-kubernetes-gateway internal/controller/httproute_controller.go at \
                 1b61c5f2b8090abba3f24cec24a7f0e25ae0da5a: tunnel ingress is built from every route whose \
                 parentRef names the Gateway, from spec.hostnames x paths x backends; listener hostnames \
                 and sectionName are not read",
    },
    Implementation {
        name: "STUNner",
        controllers: &["stunner.l7mp.io/gateway-operator"],
        backend_kinds: &[("stunner.l7mp.io", "StaticService")],
        ca_kinds: &[],
        listener_secret_types: &[],
        attaches_by_name: false,
        protocols: &["TURN-UDP", "TURN-TCP", "TURN-TLS", "TURN-DTLS", "DTLS"],
        features: &[],
        source: "l7mp/stunner docs/GATEWAY.md: Gateway listeners speak TURN-UDP, TURN-TCP, TURN-TLS or TURN-DTLS; \
                 UDPRoutes may name StaticService backends",
    },
];

/// GatewayClasses an implementation's Helm chart (or its controller, once installed by that chart) makes:
/// (chart name, class name, the values switch that turns it off when `false`, source). A class of this
/// name is not missing where the inventory installs the chart: its values may come from a ConfigMap or a
/// default edgecheck cannot see.
const CHART_CLASSES: &[(&str, &str, &str, &str)] = &[
    ("cilium", "cilium", "/gatewayAPI/enabled", "cilium/cilium install/kubernetes/cilium/templates/cilium-gateway-api-class.yaml: GatewayClass `cilium` when gatewayAPI.enabled"),
    ("traefik", "traefik", "/providers/kubernetesGateway/enabled", "traefik/traefik-helm-chart traefik/templates/gatewayclass.yaml: GatewayClass `traefik` when the Gateway API provider is on (off by default: a miss is preferred to a false alarm)"),
    ("istiod", "istio", "", "Istio documentation (Gateway API task): istiod creates the default GatewayClass `istio`"),
    ("istiod", "istio-waypoint", "", "Istio documentation (ambient, waypoints): istiod creates the GatewayClass `istio-waypoint` that waypoint Gateways name"),
    ("istiod", "istio-remote", "", "Istio documentation (Gateway API task): istiod creates the GatewayClass `istio-remote` for remote gateways"),
    ("nginx-gateway-fabric", "nginx", "", "nginx/nginx-gateway-fabric charts/nginx-gateway-fabric/templates/gatewayclass.yaml: GatewayClass `nginx`"),
    ("kgateway", "kgateway", "", "kgateway documentation (installation): the chart sets up the GatewayClass `kgateway`"),
    ("agentgateway", "agentgateway", "", "agentgateway documentation (Kubernetes install): the chart (oci://cr.agentgateway.dev/charts/agentgateway) sets up the GatewayClass `agentgateway` that Gateways name"),
];

/// Whether an object of the inventory installs a chart that makes GatewayClass `name` (a Flux HelmRelease,
/// an Argo CD Application's Helm source, a k3s HelmChart), not turned off by values it states.
pub fn class_made_by_chart(graph: &Graph, name: &str) -> bool {
    let rows: Vec<_> = CHART_CLASSES.iter().filter(|(_, class, _, _)| *class == name).collect();
    if rows.is_empty() {
        return false;
    }
    let s = |v: ValueRef<'_>, p: &str| v.pointer(p).and_then(ValueRef::as_str).map(str::to_string);
    graph.iter().any(|(_, o)| {
        let v = o.value.root();
        // (chart, its inline values) for each way an object installs a chart
        let mut charts: Vec<(String, Option<ValueRef<'_>>)> = Vec::new();
        match (o.kind.group.as_str(), o.kind.kind.as_str()) {
            ("helm.toolkit.fluxcd.io", "HelmRelease") => {
                let chart = s(v, "/spec/chart/spec/chart").or_else(|| chart_ref(graph, o));
                charts.extend(chart.map(|c| (c, v.pointer("/spec/values"))));
            }
            ("argoproj.io", "Application") => {
                let sources: Vec<ValueRef<'_>> = match (v.pointer("/spec/source"), v.pointer("/spec/sources")) {
                    (_, Some(a)) if a.is_array() => a.as_array().into_iter().flatten().collect(),
                    (Some(src), _) => vec![src],
                    _ => Vec::new(),
                };
                for src in sources {
                    charts.extend(s(src, "/chart").map(|c| (c, src.pointer("/helm/valuesObject"))));
                }
            }
            ("helm.cattle.io", "HelmChart") => charts.extend(s(v, "/spec/chart").map(|c| (c, None))),
            _ => {}
        }
        charts.iter().any(|(chart, values)| {
            let chart = chart.rsplit('/').next().unwrap_or(chart);
            rows.iter().any(|(c, _, switch, _)| {
                *c == chart
                    && (switch.is_empty()
                        || values.and_then(|v| v.pointer(switch)).and_then(crate::doc::ValueRef::as_bool)
                            != Some(false))
            })
        })
    })
}

/// The chart a HelmRelease's `chartRef` names: the last part of its OCIRepository's URL
/// (`oci://gcr.io/istio-release/charts/istiod`, whatever the OCIRepository is called), else the name of what
/// it refers to.
fn chart_ref(graph: &Graph, release: &crate::Object) -> Option<String> {
    let r = release.value.pointer("/spec/chartRef")?;
    let name = r.get("name").and_then(crate::doc::ValueRef::as_str)?;
    let ns = r.get("namespace").and_then(crate::doc::ValueRef::as_str).or(release.namespace.as_deref());
    let url = (r.get("kind").and_then(crate::doc::ValueRef::as_str) == Some("OCIRepository"))
        .then(|| {
            graph.iter().find_map(|(_, o)| {
                (o.kind.group == "source.toolkit.fluxcd.io"
                    && o.kind.kind == "OCIRepository"
                    && o.name == name
                    && o.namespace.as_deref() == ns)
                    .then(|| o.value.pointer("/spec/url").and_then(crate::doc::ValueRef::as_str))
                    .flatten()
            })
        })
        .flatten();
    let chart = url.and_then(|u| u.trim_end_matches('/').rsplit('/').next()).unwrap_or(name);
    Some(chart.to_string())
}

/// Whether some implementation defines listener protocol `p` (a Gateway whose implementation is not known may
/// be one of its).
pub fn defines_protocol(p: &str) -> bool {
    IMPLEMENTATIONS.iter().any(|i| i.protocols.contains(&p))
}

/// The implementation whose GatewayClasses carry `controller`.
pub fn by_controller(controller: &str) -> Option<&'static Implementation> {
    IMPLEMENTATIONS.iter().find(|i| i.controllers.contains(&controller))
}

/// The implementation of a Gateway, or of the Gateway a ListenerSet attaches to: its GatewayClass's
/// `controllerName`, when the class is in the inputs and the controller is listed.
pub fn of_parent(graph: &Graph, parent: ObjId) -> Option<&'static Implementation> {
    let gateway = if graph.view::<views::ListenerSet>(parent).is_some() {
        graph.edges_from_kind(parent, EdgeKind::ParentRef).find_map(|e| e.to.found())?
    } else {
        parent
    };
    graph.edges_from_kind(gateway, EdgeKind::GatewayClass).find_map(|e| {
        let class = graph.view::<views::GatewayClass>(e.to.found()?)?;
        by_controller(&class.spec.controller_name)
    })
}

/// Whether a backend kind is one an implementation defines for itself (its own API group), and which.
fn vendor_of(group: &str, kind: &str) -> Option<&'static Implementation> {
    IMPLEMENTATIONS.iter().find(|i| i.backend_kinds.iter().any(|(g, k)| *g == group && *k == kind))
}

/// How a backend kind stands with a parent's implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    /// The core `Service`.
    Service,
    /// An extension the implementation (or, when it is unknown, some implementation) routes to; what
    /// it resolves to is outside the inventory's reach.
    Extension,
    /// A kind another implementation defines for itself, named on a parent whose implementation is
    /// known and does not list it.
    OtherImplementation(&'static Implementation),
    /// A kind no implementation edgecheck knows routes to.
    Unknown,
}

/// Judges a backendRef's (group, kind) for a parent of implementation `imp` (`None`: unknown).
pub fn backend_kind(imp: Option<&Implementation>, group: &str, kind: &str) -> BackendKind {
    if group.is_empty() && kind == "Service" {
        return BackendKind::Service;
    }
    if SHARED_BACKEND_KINDS.contains(&(group, kind)) {
        return BackendKind::Extension;
    }
    match (imp, vendor_of(group, kind)) {
        (_, None) => BackendKind::Unknown,
        (None, Some(_)) => BackendKind::Extension,
        (Some(i), Some(_)) if i.backend_kinds.contains(&(group, kind)) => BackendKind::Extension,
        (Some(_), Some(vendor)) => BackendKind::OtherImplementation(vendor),
    }
}

/// Whether a Secret type may be served by a listener of implementation `imp` (`None`: unknown).
pub fn listener_secret_type_ok(imp: Option<&Implementation>, secret_type: &str) -> bool {
    secret_type == "kubernetes.io/tls"
        || match imp {
            Some(i) => i.listener_secret_types.contains(&secret_type),
            None => IMPLEMENTATIONS.iter().any(|i| i.listener_secret_types.contains(&secret_type)),
        }
}

/// Whether some implementation accepts `kind` in a BackendTLSPolicy's `caCertificateRefs` (the
/// policy targets Services, so its implementation is whichever Gateway routes to them: any).
pub fn ca_kind_ok(kind: &str) -> bool {
    kind == "ConfigMap" || IMPLEMENTATIONS.iter().any(|i| i.ca_kinds.contains(&kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendor_kinds_belong_to_their_vendor() {
        let eg = by_controller("gateway.envoyproxy.io/gatewayclass-controller");
        let cilium = by_controller("io.cilium/gateway-controller");
        assert_eq!(backend_kind(eg, "gateway.envoyproxy.io", "Backend"), BackendKind::Extension);
        assert_eq!(backend_kind(None, "traefik.io", "TraefikService"), BackendKind::Extension);
        match backend_kind(cilium, "traefik.io", "TraefikService") {
            BackendKind::OtherImplementation(i) => assert_eq!(i.name, "Traefik"),
            other => panic!("{other:?}"),
        }
        assert_eq!(backend_kind(cilium, "multicluster.x-k8s.io", "ServiceImport"), BackendKind::Extension);
        assert_eq!(backend_kind(eg, "", "Service"), BackendKind::Service);
        assert_eq!(backend_kind(eg, "example.com", "Thing"), BackendKind::Unknown);
        assert_eq!(backend_kind(None, "", "Pod"), BackendKind::Unknown);
    }

    #[test]
    fn secret_types_per_implementation() {
        let eg = by_controller("gateway.envoyproxy.io/gatewayclass-controller");
        let cilium = by_controller("io.cilium/gateway-controller");
        assert!(listener_secret_type_ok(eg, "gateway.envoyproxy.io/sds"));
        assert!(listener_secret_type_ok(None, "gateway.envoyproxy.io/sds"));
        assert!(!listener_secret_type_ok(cilium, "gateway.envoyproxy.io/sds"));
        assert!(!listener_secret_type_ok(eg, "Opaque"));
        assert!(ca_kind_ok("ClusterTrustBundle") && ca_kind_ok("ConfigMap") && !ca_kind_ok("Bundle"));
    }

    #[test]
    fn tls_mixed_mode_per_implementation() {
        let of = |c: &str| by_controller(c).and_then(|i| i.supports("TLSRouteModeMixed"));
        assert_eq!(of("gateway.envoyproxy.io/gatewayclass-controller"), Some(true));
        assert_eq!(of("gateway.nginx.org/nginx-gateway-controller"), Some(false));
        // Version-dependent: unknown.
        assert_eq!(of("io.cilium/gateway-controller"), None);
        assert_eq!(of("istio.io/gateway-controller"), None);
    }
}
