//! Status reasons to layers: the one table (docs/design.md "Status reasons to layers").
//!
//! A condition or Event reason is placed where its fault is. Checks that turn conditions or Events
//! into findings look the layer up here, never decide it on their own.

use crate::layer::Layer;

/// The layer where a Gateway API / cert-manager / Argo CD condition reason (or Event reason) puts
/// the fault, given the condition type it came with. `None` when the reason says nothing is wrong
/// or is unknown.
pub fn layer_for(condition_type: &str, reason: &str) -> Option<Layer> {
    let r = reason;
    Some(match (condition_type, r) {
        // Gateway / listener
        (
            _,
            "AddressNotAssigned"
            | "AddressNotUsable"
            | "UnsupportedAddress"
            | "NoResources"
            | "ListenersNotValid"
            | "ListenersNotReady"
            | "PortUnavailable"
            | "ProtocolConflict"
            | "HostnameConflict"
            | "UnsupportedProtocol"
            | "InvalidRouteKinds"
            | "Pending"
            | "Invalid",
        ) => {
            if condition_type == "ResolvedRefs" && r == "UnsupportedProtocol" {
                Layer::Backend
            } else {
                Layer::Listener
            }
        }
        (_, "InvalidParameters" | "UnsupportedValue" | "NotReconciled") => Layer::Listener,
        (
            _,
            "InvalidCertificateRef"
            | "InvalidCACertificateRef"
            | "InvalidCACertificateKind"
            | "NoValidCACertificate"
            | "InvalidClientCertificateRef"
            | "InvalidKind",
        ) if condition_type != "ResolvedRefs" || r != "InvalidKind" => Layer::Tls,
        // Routes
        (
            _,
            "NoMatchingParent"
            | "NotAllowedByListeners"
            | "NoMatchingListenerHostname"
            | "RefNotPermitted"
            | "UnsupportedRouteKind",
        ) => Layer::Route,
        ("ResolvedRefs", "InvalidKind") => Layer::Backend,
        (_, "BackendNotFound" | "NoReadyEndpoints" | "NoEndpoints" | "NoHealthyUpstream") => Layer::Backend,
        // cert-manager
        (
            "Ready" | "Issuing",
            "Failed"
            | "DoesNotExist"
            | "MissingData"
            | "InvalidKeyPair"
            | "Expired"
            | "Renewing"
            | "IncorrectIssuer"
            | "SecretMismatch"
            | "ErrInitIssuer"
            | "ErrRegisterACMEAccount"
            | "ErrGetKeyPair"
            | "OrderFailed"
            | "Denied"
            | "InvalidRequest"
            | "InvalidCertificate"
            | "IncorrectCertificate",
        ) => Layer::Tls,
        // Argo CD
        (
            "ComparisonError"
            | "InvalidSpecError"
            | "SyncError"
            | "OperationError"
            | "RepeatedResourceWarning"
            | "SharedResourceWarning"
            | "OrphanedResourceWarning",
            _,
        ) => Layer::Gitops,
        (_, "OutOfSync" | "SyncFailed" | "ComparisonError") => Layer::Gitops,
        // External Secrets
        (
            _,
            "SecretSyncedError"
            | "SecretDeleted"
            | "InvalidStoreRef"
            | "InvalidProviderConfig"
            | "ValidationFailed"
            | "SecretSynced",
        ) if r != "SecretSynced" => Layer::Secrets,
        // Events
        (
            _,
            "FailedScheduling"
            | "BackOff"
            | "Unhealthy"
            | "FailedMount"
            | "CrashLoopBackOff"
            | "ErrImagePull"
            | "ImagePullBackOff"
            | "FailedCreate"
            | "BackoffLimitExceeded"
            | "DeadlineExceeded",
        ) => Layer::Backend,
        (_, "SyncLoadBalancerFailed" | "AllocationFailed" | "NoIPAddressAvailable") => Layer::Listener,
        _ => return None,
    })
}

/// The layer of an Argo CD ComparisonError (or any controller message) that is a failed DNS lookup:
/// `lookup github.com on 10.43.0.10:53: server misbehaving`, `no such host`, `i/o timeout` on :53.
pub fn is_dns_failure(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    (m.contains("lookup ")
        && (m.contains("server misbehaving")
            || m.contains("no such host")
            || m.contains(":53: ")
            || m.contains("i/o timeout")))
        || m.contains("temporary failure in name resolution")
        || m.contains("could not resolve host")
        || m.contains("name or service not known")
}

/// The layer a controller's Event message puts the fault on, for controllers whose Events carry a
/// generic reason (ACK ALB Ingress: `FailedBuildModel`/`FailedApplyModel`) and the fault only in the
/// message. `None` when the message is not one edgecheck knows.
pub fn layer_for_message(message: &str) -> Option<Layer> {
    let m = message.to_ascii_lowercase();
    if m.contains("listener is not exist in alb")
        || m.contains("listener not found for")
        || m.contains("empty https listener default certs")
    {
        return Some(Layer::Listener);
    }
    if m.contains("cluster service type just support eni mode") {
        return Some(Layer::Backend);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_land_on_their_layers() {
        assert_eq!(layer_for("Programmed", "AddressNotAssigned"), Some(Layer::Listener));
        assert_eq!(layer_for("Accepted", "NotAllowedByListeners"), Some(Layer::Route));
        assert_eq!(layer_for("ResolvedRefs", "BackendNotFound"), Some(Layer::Backend));
        assert_eq!(layer_for("ResolvedRefs", "InvalidCertificateRef"), Some(Layer::Tls));
        assert_eq!(layer_for("ResolvedRefs", "InvalidKind"), Some(Layer::Backend));
        assert_eq!(layer_for("ResolvedRefs", "RefNotPermitted"), Some(Layer::Route));
        assert_eq!(layer_for("Accepted", "Accepted"), None);
        assert_eq!(layer_for("Ready", "ErrRegisterACMEAccount"), Some(Layer::Tls));
        assert_eq!(layer_for("Ready", "IncorrectCertificate"), Some(Layer::Tls));
        assert!(is_dns_failure("rpc error: lookup github.com on 10.43.0.10:53: server misbehaving"));
        assert!(!is_dns_failure("authentication required"));
        assert_eq!(
            layer_for_message("listener is not exist in alb, port: 443, protocol: HTTPS"),
            Some(Layer::Listener)
        );
        assert_eq!(
            layer_for_message("cluster service type just support eni mode for alb ingress"),
            Some(Layer::Backend)
        );
    }
}
