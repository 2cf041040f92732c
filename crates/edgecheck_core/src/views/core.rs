//! Core and apps kinds: Service, workloads (pod templates), ConfigMap, Event, Namespace, EndpointSlice.

use std::collections::BTreeMap;

use crate::doc::ValueRef;
use crate::value::Str;
use crate::value::Value;
use serde::Deserialize;

use super::PortRef;

/// A Service.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Service {
    /// Spec.
    pub spec: ServiceSpec,
    /// Status.
    pub status: Option<ServiceStatus>,
}

/// Service spec.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ServiceSpec {
    /// `ClusterIP` (default), `NodePort`, `LoadBalancer`, `ExternalName`.
    #[serde(rename = "type")]
    pub service_type: Option<Str>,
    /// Pod selector; `None` for Services without selector (manual Endpoints).
    pub selector: Option<crate::labels::Labels>,
    /// Ports.
    pub ports: Vec<ServicePort>,
    /// ExternalName target.
    pub external_name: Option<Str>,
    /// `clusterIP` (`None` for headless).
    #[serde(rename = "clusterIP")]
    pub cluster_ip: Option<Str>,
    /// `loadBalancerClass`.
    pub load_balancer_class: Option<Str>,
}

impl ServiceSpec {
    /// The type, defaulted.
    pub fn kind(&self) -> &str {
        self.service_type.as_deref().unwrap_or("ClusterIP")
    }
}

/// A Service port.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ServicePort {
    /// Name.
    pub name: Option<Str>,
    /// Port.
    pub port: i64,
    /// Target port (defaults to `port`).
    pub target_port: Option<PortRef>,
    /// `TCP`, `UDP`, `SCTP`.
    pub protocol: Option<Str>,
    /// `appProtocol` (`http`, `https`, `kubernetes.io/h2c`, ...).
    pub app_protocol: Option<Str>,
    /// Node port.
    pub node_port: Option<i64>,
}

impl ServicePort {
    /// The target port, defaulted to the port number.
    pub fn target(&self) -> PortRef {
        self.target_port.clone().unwrap_or(PortRef::Number(self.port))
    }
}

/// Service status.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ServiceStatus {
    /// LoadBalancer status.
    pub load_balancer: Option<LoadBalancerStatus>,
}

/// `status.loadBalancer`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LoadBalancerStatus {
    /// Addresses.
    pub ingress: Vec<LoadBalancerIngress>,
}

/// One LoadBalancer address.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct LoadBalancerIngress {
    /// IP.
    pub ip: Option<Str>,
    /// Host name.
    pub hostname: Option<Str>,
}

/// The pod template of a workload (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob) or a
/// Pod itself, with the workload's replica count and status.
#[derive(Debug, Clone, Default)]
pub struct Workload {
    /// Labels of the pods it creates.
    pub labels: crate::labels::Labels,
    /// Containers (init containers not included).
    pub containers: Vec<Container>,
    /// Init containers.
    pub init_containers: Vec<Container>,
    /// `spec.replicas` when set.
    pub replicas: Option<i64>,
    /// The field path of the pod spec in the object (`spec.template.spec`, `spec`, ...).
    pub pod_spec_path: &'static str,
    /// Secrets the pod reads: env `valueFrom.secretKeyRef`, `envFrom[].secretRef`, secret volumes and
    /// projected sources (all containers, init containers included).
    pub secret_uses: Vec<SecretUse>,
}

/// One way a pod reads a Secret.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretUse {
    /// The Secret's name (same namespace as the pod).
    pub secret: String,
    /// The key read, when one key is named (`secretKeyRef.key`, a volume `items[].key`); `None` for all keys.
    pub key: Option<String>,
    /// How: `env NAME`, `envFrom`, `volume NAME`.
    pub how: String,
    /// The field path in the object.
    pub field: String,
}

impl Workload {
    /// The workload object's `status`, read from its document (a view held a copy of every Pod's status in a
    /// dump of a cluster, #17); `None` when absent or null.
    pub fn status(o: &crate::Object) -> Option<ValueRef<'_>> {
        o.value.get("status").filter(|s| !s.is_null())
    }

    /// Where a workload's pod template does not match its schema, as a field path from the object's
    /// root (the template is read inside a custom deserializer, which hides the path from the caller).
    pub fn template_error(value: crate::doc::ValueRef<'_>) -> Option<super::SchemaError> {
        let kind = value.get("kind").and_then(crate::doc::ValueRef::as_str).unwrap_or("");
        let (template, prefix) = match kind {
            "Pod" => (Some(value), ""),
            "CronJob" => (value.pointer("/spec/jobTemplate/spec/template"), "spec.jobTemplate.spec.template."),
            _ => (value.pointer("/spec/template"), "spec.template."),
        };
        let e = serde_path_to_error::deserialize::<_, PodTemplate>(template?).err()?;
        let inner = e.path().to_string();
        let path = if inner == "." { prefix.trim_end_matches('.').to_string() } else { format!("{prefix}{inner}") };
        Some(super::SchemaError::new(path, &e.into_inner()))
    }
}

impl<'de> Deserialize<'de> for Workload {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
        let (template, path): (Option<&Value>, &'static str) = match kind {
            "Pod" => (Some(&v), "spec"),
            "CronJob" => (v.pointer("/spec/jobTemplate/spec/template"), "spec.jobTemplate.spec.template.spec"),
            _ => (v.pointer("/spec/template"), "spec.template.spec"),
        };
        let uses = template.and_then(|t| t.get("spec")).map(|s| secret_uses(s, path)).unwrap_or_default();
        let template: PodTemplate = match template {
            Some(t) => PodTemplate::deserialize(t).map_err(serde::de::Error::custom)?,
            None => PodTemplate::default(),
        };
        Ok(Workload {
            labels: template.metadata.labels,
            containers: template.spec.containers,
            init_containers: template.spec.init_containers,
            replicas: v.pointer("/spec/replicas").and_then(Value::as_i64),
            pod_spec_path: path,
            secret_uses: uses,
        })
    }
}

/// The Secrets a pod spec reads (see [`Workload::secret_uses`]).
fn secret_uses(spec: &Value, path: &str) -> Vec<SecretUse> {
    let mut out = Vec::new();
    let str_at = |v: &Value, p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
    for list in ["initContainers", "containers"] {
        for (ci, c) in spec.get(list).and_then(Value::as_array).into_iter().flatten().enumerate() {
            for (ei, e) in c.get("env").and_then(Value::as_array).into_iter().flatten().enumerate() {
                if let Some(name) = str_at(e, "/valueFrom/secretKeyRef/name") {
                    out.push(SecretUse {
                        secret: name,
                        key: str_at(e, "/valueFrom/secretKeyRef/key"),
                        how: format!("env {}", str_at(e, "/name").unwrap_or_default()),
                        field: format!("{path}.{list}[{ci}].env[{ei}].valueFrom.secretKeyRef"),
                    });
                }
            }
            for (ei, e) in c.get("envFrom").and_then(Value::as_array).into_iter().flatten().enumerate() {
                if let Some(name) = str_at(e, "/secretRef/name") {
                    let field = format!("{path}.{list}[{ci}].envFrom[{ei}].secretRef");
                    out.push(SecretUse { secret: name, key: None, how: "envFrom".into(), field });
                }
            }
        }
    }
    for (vi, vol) in spec.get("volumes").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let vname = str_at(vol, "/name").unwrap_or_default();
        let mut add = |name: String, items: Option<&Value>, field: String| {
            let keys: Vec<String> = items
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|i| i.get("key").and_then(Value::as_str).map(str::to_string))
                .collect();
            if keys.is_empty() {
                out.push(SecretUse { secret: name, key: None, how: format!("volume {vname}"), field });
            } else {
                for k in keys {
                    out.push(SecretUse {
                        secret: name.clone(),
                        key: Some(k),
                        how: format!("volume {vname}"),
                        field: field.clone(),
                    });
                }
            }
        };
        if let Some(name) = str_at(vol, "/secret/secretName") {
            add(name, vol.pointer("/secret/items"), format!("{path}.volumes[{vi}].secret"));
        }
        for (si, src) in vol.pointer("/projected/sources").and_then(Value::as_array).into_iter().flatten().enumerate() {
            if let Some(name) = str_at(src, "/secret/name") {
                add(name, src.pointer("/secret/items"), format!("{path}.volumes[{vi}].projected.sources[{si}].secret"));
            }
        }
    }
    out
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct PodTemplate {
    metadata: TemplateMeta,
    spec: PodSpec,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct TemplateMeta {
    labels: crate::labels::Labels,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct PodSpec {
    containers: Vec<Container>,
    init_containers: Vec<Container>,
}

/// A container.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Container {
    /// Name.
    pub name: Str,
    /// Image.
    pub image: Option<Str>,
    /// Command.
    pub command: Vec<Str>,
    /// Args.
    pub args: Vec<Str>,
    /// Ports.
    pub ports: Vec<ContainerPort>,
    /// Environment (values as written; `valueFrom` kept raw).
    pub env: Vec<EnvVar>,
    /// Readiness probe (the probes are boxed: a container without them is 168 bytes, not 504; #17).
    pub readiness_probe: Option<Box<Probe>>,
    /// Liveness probe.
    pub liveness_probe: Option<Box<Probe>>,
    /// Startup probe.
    pub startup_probe: Option<Box<Probe>>,
}

impl Container {
    /// The container port with this name.
    pub fn port_named(&self, name: &str) -> Option<&ContainerPort> {
        self.ports.iter().find(|p| p.name.as_deref() == Some(name))
    }

    /// Command and args, as one list.
    pub fn argv(&self) -> impl Iterator<Item = &str> {
        self.command.iter().chain(self.args.iter()).map(Str::as_str)
    }
}

/// A container port.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ContainerPort {
    /// Name.
    pub name: Option<Str>,
    /// Port.
    pub container_port: i64,
    /// Protocol.
    pub protocol: Option<Str>,
}

/// An env var.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct EnvVar {
    /// Name.
    pub name: Str,
    /// Literal value.
    pub value: Option<Str>,
}

/// A probe.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Probe {
    /// HTTP GET probe.
    pub http_get: Option<HttpGetAction>,
    /// TCP probe.
    pub tcp_socket: Option<Value>,
    /// gRPC probe.
    pub grpc: Option<Value>,
}

/// `httpGet`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct HttpGetAction {
    /// Path.
    pub path: Option<Str>,
    /// Port.
    pub port: Option<PortRef>,
    /// `HTTP` (default) or `HTTPS`.
    pub scheme: Option<Str>,
}

/// A ConfigMap. Its `data` is checked to hold strings only (the API server refuses a number or a boolean
/// there) but not copied: a check reads the few keys it needs from the object ([`ConfigMap::get`]). A
/// repository's dashboards and scripts in ConfigMaps were otherwise held twice.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ConfigMap {
    /// Data (checked, not kept).
    data: StringsOnly,
}

impl ConfigMap {
    /// The string at `data.<key>` of the ConfigMap `o`.
    pub fn get<'o>(o: &'o crate::Object, key: &str) -> Option<&'o str> {
        o.value.get("data")?.get(key)?.as_str()
    }

    /// The strings of `data` of the ConfigMap `o`.
    pub fn values(o: &crate::Object) -> impl Iterator<Item = &str> {
        o.value
            .get("data")
            .and_then(ValueRef::as_object)
            .into_iter()
            .flat_map(|m| m.values().filter_map(ValueRef::as_str))
    }
}

/// A map whose values must be strings, read for that and nothing kept.
#[derive(Debug, Clone, Copy, Default)]
struct StringsOnly;

impl<'de> Deserialize<'de> for StringsOnly {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<StringsOnly, D::Error> {
        struct Strings;
        struct One;
        impl<'de> serde::de::Visitor<'de> for One {
            type Value = One;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E>(self, _: &str) -> Result<One, E> {
                Ok(One)
            }
        }
        impl<'de> Deserialize<'de> for One {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<One, D::Error> {
                d.deserialize_str(One)
            }
        }
        impl<'de> serde::de::Visitor<'de> for Strings {
            type Value = StringsOnly;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_unit<E>(self) -> Result<StringsOnly, E> {
                Ok(StringsOnly)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<StringsOnly, A::Error> {
                while m.next_entry::<serde::de::IgnoredAny, One>()?.is_some() {}
                Ok(StringsOnly)
            }
        }
        d.deserialize_any(Strings)
    }
}

/// An Event (core/v1 or events.k8s.io/v1).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Event {
    /// core/v1 `involvedObject`.
    pub involved_object: Option<EventObject>,
    /// events.k8s.io `regarding`.
    pub regarding: Option<EventObject>,
    /// Reason.
    pub reason: Option<Str>,
    /// core/v1 message.
    pub message: Option<Str>,
    /// events.k8s.io note.
    pub note: Option<Str>,
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub event_type: Option<Str>,
    /// Count.
    pub count: Option<i64>,
    /// Source component.
    pub source: Option<Value>,
    /// `reportingController` / `reportingComponent`.
    pub reporting_controller: Option<Str>,
    /// Last seen.
    pub last_timestamp: Option<Str>,
}

impl Event {
    /// The object the event is about.
    pub fn subject(&self) -> Option<&EventObject> {
        self.involved_object.as_ref().or(self.regarding.as_ref())
    }

    /// The message, in either spelling.
    pub fn text(&self) -> &str {
        self.message.as_deref().or(self.note.as_deref()).unwrap_or("")
    }
}

/// The object an Event names.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct EventObject {
    /// Kind.
    pub kind: Str,
    /// Namespace.
    pub namespace: Option<Str>,
    /// Name.
    pub name: Str,
    /// apiVersion.
    pub api_version: Option<Str>,
}

/// A Namespace.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Namespace {}

/// An EndpointSlice.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct EndpointSlice {
    /// Endpoints.
    pub endpoints: Vec<SliceEndpoint>,
    /// Ports.
    pub ports: Vec<Value>,
}

/// One endpoint of a slice.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SliceEndpoint {
    /// Addresses.
    pub addresses: Vec<Str>,
    /// Conditions (`ready`, `serving`, `terminating`).
    pub conditions: BTreeMap<Str, Value>,
}
