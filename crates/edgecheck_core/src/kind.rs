//! Kinds, matched by API group and kind across versions (docs/design.md "Kinds").

use std::fmt;

/// A group/kind pair. The version is not part of a kind's identity: a TLSRoute is a TLSRoute in
/// `v1alpha2` and `v1`. The version matters only to the served-version check, which reads it from
/// the object's `apiVersion`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Kind {
    /// API group; empty for the core group.
    pub group: crate::value::Str,
    /// Kind, as spelled in `kind:`.
    pub kind: crate::value::Str,
}

/// A compile-time group/kind used to name the kinds edgecheck understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct K {
    /// API group.
    pub group: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// The version edgecheck writes when it names an object of this kind that it has not seen.
    pub version: &'static str,
}

macro_rules! kinds {
    ($($name:ident = $group:literal, $kind:literal, $version:literal;)*) => {
        impl K {
            $(#[doc = concat!("`", $kind, "` in group `", $group, "`.")] pub const $name: K = K { group: $group, kind: $kind, version: $version };)*
            /// Every kind edgecheck has a name for.
            pub const KNOWN: &'static [K] = &[$(K::$name),*];
        }
    };
}

kinds! {
    NAMESPACE = "", "Namespace", "v1";
    SERVICE = "", "Service", "v1";
    SECRET = "", "Secret", "v1";
    CONFIG_MAP = "", "ConfigMap", "v1";
    POD = "", "Pod", "v1";
    EVENT = "", "Event", "v1";
    ENDPOINTS = "", "Endpoints", "v1";
    PVC = "", "PersistentVolumeClaim", "v1";
    SERVICE_ACCOUNT = "", "ServiceAccount", "v1";
    EVENT_V1 = "events.k8s.io", "Event", "v1";
    ENDPOINT_SLICE = "discovery.k8s.io", "EndpointSlice", "v1";
    DEPLOYMENT = "apps", "Deployment", "v1";
    STATEFUL_SET = "apps", "StatefulSet", "v1";
    DAEMON_SET = "apps", "DaemonSet", "v1";
    REPLICA_SET = "apps", "ReplicaSet", "v1";
    JOB = "batch", "Job", "v1";
    CRON_JOB = "batch", "CronJob", "v1";
    INGRESS = "networking.k8s.io", "Ingress", "v1";
    INGRESS_EXTENSIONS = "extensions", "Ingress", "v1beta1";
    INGRESS_CLASS = "networking.k8s.io", "IngressClass", "v1";
    CRD = "apiextensions.k8s.io", "CustomResourceDefinition", "v1";
    GATEWAY_CLASS = "gateway.networking.k8s.io", "GatewayClass", "v1";
    GATEWAY = "gateway.networking.k8s.io", "Gateway", "v1";
    HTTP_ROUTE = "gateway.networking.k8s.io", "HTTPRoute", "v1";
    GRPC_ROUTE = "gateway.networking.k8s.io", "GRPCRoute", "v1";
    TLS_ROUTE = "gateway.networking.k8s.io", "TLSRoute", "v1alpha2";
    TCP_ROUTE = "gateway.networking.k8s.io", "TCPRoute", "v1alpha2";
    UDP_ROUTE = "gateway.networking.k8s.io", "UDPRoute", "v1alpha2";
    REFERENCE_GRANT = "gateway.networking.k8s.io", "ReferenceGrant", "v1beta1";
    BACKEND_TLS_POLICY = "gateway.networking.k8s.io", "BackendTLSPolicy", "v1";
    LISTENER_SET = "gateway.networking.x-k8s.io", "XListenerSet", "v1alpha1";
    LISTENER_SET_STD = "gateway.networking.k8s.io", "ListenerSet", "v1";
    CERTIFICATE = "cert-manager.io", "Certificate", "v1";
    CERTIFICATE_REQUEST = "cert-manager.io", "CertificateRequest", "v1";
    ISSUER = "cert-manager.io", "Issuer", "v1";
    CLUSTER_ISSUER = "cert-manager.io", "ClusterIssuer", "v1";
    ORDER = "acme.cert-manager.io", "Order", "v1";
    CHALLENGE = "acme.cert-manager.io", "Challenge", "v1";
    TRAEFIK_INGRESS_ROUTE = "traefik.io", "IngressRoute", "v1alpha1";
    TRAEFIK_INGRESS_ROUTE_TCP = "traefik.io", "IngressRouteTCP", "v1alpha1";
    TRAEFIK_TLS_OPTION = "traefik.io", "TLSOption", "v1alpha1";
    TRAEFIK_MIDDLEWARE = "traefik.io", "Middleware", "v1alpha1";
    TRAEFIK_SERVERS_TRANSPORT = "traefik.io", "ServersTransport", "v1alpha1";
    TRAEFIK_OLD_INGRESS_ROUTE = "traefik.containo.us", "IngressRoute", "v1alpha1";
    TRAEFIK_OLD_INGRESS_ROUTE_TCP = "traefik.containo.us", "IngressRouteTCP", "v1alpha1";
    TRAEFIK_OLD_TLS_OPTION = "traefik.containo.us", "TLSOption", "v1alpha1";
    EXTERNAL_SECRET = "external-secrets.io", "ExternalSecret", "v1";
    CLUSTER_EXTERNAL_SECRET = "external-secrets.io", "ClusterExternalSecret", "v1";
    SECRET_STORE = "external-secrets.io", "SecretStore", "v1";
    CLUSTER_SECRET_STORE = "external-secrets.io", "ClusterSecretStore", "v1";
    PUSH_SECRET = "external-secrets.io", "PushSecret", "v1alpha1";
    SEALED_SECRET = "bitnami.com", "SealedSecret", "v1alpha1";
    APPLICATION = "argoproj.io", "Application", "v1alpha1";
    APPLICATION_SET = "argoproj.io", "ApplicationSet", "v1alpha1";
    APP_PROJECT = "argoproj.io", "AppProject", "v1alpha1";
    ALB_CONFIG = "alibabacloud.com", "AlbConfig", "v1";
    CILIUM_LB_IP_POOL = "cilium.io", "CiliumLoadBalancerIPPool", "v2";
    CILIUM_GATEWAY_CLASS_CONFIG = "cilium.io", "CiliumGatewayClassConfig", "v2alpha1";
    HELM_CHART = "helm.cattle.io", "HelmChart", "v1";
    HELM_CHART_CONFIG = "helm.cattle.io", "HelmChartConfig", "v1";
}

impl K {
    /// The owned form.
    pub fn to_kind(self) -> Kind {
        Kind { group: self.group.into(), kind: self.kind.into() }
    }

    /// `group/version` as written in `apiVersion`.
    pub fn api_version(self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

impl Kind {
    /// Builds a kind from an `apiVersion` and a `kind` field.
    pub fn from_api_version(api_version: &str, kind: &str) -> Kind {
        Kind { group: group_of(api_version).into(), kind: kind.into() }
    }

    /// True when this is the compile-time kind `k`.
    pub fn is(&self, k: K) -> bool {
        self.kind == k.kind && self.group == k.group
    }

    /// True for any of `ks`.
    pub fn is_any(&self, ks: &[K]) -> bool {
        ks.iter().any(|k| self.is(*k))
    }

    /// The compile-time kind for this kind, when edgecheck knows it.
    pub fn known(&self) -> Option<K> {
        K::KNOWN.iter().copied().find(|k| self.is(*k))
    }

    /// True when objects of this kind live in a namespace. Unknown kinds are taken as namespaced.
    pub fn namespaced(&self) -> bool {
        !self.is_any(&[
            K::NAMESPACE,
            K::INGRESS_CLASS,
            K::CRD,
            K::GATEWAY_CLASS,
            K::CLUSTER_ISSUER,
            K::CLUSTER_SECRET_STORE,
            K::CLUSTER_EXTERNAL_SECRET,
            K::CILIUM_LB_IP_POOL,
            K::CILIUM_GATEWAY_CLASS_CONFIG,
            K::ALB_CONFIG,
        ]) && !matches!(
            self.kind.as_str(),
            "ClusterRole"
                | "ClusterRoleBinding"
                | "PersistentVolume"
                | "StorageClass"
                | "Node"
                | "PriorityClass"
                | "ValidatingWebhookConfiguration"
                | "MutatingWebhookConfiguration"
                | "APIService"
                | "ClusterTrustBundle"
        )
    }
}

/// The group part of an `apiVersion` (`""` for `v1`).
pub fn group_of(api_version: &str) -> &str {
    match api_version.rsplit_once('/') {
        Some((g, _)) => g,
        None => "",
    }
}

/// The version part of an `apiVersion`.
pub fn version_of(api_version: &str) -> &str {
    match api_version.rsplit_once('/') {
        Some((_, v)) => v,
        None => api_version,
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_objects_kind_is_shared_and_compares_as_its_kind() {
        let v1 = ObjKind::new("networking.k8s.io/v1", Kind::from_api_version("networking.k8s.io/v1", "Ingress"));
        let again = ObjKind::new("networking.k8s.io/v1", Kind::from_api_version("networking.k8s.io/v1", "Ingress"));
        let beta =
            ObjKind::new("networking.k8s.io/v1beta1", Kind::from_api_version("networking.k8s.io/v1beta1", "Ingress"));
        // One copy per kind and version; the version is not part of the kind's identity.
        assert!(std::sync::Arc::ptr_eq(&v1.0, &again.0));
        assert!(!std::sync::Arc::ptr_eq(&v1.0, &beta.0));
        assert_eq!(v1, beta);
        assert_eq!(v1, K::INGRESS.to_kind());
        assert_eq!((v1.api_version(), beta.api_version()), ("networking.k8s.io/v1", "networking.k8s.io/v1beta1"));
        assert_eq!((v1.group.as_str(), v1.kind.as_str()), ("networking.k8s.io", "Ingress"));
        // Kinds no object holds any longer are swept from the table as it grows.
        drop((v1, again, beta));
        for i in 0..3000 {
            let k = format!("K{i}");
            let _ = ObjKind::new("example.com/v1", Kind::from_api_version("example.com/v1", &k));
        }
        let held = TABLE.with(|t| t.borrow().len());
        assert!(held <= 1024, "{held} entries held");
    }

    #[test]
    fn kinds_match_across_versions() {
        let a = Kind::from_api_version("gateway.networking.k8s.io/v1alpha2", "TLSRoute");
        let b = Kind::from_api_version("gateway.networking.k8s.io/v1", "TLSRoute");
        assert_eq!(a, b);
        assert!(a.is(K::TLS_ROUTE));
        assert!(!a.is(K::HTTP_ROUTE));
        assert!(Kind::from_api_version("v1", "Service").is(K::SERVICE));
        assert_eq!(group_of("v1"), "");
        assert_eq!(version_of("apps/v1"), "v1");
    }

    #[test]
    fn scope() {
        assert!(!K::CLUSTER_ISSUER.to_kind().namespaced());
        assert!(K::ISSUER.to_kind().namespaced());
    }
}

/// An object's group and kind, with its `apiVersion` as written, as a shared pointer: the objects of one
/// kind and version hold one copy (a pointer each, not 72 bytes; #17). Reads, compares and hashes as its
/// [`Kind`] (the version is not part of a kind's identity).
#[derive(Debug, Clone)]
pub struct ObjKind(std::sync::Arc<Typed>);

#[derive(Debug, PartialEq, Eq, Hash)]
struct Typed {
    kind: Kind,
    api_version: crate::value::Str,
}

impl ObjKind {
    /// The shared copy of `kind` written with `api_version` (made once per thread, kind and version).
    pub fn new(api_version: &str, kind: Kind) -> ObjKind {
        ObjKind(intern(Typed { kind, api_version: api_version.into() }))
    }

    /// `apiVersion` as written.
    pub fn api_version(&self) -> &str {
        &self.0.api_version
    }
}

impl std::ops::Deref for ObjKind {
    type Target = Kind;
    fn deref(&self) -> &Kind {
        &self.0.kind
    }
}

impl PartialEq for ObjKind {
    fn eq(&self, other: &ObjKind) -> bool {
        self.0.kind == other.0.kind
    }
}

impl Eq for ObjKind {}

impl std::hash::Hash for ObjKind {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.kind.hash(h);
    }
}

impl PartialOrd for ObjKind {
    fn partial_cmp(&self, other: &ObjKind) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ObjKind {
    fn cmp(&self, other: &ObjKind) -> std::cmp::Ordering {
        self.0.kind.cmp(&other.0.kind)
    }
}

impl PartialEq<Kind> for ObjKind {
    fn eq(&self, other: &Kind) -> bool {
        self.0.kind == *other
    }
}

impl std::fmt::Display for ObjKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.kind.fmt(f)
    }
}

thread_local! {
    /// The shared copies this thread made (see [`intern`]).
    static TABLE: std::cell::RefCell<std::collections::HashMap<Typed, std::sync::Weak<Typed>>> = Default::default();
}

/// The shared copy: a per-thread table of weak pointers, swept of dead ones as it grows, so that a
/// long-running `serve` that meets ever new kinds does not keep them.
fn intern(typed: Typed) -> std::sync::Arc<Typed> {
    use std::sync::{Arc, Weak};
    TABLE.with(|t| {
        let mut t = t.borrow_mut();
        if let Some(k) = t.get(&typed).and_then(Weak::upgrade) {
            return k;
        }
        if t.len() >= 1024 {
            t.retain(|_, w| w.strong_count() > 0);
        }
        let key = Typed { kind: typed.kind.clone(), api_version: typed.api_version.clone() };
        let k = Arc::new(typed);
        t.insert(key, Arc::downgrade(&k));
        k
    })
}
