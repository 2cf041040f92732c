//! Health as Argo CD computes it (gitops-engine's built-in checks and the bundled Lua resource
//! customizations, reimplemented in Rust), and edgecheck's own health for path kinds Argo CD does not
//! assess. The Argo CD release followed is pinned: [`ARGO_CD_VERSION`] (docs/design.md, "Argo CD health").
//!
//! - `builtin`: gitops-engine `pkg/health`, as vendored in argo-cd (Deployment, StatefulSet, DaemonSet,
//!   ReplicaSet, Pod, Job, Service, Ingress, PersistentVolumeClaim, APIService, HorizontalPodAutoscaler,
//!   Workflow). Like gitops-engine, the typed checks only handle the apiVersions it converts (`apps/v1`,
//!   `batch/v1`, `v1`, HPA `autoscaling/v1` and `v2`, APIService `v1` and `v1beta1`); any other version of
//!   a handled group/kind gets `Unknown` with gitops-engine's `unsupported <Kind> GVK: <group/version>,
//!   Kind=<Kind>` message, and kinds of groups it does not dispatch (e.g. `extensions/v1beta1` Deployment)
//!   get no health at all.
//! - `custom`: Argo CD's bundled `resource_customizations/<group>/<Kind>/health.lua` for the entry,
//!   certificate and secret kinds edgecheck follows: cert-manager Certificate, Issuer, ClusterIssuer (and
//!   the pre-1.0 `certmanager.k8s.io` Certificate and Issuer), External Secrets (ExternalSecret,
//!   ClusterExternalSecret, SecretStore, ClusterSecretStore, PushSecret) and kubernetes-external-secrets
//!   (`kubernetes-client.io` ExternalSecret), SealedSecret, 1Password OnePasswordItem, Gateway API
//!   (GatewayClass, Gateway, HTTPRoute, GRPCRoute, BackendTLSPolicy), Contour HTTPProxy and
//!   ExtensionService, OpenShift Route and IngressController, GKE ManagedCertificate, CronJob and
//!   ApplicationSet, matched by group and kind (every version); and the Application health Argo CD only
//!   assesses when `argocd-cm` holds `resource.customizations.health.argoproj.io_Application` (without it
//!   Argo CD gives an Application no health, and so do we: `None`). The customization is assumed to be
//!   the one Argo CD documents (status.health copied, else Progressing). Other health overrides an
//!   operator puts in `argocd-cm` (custom Lua for any kind) cannot be evaluated without running Lua; the
//!   bundled behaviour is given for them. Where a bundled script fails on an object (a nil concatenated
//!   or iterated), Argo CD shows Unknown with the Lua error, and so does edgecheck (the message names the
//!   error, not in gopher-lua's words).
//!
//! Verified against Argo CD's own test data at the pinned release: the status and message every
//! `health_test.yaml` case of the customizations above expects, and what gitops-engine's
//! `health_test.go` asserts, are the expectations of `upstream.rs` (inputs written for edgecheck in the
//! shapes the upstream test data has; the test data is not copied into this repository), and
//! `resources/health/upstream.txt` lists those upstream tests at the tag.
//! - `own` (`own: true`): TLSRoute, Traefik IngressRoute/IngressRouteTCP, cert-manager Order,
//!   Challenge, CertificateRequest, EndpointSlice (no bundled script at the pinned release).
//!
//! Argo CD messages are kept as the start of `message`. Where Argo CD's message is empty and the
//! status is not Healthy, edgecheck says why (e.g. "no LoadBalancer address", the deciding condition's
//! `Type=Status Reason`); the places are listed in docs/design.md.
//! An object with `metadata.deletionTimestamp` (and no Argo CD hook finalizer) is Progressing
//! "Pending deletion" for every assessed kind, as gitops-engine does before any check.

/// The Argo CD release whose health logic (gitops-engine `pkg/health` and the bundled
/// `resource_customizations`) edgecheck follows, and the commit of its tag.
pub const ARGO_CD_VERSION: &str = "v3.5.1";
/// The commit `ARGO_CD_VERSION` tags in argoproj/argo-cd.
pub const ARGO_CD_COMMIT: &str = "109ca7ca71139e514114499d294a492e7910a965";

mod builtin;
mod custom;
mod own;

use edgecheck_core::SeqRef;
use edgecheck_core::ValueRef;
use edgecheck_core::{Graph, Layer, Object};

use super::gateway::GatewayModel;
use super::{Health, HealthStatus};

/// Health for every object (index = `ObjId`); `None` for kinds nobody assesses.
pub fn compute(graph: &Graph, gateway: &GatewayModel, now: i64) -> Vec<Option<Health>> {
    let _ = (gateway, now);
    let app_health = custom::application_health_enabled(graph);
    graph.objects.iter().map(|obj| assess(obj, app_health)).collect()
}

/// The health of one object.
pub(crate) fn assess(obj: &Object, app_health: bool) -> Option<Health> {
    let group = obj.kind.group.as_str();
    let kind = obj.kind.kind.as_str();
    let assessed =
        builtin::handles(group, kind) || custom::handles(group, kind, app_health) || own::handles(group, kind);
    if !assessed {
        return None;
    }
    if pending_deletion(obj) {
        let own = !builtin::handles(group, kind) && !custom::handles(group, kind, app_health);
        return Some(Health {
            status: HealthStatus::Progressing,
            message: "Pending deletion".into(),
            layer: Some(natural_layer(group, kind)),
            own,
        });
    }
    // Argo CD runs the resource customization first, then the built-in check.
    custom::assess(obj, group, kind, app_health)
        .or_else(|| builtin::assess(obj, group, kind))
        .or_else(|| own::assess(obj, group, kind))
}

fn pending_deletion(obj: &Object) -> bool {
    let meta = obj.value.get("metadata");
    let deleting = meta.and_then(|m| m.get("deletionTimestamp")).is_some_and(|d| !d.is_null());
    let hook_finalizer = meta
        .and_then(|m| m.get("finalizers"))
        .and_then(ValueRef::as_array)
        .is_some_and(|f| f.iter().any(|f| f.as_str() == Some("argocd.argoproj.io/hook-finalizer")));
    deleting && !hook_finalizer
}

/// Where a kind's faults sit when no condition reason says otherwise.
pub(crate) fn natural_layer(group: &str, kind: &str) -> Layer {
    match (group, kind) {
        ("", "Service") | ("gateway.networking.k8s.io", "Gateway" | "GatewayClass" | "ListenerSet") => Layer::Listener,
        ("extensions" | "networking.k8s.io", "Ingress") => Layer::Listener,
        ("cert-manager.io" | "acme.cert-manager.io" | "certmanager.k8s.io" | "networking.gke.io", _) => Layer::Tls,
        ("route.openshift.io", _) | ("projectcontour.io", "HTTPProxy") => Layer::Route,
        ("operator.openshift.io", "IngressController") => Layer::Listener,
        ("bitnami.com" | "kubernetes-client.io" | "onepassword.com", _) => Layer::Secrets,
        ("gateway.networking.k8s.io", "BackendTLSPolicy") => Layer::Tls,
        ("gateway.networking.k8s.io" | "traefik.io" | "traefik.containo.us", _) => Layer::Route,
        ("external-secrets.io", _) => Layer::Secrets,
        ("argoproj.io", "Application" | "ApplicationSet") => Layer::Gitops,
        _ => Layer::Backend,
    }
}

/// Builds a health result; the layer is set for non-Healthy results from the deciding condition's
/// reason (via `reasons::layer_for`) or the kind's natural layer.
pub(crate) fn health(
    status: HealthStatus,
    message: impl Into<std::borrow::Cow<'static, str>>,
    group: &str,
    kind: &str,
    reason: Option<(&str, &str)>,
    own: bool,
) -> Health {
    let layer = if status == HealthStatus::Healthy {
        None
    } else {
        Some(
            reason
                .and_then(|(t, r)| edgecheck_core::reasons::layer_for(t, r))
                .unwrap_or_else(|| natural_layer(group, kind)),
        )
    };
    Health { status, message: super::fitted(message.into()), layer, own }
}

/// A string at a `/`-separated JSON pointer, `""` when absent.
pub(crate) fn s<'a>(v: impl Into<ValueRef<'a>>, pointer: &str) -> &'a str {
    v.into().pointer(pointer).and_then(ValueRef::as_str).unwrap_or("")
}

/// An integer at a JSON pointer, 0 when absent (Go's zero value).
pub(crate) fn i<'a>(v: impl Into<ValueRef<'a>>, pointer: &str) -> i64 {
    v.into().pointer(pointer).and_then(ValueRef::as_i64).unwrap_or(0)
}

/// An integer at a JSON pointer, `None` when absent (Go's nil pointer).
pub(crate) fn opt_i<'a>(v: impl Into<ValueRef<'a>>, pointer: &str) -> Option<i64> {
    v.into().pointer(pointer).and_then(ValueRef::as_i64)
}

/// The array at a JSON pointer, empty when absent.
pub(crate) fn arr<'a>(v: impl Into<ValueRef<'a>>, pointer: &str) -> SeqRef<'a> {
    v.into().pointer(pointer).and_then(ValueRef::as_array).unwrap_or_default()
}

/// The version part of an apiVersion.
pub(crate) fn version(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or(api_version, |(_, v)| v)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod upstream;
