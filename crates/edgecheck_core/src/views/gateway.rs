//! Gateway API kinds.

use std::collections::BTreeMap;

use crate::value::Str;
use crate::value::Value;
use serde::Deserialize;

use super::TypedRef;

/// A GatewayClass.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GatewayClass {
    /// Spec.
    pub spec: GatewayClassSpec,
    /// Status (live objects only: a file's status is dropped when the graph is built).
    pub status: GatewayClassStatus,
}

/// GatewayClass status.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GatewayClassStatus {
    /// `supportedFeatures`, as feature names: the newer spelling is a list of `{name: X}` objects, the
    /// older (v1.1) a list of strings; both are read.
    #[serde(deserialize_with = "feature_names")]
    pub supported_features: Option<Vec<Str>>,
}

/// Reads `supportedFeatures` in either spelling (`- HTTPRoute` or `- name: HTTPRoute`); entries of
/// neither shape are skipped.
fn feature_names<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<Str>>, D::Error> {
    let v: Option<Vec<Value>> = Option::deserialize(d)?;
    Ok(v.map(|items| {
        items
            .iter()
            .filter_map(|i| match i {
                Value::String(s) => Some(s.clone()),
                Value::Object(m) => m.get("name").and_then(Value::as_str).map(Str::from),
                _ => None,
            })
            .collect()
    }))
}

/// GatewayClass spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GatewayClassSpec {
    /// Controller name (`io.cilium/gateway-controller`, ...).
    pub controller_name: Str,
    /// Parameters.
    pub parameters_ref: Option<TypedRef>,
}

/// A Gateway.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Gateway {
    /// Spec.
    pub spec: GatewaySpec,
}

/// Gateway spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GatewaySpec {
    /// Class.
    pub gateway_class_name: Str,
    /// Listeners.
    pub listeners: Vec<Listener>,
    /// Requested addresses.
    pub addresses: Vec<Value>,
    /// Infrastructure (labels, annotations, parametersRef).
    pub infrastructure: Option<Value>,
    /// `allowedListeners` (ListenerSet attachment).
    pub allowed_listeners: Option<Value>,
    /// Gateway-wide TLS: client certificate validation of the frontend, the client certificate presented
    /// to backends.
    pub tls: Option<GatewayTls>,
}

/// `spec.tls` of a Gateway.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GatewayTls {
    /// Client certificate validation, by default and per port.
    pub frontend: Option<FrontendTls>,
    /// What the Gateway presents to backends.
    pub backend: Option<BackendTlsConfig>,
}

/// `spec.tls.frontend`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FrontendTls {
    /// For every HTTPS listener without a `perPort` entry.
    pub default: Option<FrontendTlsConfig>,
    /// Per listener port.
    pub per_port: Vec<FrontendPortTls>,
}

/// One `perPort` entry.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FrontendPortTls {
    /// The listener port it applies to.
    pub port: i64,
    /// Its configuration.
    pub tls: FrontendTlsConfig,
}

/// A frontend TLS configuration.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FrontendTlsConfig {
    /// Client certificate validation.
    pub validation: Option<FrontendValidation>,
}

/// Client certificate validation.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FrontendValidation {
    /// The CA certificates client certificates are validated against.
    pub ca_certificate_refs: Vec<TypedRef>,
    /// `AllowValidOnly` (default) or `AllowInsecureFallback`.
    pub mode: Option<Str>,
}

/// `spec.tls.backend`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BackendTlsConfig {
    /// The Secret holding the client certificate presented to backends.
    pub client_certificate_ref: Option<TypedRef>,
}

/// A listener.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Listener {
    /// Name.
    pub name: Str,
    /// Hostname.
    pub hostname: Option<Str>,
    /// Port.
    pub port: i64,
    /// `HTTP`, `HTTPS`, `TLS`, `TCP`, `UDP`, or a domain-prefixed protocol.
    pub protocol: Str,
    /// TLS config.
    pub tls: Option<ListenerTls>,
    /// Allowed routes.
    pub allowed_routes: Option<AllowedRoutes>,
}

/// Listener TLS.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ListenerTls {
    /// `Terminate` (default) or `Passthrough`.
    pub mode: Option<Str>,
    /// Certificates.
    pub certificate_refs: Vec<TypedRef>,
    /// Implementation options.
    pub options: BTreeMap<Str, Value>,
}

/// `allowedRoutes`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AllowedRoutes {
    /// Namespaces.
    pub namespaces: Option<RouteNamespaces>,
    /// Kinds.
    pub kinds: Vec<RouteGroupKind>,
}

/// `allowedRoutes.namespaces`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RouteNamespaces {
    /// `Same` (default), `All`, `Selector`.
    pub from: Option<Str>,
    /// Label selector for `Selector`.
    pub selector: Option<LabelSelector>,
}

/// A label selector.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct LabelSelector {
    /// Equality terms.
    pub match_labels: crate::labels::Labels,
    /// Set terms.
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// One `matchExpressions` term.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LabelSelectorRequirement {
    /// Key.
    pub key: Str,
    /// `In`, `NotIn`, `Exists`, `DoesNotExist`.
    pub operator: Str,
    /// Values.
    pub values: Vec<Str>,
}

impl LabelSelector {
    /// Whether `labels` satisfy the selector. An empty selector matches everything.
    pub fn matches(&self, labels: &crate::labels::Labels) -> bool {
        labels.contains_all(&self.match_labels)
            && self.match_expressions.iter().all(|e| {
                let have = labels.get(&e.key);
                match e.operator.as_str() {
                    "In" => have.is_some_and(|v| e.values.iter().any(|x| x == v)),
                    "NotIn" => have.is_none_or(|v| !e.values.iter().any(|x| x == v)),
                    "Exists" => have.is_some(),
                    "DoesNotExist" => have.is_none(),
                    _ => false,
                }
            })
    }
}

/// A route kind `{group, kind}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct RouteGroupKind {
    /// Group (defaults to gateway.networking.k8s.io).
    pub group: Option<Str>,
    /// Kind.
    pub kind: Str,
}

/// Any route: HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Route {
    /// Spec.
    pub spec: RouteSpec,
}

/// Route spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RouteSpec {
    /// Parents.
    pub parent_refs: Vec<ParentRef>,
    /// Hostnames (HTTP, GRPC, TLS routes).
    pub hostnames: Vec<Str>,
    /// Rules.
    pub rules: Vec<RouteRule>,
}

/// A parentRef.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ParentRef {
    /// Group (defaults to gateway.networking.k8s.io).
    pub group: Option<Str>,
    /// Kind (defaults to Gateway).
    pub kind: Option<Str>,
    /// Namespace (defaults to the route's).
    pub namespace: Option<Str>,
    /// Name.
    pub name: Str,
    /// Listener name.
    pub section_name: Option<Str>,
    /// Listener port.
    pub port: Option<i64>,
}

/// A route rule.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RouteRule {
    /// Backends.
    pub backend_refs: Vec<BackendRef>,
    /// Matches: what of each is read, its path (a raw copy of every match was a fifth of a route's view, #17).
    pub matches: Vec<RouteMatch>,
    /// Rule name.
    pub name: Option<Str>,
}

/// A rule's match, as far as paths go (headers, query parameters and methods are not read). Read leniently, as
/// the raw match was: a null item or a path of another shape is a match without a path (`/`, PathPrefix).
#[derive(Debug, Clone, Default)]
pub struct RouteMatch {
    /// `path`.
    pub path: Option<PathMatch>,
}

/// A match's `path`.
#[derive(Debug, Clone, Default)]
pub struct PathMatch {
    /// `Exact`, `PathPrefix` (the default) or `RegularExpression`.
    pub type_: Option<Str>,
    /// The path (`/` by default).
    pub value: Option<Str>,
}

impl<'de> Deserialize<'de> for RouteMatch {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let text = |p: &str| v.pointer(p).and_then(Value::as_str).map(Str::from);
        let path = v
            .get("path")
            .filter(|p| p.is_object())
            .map(|_| PathMatch { type_: text("/path/type"), value: text("/path/value") });
        Ok(RouteMatch { path })
    }
}

/// A backendRef.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct BackendRef {
    /// Group (`""` core).
    pub group: Option<Str>,
    /// Kind (defaults to Service).
    pub kind: Option<Str>,
    /// Name.
    pub name: Str,
    /// Namespace (defaults to the route's).
    pub namespace: Option<Str>,
    /// Port.
    pub port: Option<i64>,
    /// Weight.
    pub weight: Option<i64>,
}

/// A ReferenceGrant.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ReferenceGrant {
    /// Spec.
    pub spec: ReferenceGrantSpec,
}

/// ReferenceGrant spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ReferenceGrantSpec {
    /// Who may refer.
    pub from: Vec<GrantFrom>,
    /// What may be referred to.
    pub to: Vec<GrantTo>,
}

/// `from` entry.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GrantFrom {
    /// Group.
    pub group: Str,
    /// Kind.
    pub kind: Str,
    /// Namespace.
    pub namespace: Str,
}

/// `to` entry.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GrantTo {
    /// Group.
    pub group: Str,
    /// Kind.
    pub kind: Str,
    /// Name (all when absent).
    pub name: Option<Str>,
}

/// A ListenerSet (XListenerSet in the experimental group).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ListenerSet {
    /// Spec.
    pub spec: ListenerSetSpec,
}

/// ListenerSet spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ListenerSetSpec {
    /// The Gateway it attaches to.
    pub parent_ref: ParentRef,
    /// Listeners.
    pub listeners: Vec<Listener>,
}

/// A BackendTLSPolicy.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct BackendTlsPolicy {
    /// Spec.
    pub spec: BackendTlsPolicySpec,
}

/// BackendTLSPolicy spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BackendTlsPolicySpec {
    /// Targets.
    pub target_refs: Vec<TypedRef>,
    /// Validation.
    pub validation: Value,
}
