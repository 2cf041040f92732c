//! Typed views over dynamic objects: small, lenient serde structs holding the fields checks read.
//!
//! Views are lenient on purpose (every field defaults): Git repositories hold partial manifests
//! (kustomize patches, Helm output) and one odd field must not hide an object. A view that fails to
//! deserialize (a field of the wrong type) is recorded by the graph as a schema problem.
//! Kinds are matched by group and kind, across versions.

mod alb;
mod argocd;
mod certmanager;
mod cilium;
mod core;
mod crd;
mod eso;
mod gateway;
mod networking;
mod traefik;

pub use alb::*;
pub use argocd::*;
pub use certmanager::*;
pub use cilium::*;
pub use core::*;
pub use crd::*;
pub use eso::*;
pub use gateway::*;
pub use networking::*;
pub use traefik::*;

use serde::Deserialize;

use crate::kind::{Kind, K};

/// A port given as a number or a name (`IntOrString`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(untagged)]
pub enum PortRef {
    /// By number.
    Number(i64),
    /// By name (or a number written as a string).
    Name(String),
}

impl PortRef {
    /// The number, also when written as a string.
    pub fn number(&self) -> Option<i64> {
        match self {
            PortRef::Number(n) => Some(*n),
            PortRef::Name(s) => s.parse().ok(),
        }
    }
}

impl std::fmt::Display for PortRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PortRef::Number(n) => write!(f, "{n}"),
            PortRef::Name(s) => f.write_str(s),
        }
    }
}

/// A member most objects do not have (the `status` of an object read from a file): absent, it takes a
/// pointer rather than its whole size, and it reads as its empty value (#17).
#[derive(Debug, Clone, Default)]
pub struct Rare<T>(Option<Box<T>>);

/// The empty value a [`Rare`] member reads as when absent.
pub trait Empty: 'static {
    /// The empty value.
    fn empty() -> &'static Self;
}

impl<T: Empty> std::ops::Deref for Rare<T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &self.0 {
            Some(t) => t,
            None => T::empty(),
        }
    }
}

impl<T> From<T> for Rare<T> {
    fn from(t: T) -> Rare<T> {
        Rare(Some(Box::new(t)))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Rare<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Rare::from)
    }
}

/// A `{group, kind, name, namespace}` reference as Gateway API and others write it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TypedRef {
    /// API group (`""` core).
    pub group: Option<String>,
    /// Kind.
    pub kind: Option<String>,
    /// Name.
    pub name: String,
    /// Namespace.
    pub namespace: Option<String>,
}

macro_rules! views {
    ($($variant:ident($ty:ty) => [$($k:ident),+];)*) => {
        /// The typed view of an object, when edgecheck understands its kind.
        #[derive(Debug, Clone)]
        #[non_exhaustive]
        pub enum View {
            $(#[doc = concat!("A `", stringify!($variant), "`.")] $variant(Box<$ty>),)*
            /// A kind edgecheck has no view for (kept, never dropped).
            Other,
        }

        impl View {
            /// Builds the view for an object of `kind`; `Ok(View::Other)` for kinds without a view.
            pub fn build(kind: &Kind, value: crate::doc::ValueRef<'_>) -> Result<View, SchemaError> {
                $(
                    if kind.is_any(&[$(K::$k),+]) {
                        // Fast path first; on error, deserialize again tracking the path for file:line.
                        if let Ok(v) = <$ty>::deserialize(value) {
                            return Ok(View::$variant(Box::new(v)));
                        }
                        return serde_path_to_error::deserialize::<_, $ty>(value)
                            .map(|v| View::$variant(Box::new(v)))
                            .map_err(|e| SchemaError::new(e.path().to_string(), &e.into_inner()));
                    }
                )*
                Ok(View::Other)
            }
        }

        $(
            impl ViewOf for $ty {
                const KINDS: &'static [K] = &[$(K::$k),+];
                fn pick(v: &View) -> Option<&Self> {
                    match v { View::$variant(x) => Some(x), _ => None }
                }
            }
        )*
    };
}

/// A field of the wrong type: where (`spec.tls[0].hosts`) and what serde said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// Path of the field, in `LineTable::hash_path` syntax.
    pub path: String,
    /// What serde said, without the value that did not fit ([`crate::redact::schema_message`]): the value
    /// may be a password.
    pub message: String,
}

impl SchemaError {
    /// The error at `path`, its message stripped of the offending value.
    pub fn new(path: String, error: &impl std::fmt::Display) -> SchemaError {
        SchemaError { path, message: crate::redact::schema_message(&error.to_string()) }
    }
}

/// A type that is the view of some kinds.
pub trait ViewOf: Sized {
    /// The kinds this view is built for.
    const KINDS: &'static [K];
    /// This view, if `v` is one.
    fn pick(v: &View) -> Option<&Self>;
}

views! {
    Ingress(Ingress) => [INGRESS, INGRESS_EXTENSIONS];
    IngressClass(IngressClass) => [INGRESS_CLASS];
    Service(Service) => [SERVICE];
    Workload(Workload) => [DEPLOYMENT, STATEFUL_SET, DAEMON_SET, REPLICA_SET, JOB, CRON_JOB, POD];
    ConfigMap(ConfigMap) => [CONFIG_MAP];
    Event(Event) => [EVENT, EVENT_V1];
    Namespace(Namespace) => [NAMESPACE];
    EndpointSlice(EndpointSlice) => [ENDPOINT_SLICE];
    Gateway(Gateway) => [GATEWAY];
    GatewayClass(GatewayClass) => [GATEWAY_CLASS];
    Route(Route) => [HTTP_ROUTE, GRPC_ROUTE, TLS_ROUTE, TCP_ROUTE, UDP_ROUTE];
    ReferenceGrant(ReferenceGrant) => [REFERENCE_GRANT];
    ListenerSet(ListenerSet) => [LISTENER_SET, LISTENER_SET_STD];
    BackendTlsPolicy(BackendTlsPolicy) => [BACKEND_TLS_POLICY];
    Certificate(Certificate) => [CERTIFICATE];
    Issuer(Issuer) => [ISSUER, CLUSTER_ISSUER];
    TraefikRoute(TraefikRoute) => [TRAEFIK_INGRESS_ROUTE, TRAEFIK_INGRESS_ROUTE_TCP, TRAEFIK_OLD_INGRESS_ROUTE, TRAEFIK_OLD_INGRESS_ROUTE_TCP];
    TlsOption(TlsOption) => [TRAEFIK_TLS_OPTION, TRAEFIK_OLD_TLS_OPTION];
    ExternalSecret(ExternalSecret) => [EXTERNAL_SECRET];
    SecretStore(SecretStore) => [SECRET_STORE, CLUSTER_SECRET_STORE];
    Application(Application) => [APPLICATION];
    Crd(Crd) => [CRD];
    CertificateRequest(CertificateRequest) => [CERTIFICATE_REQUEST];
    AcmeOrder(AcmeOrder) => [ORDER];
    AcmeChallenge(AcmeChallenge) => [CHALLENGE];
    AlbConfig(AlbConfig) => [ALB_CONFIG];
    CiliumLbIpPool(CiliumLbIpPool) => [CILIUM_LB_IP_POOL];
}
