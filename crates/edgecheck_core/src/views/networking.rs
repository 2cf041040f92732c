//! Ingress and IngressClass (networking.k8s.io, and the old extensions/v1beta1 spelling).

use crate::value::Str;
use serde::Deserialize;

use super::PortRef;

/// An Ingress.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Ingress {
    /// Spec.
    pub spec: IngressSpec,
}

/// Ingress spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct IngressSpec {
    /// `ingressClassName`.
    pub ingress_class_name: Option<Str>,
    /// `defaultBackend` (v1); boxed, as `backend`: rarely set, and an inline one doubled every Ingress's size.
    pub default_backend: Option<Box<IngressBackend>>,
    /// `backend` (v1beta1).
    pub backend: Option<Box<IngressBackend>>,
    /// `tls`.
    pub tls: Vec<IngressTls>,
    /// `rules`.
    pub rules: Vec<IngressRule>,
}

/// One `tls` entry.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct IngressTls {
    /// Hosts this Secret serves.
    pub hosts: Vec<Str>,
    /// The Secret.
    pub secret_name: Option<Str>,
}

/// One rule.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct IngressRule {
    /// Host (exact or `*.` wildcard).
    pub host: Option<Str>,
    /// HTTP paths.
    pub http: Option<IngressHttp>,
}

/// `rules[].http`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct IngressHttp {
    /// Paths.
    pub paths: Vec<IngressPath>,
}

/// One path.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct IngressPath {
    /// Path.
    pub path: Option<Str>,
    /// `Prefix`, `Exact`, `ImplementationSpecific`.
    pub path_type: Option<Str>,
    /// Backend.
    pub backend: IngressBackend,
}

/// A backend: v1 `service: {name, port: {number|name}}`, v1beta1 `serviceName`/`servicePort`, or a
/// `resource` reference.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct IngressBackend {
    /// v1 service backend.
    pub service: Option<IngressServiceBackend>,
    /// v1beta1 service name.
    pub service_name: Option<Str>,
    /// v1beta1 service port.
    pub service_port: Option<PortRef>,
    /// A resource backend.
    pub resource: Option<Box<super::TypedRef>>,
}

/// `backend.service`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct IngressServiceBackend {
    /// Service name.
    pub name: Str,
    /// Port.
    pub port: IngressServicePort,
}

/// `backend.service.port`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct IngressServicePort {
    /// By number.
    pub number: Option<i64>,
    /// By name.
    pub name: Option<Str>,
}

impl IngressBackend {
    /// The Service and port this backend names, in either spelling.
    pub fn service_ref(&self) -> Option<(String, Option<PortRef>)> {
        if let Some(s) = &self.service {
            let port =
                s.port.number.map(PortRef::Number).or_else(|| s.port.name.as_deref().map(|n| PortRef::Name(n.into())));
            return Some((s.name.to_string(), port));
        }
        self.service_name.as_ref().map(|n| (n.to_string(), self.service_port.clone()))
    }
}

impl Ingress {
    /// Every backend with the path to it in the object: `(field path, backend, host)`.
    pub fn backends(&self) -> Vec<(String, &IngressBackend, Option<&str>)> {
        let mut out = Vec::new();
        if let Some(b) = self.spec.default_backend.as_deref() {
            out.push(("spec.defaultBackend".to_string(), b, None));
        }
        if let Some(b) = self.spec.backend.as_deref() {
            out.push(("spec.backend".to_string(), b, None));
        }
        for (i, r) in self.spec.rules.iter().enumerate() {
            if let Some(http) = &r.http {
                for (j, p) in http.paths.iter().enumerate() {
                    out.push((format!("spec.rules[{i}].http.paths[{j}].backend"), &p.backend, r.host.as_deref()));
                }
            }
        }
        out
    }

    /// Every host named in rules and tls, deduplicated, in order.
    pub fn hosts(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for h in self
            .spec
            .rules
            .iter()
            .filter_map(|r| r.host.as_deref())
            .chain(self.spec.tls.iter().flat_map(|t| t.hosts.iter().map(Str::as_str)))
        {
            if !out.contains(&h) {
                out.push(h);
            }
        }
        out
    }
}

/// An IngressClass.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct IngressClass {
    /// Spec.
    pub spec: IngressClassSpec,
}

/// IngressClass spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct IngressClassSpec {
    /// The controller string (`k8s.io/ingress-nginx`, `traefik.io/ingress-controller`, ...).
    pub controller: Option<Str>,
    /// Parameters reference.
    pub parameters: Option<IngressClassParameters>,
}

/// IngressClass `spec.parameters`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct IngressClassParameters {
    /// API group.
    pub api_group: Option<Str>,
    /// Kind.
    pub kind: Option<Str>,
    /// Name.
    pub name: Str,
    /// Namespace (scope Namespace).
    pub namespace: Option<Str>,
    /// `Cluster` or `Namespace`.
    pub scope: Option<Str>,
}
