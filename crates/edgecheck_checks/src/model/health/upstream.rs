//! edgecheck against Argo CD's own health expectations at the pinned release ([`super::ARGO_CD_VERSION`]).
//!
//! Every case names the upstream test it stands for: `<group>/<Kind>/testdata/<file>` of
//! `resource_customizations` (whose `health_test.yaml` gives the expected status and message), or
//! `gitops-engine/pkg/health/testdata/<file>` (whose `health_test.go` asserts the status). The
//! expectations are transcribed from those files; the inputs are written here, in the shapes the upstream
//! test data has (the fields the scripts read), not copied. Cases marked `(go)` follow a branch of the Go
//! code that upstream has no test data for.

use serde_json::{json, Value};

use super::*;
use crate::model::Model;
use crate::test_support::graph_from_text;

use HealthStatus::{Degraded, Healthy, Progressing, Suspended, Unknown};

struct Case {
    upstream: String,
    api_version: &'static str,
    kind: &'static str,
    body: Value,
    status: HealthStatus,
    /// The exact message; `None` where upstream asserts the status only.
    message: Option<String>,
    /// Upstream asserts that there is no health at all.
    no_health: bool,
}

fn case(upstream: impl Into<String>, api_version: &'static str, kind: &'static str, body: Value) -> Case {
    Case { upstream: upstream.into(), api_version, kind, body, status: Unknown, message: None, no_health: false }
}

impl Case {
    fn is(mut self, status: HealthStatus, message: impl Into<String>) -> Case {
        self.status = status;
        self.message = Some(message.into());
        self
    }

    fn status(mut self, status: HealthStatus) -> Case {
        self.status = status;
        self
    }

    fn none(mut self) -> Case {
        self.no_health = true;
        self
    }
}

/// The health edgecheck gives one object read as live (a dump's status is trusted).
fn assess_live(api_version: &str, kind: &str, body: &Value) -> Option<Health> {
    let mut v = body.clone();
    v["apiVersion"] = json!(api_version);
    v["kind"] = json!(kind);
    if v.pointer("/metadata/name").is_none() {
        v["metadata"]["name"] = json!("x");
    }
    if v.pointer("/metadata/namespace").is_none() {
        v["metadata"]["namespace"] = json!("ns");
    }
    v["metadata"]["uid"] = json!("1");
    let text = format!("# options: live\n{}", serde_json::to_string(&v).unwrap());
    let (graph, _) = graph_from_text("upstream.yaml", &text);
    let model = Model::compute(&graph, crate::test_support::NOW);
    model.health.into_iter().next().flatten()
}

fn run(cases: Vec<Case>) {
    assert!(!cases.is_empty());
    let mut failures = Vec::new();
    for c in &cases {
        let got = assess_live(c.api_version, c.kind, &c.body);
        if c.no_health {
            if let Some(h) = got {
                failures.push(format!("{}: expected no health, got {h:?}", c.upstream));
            }
            continue;
        }
        let Some(h) = got else {
            failures.push(format!("{}: no health", c.upstream));
            continue;
        };
        let message_ok = c.message.as_ref().is_none_or(|m| &h.message == m);
        if h.status != c.status || !message_ok {
            failures.push(format!(
                "{}: expected {} {:?}, got {} {:?}",
                c.upstream,
                c.status.as_str(),
                c.message.as_deref().unwrap_or("(any)"),
                h.status.as_str(),
                h.message
            ));
        }
        if h.own {
            failures.push(format!("{}: marked as edgecheck's own health", c.upstream));
        }
        if h.status != Healthy && h.layer.is_none() {
            failures.push(format!("{}: {} without a layer", c.upstream, h.status.as_str()));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

fn cond(ty: &str, status: &str, reason: &str, message: &str) -> Value {
    json!({"type": ty, "status": status, "reason": reason, "message": message})
}

fn cond_gen(ty: &str, status: &str, reason: &str, message: &str, generation: i64) -> Value {
    json!({"type": ty, "status": status, "reason": reason, "message": message, "observedGeneration": generation})
}

#[test]
fn pinned_version_is_a_release_tag() {
    assert!(ARGO_CD_VERSION.starts_with("v3.") && !ARGO_CD_VERSION.contains('-'), "{ARGO_CD_VERSION}");
    assert_eq!(ARGO_CD_COMMIT.len(), 40);
}

fn contour_httpproxy() -> Vec<Case> {
    const A: &str = "projectcontour.io/v1";
    const K: &str = "HTTPProxy";
    let spec = json!({"virtualhost": {"fqdn": "shop.example.com"},
                      "routes": [{"conditions": [{"prefix": "/"}], "services": [{"name": "web", "port": 80}]}]});
    let valid = cond_gen("Valid", "True", "Valid", "Valid HTTPProxy", 1);
    vec![
        case(
            "projectcontour.io/HTTPProxy/testdata/healthy.yaml",
            A,
            K,
            json!({
            "metadata": {"generation": 1}, "spec": spec,
            "status": {"conditions": [valid.clone()], "currentStatus": "valid", "description": "Valid HTTPProxy",
                       "loadBalancer": {"ingress": [{"hostname": "lb.example.com"}]}}}),
        )
        .is(Healthy, "Valid HTTPProxy"),
        case(
            "projectcontour.io/HTTPProxy/testdata/progressing.yaml",
            A,
            K,
            json!({
            "metadata": {"generation": 1}, "spec": spec}),
        )
        .is(Progressing, "Waiting for status"),
        case(
            "projectcontour.io/HTTPProxy/testdata/not_reconciled.yaml",
            A,
            K,
            json!({
            "metadata": {"generation": 1}, "spec": spec,
            "status": {"currentStatus": "NotReconciled", "description": "Waiting for controller"}}),
        )
        .is(Progressing, "Waiting for controller"),
        case(
            "projectcontour.io/HTTPProxy/testdata/degraded.yaml",
            A,
            K,
            json!({
            "metadata": {"generation": 1}, "spec": spec,
            "status": {"conditions": [{
                "type": "Valid", "status": "False", "observedGeneration": 1, "reason": "ErrorPresent",
                "message": "At least one error present, see Errors for details",
                "errors": [{"type": "ServiceError", "status": "True", "reason": "ServiceUnresolvedReference",
                            "message": "Spec.Routes unresolved service reference: service \"shop/web\" not found"}]}],
                       "currentStatus": "invalid",
                       "description": "At least one error present, see Errors for details"}}),
        )
        .is(Degraded, "At least one error present, see Errors for details"),
        case(
            "projectcontour.io/HTTPProxy/testdata/generation.yaml",
            A,
            K,
            json!({
            "metadata": {"generation": 2}, "spec": spec,
            "status": {"conditions": [valid], "currentStatus": "valid", "description": "Valid HTTPProxy"}}),
        )
        .is(Progressing, "Waiting for status"),
        case(
            "projectcontour.io/HTTPProxy/testdata/parent_child.yaml",
            A,
            K,
            json!({
            "metadata": {"generation": 1},
            "spec": {"virtualhost": {"fqdn": "shop.example.com"}, "includes": [{"name": "child"}]},
            "status": {"conditions": [{
                "type": "Valid", "status": "False", "observedGeneration": 1, "reason": "ErrorPresent",
                "message": "At least one error present, see Errors for details",
                "errors": [{"type": "IncludeError", "status": "True", "reason": "IncludeNotFound",
                            "message": "include child not found"}]}],
                       "currentStatus": "invalid",
                       "description": "At least one error present, see Errors for details"}}),
        )
        .is(Healthy, "HTTPProxy inclusions cannot be health checked"),
    ]
}

fn contour_extension_service() -> Vec<Case> {
    const A: &str = "projectcontour.io/v1alpha1";
    const K: &str = "ExtensionService";
    let spec = json!({"protocol": "h2c", "services": [{"name": "authz", "port": 9091}],
                      "timeoutPolicy": {"response": "1s"}});
    vec![
        case(
            "projectcontour.io/ExtensionService/testdata/healthy.yaml",
            A,
            K,
            json!({
            "metadata": {"generation": 1}, "spec": spec,
            "status": {"conditions": [cond_gen("Valid", "True", "Valid", "Valid ExtensionService", 1)]}}),
        )
        .is(Healthy, "Valid ExtensionService"),
        case(
            "projectcontour.io/ExtensionService/testdata/progressing.yaml",
            A,
            K,
            json!({
            "metadata": {"generation": 1}, "spec": spec}),
        )
        .is(Progressing, "Waiting for status"),
        case(
            "projectcontour.io/ExtensionService/testdata/degraded.yaml",
            A,
            K,
            json!({
            "metadata": {"generation": 1}, "spec": spec,
            "status": {"conditions": [{
                "type": "Valid", "status": "False", "observedGeneration": 1, "reason": "ErrorPresent",
                "message": "At least one error present, see Errors for details",
                "errors": [{"type": "ServiceError", "status": "True", "reason": "ServiceUnresolvedReference",
                            "message": "unresolved service reference"}]}]}}),
        )
        .is(Degraded, "At least one error present, see Errors for details"),
        case(
            "projectcontour.io/ExtensionService/testdata/generation.yaml",
            A,
            K,
            json!({
            "metadata": {"generation": 2}, "spec": spec,
            "status": {"conditions": [cond_gen("Valid", "True", "Valid", "Valid ExtensionService", 1)]}}),
        )
        .is(Progressing, "Waiting for status"),
    ]
}

fn openshift_route_and_ingress_controller() -> Vec<Case> {
    const R: &str = "route.openshift.io/v1";
    let ingress = |status: &str| {
        json!({"status": {"ingress": [{"host": "shop.apps.example.com", "routerName": "default",
               "wildcardPolicy": "None", "conditions": [{"type": "Admitted", "status": status}]}]},
               "spec": {"host": "shop.apps.example.com", "to": {"kind": "Service", "name": "web"}}})
    };
    const O: &str = "operator.openshift.io/v1";
    const IC: &str = "IngressController";
    let admitted = cond("Admitted", "True", "Valid", "");
    let endpoint = json!({"hostNetwork": {"httpPort": 80, "httpsPort": 443}, "type": "HostNetwork"});
    vec![
        case("route.openshift.io/Route/testdata/progressing.yaml", R, "Route", ingress("Unknown"))
            .is(Progressing, "Route is still getting admitted"),
        case("route.openshift.io/Route/testdata/degraded.yaml", R, "Route", ingress("False"))
            .is(Degraded, "Route is degraded"),
        case("route.openshift.io/Route/testdata/healthy.yaml", R, "Route", ingress("True"))
            .is(Healthy, "Route is healthy"),
        case(
            "operator.openshift.io/IngressController/testdata/progressing_initialization.yaml",
            O,
            IC,
            json!({
            "metadata": {"namespace": "openshift-ingress-operator"},
            "status": {"availableReplicas": 0, "conditions": [admitted.clone()], "domain": "apps.example.com",
                       "endpointPublishingStrategy": endpoint, "observedGeneration": 1}}),
        )
        .is(Progressing, "Status of IngressController is not known yet"),
        case(
            "operator.openshift.io/IngressController/testdata/progressing_pod_rollout.yaml",
            O,
            IC,
            json!({
            "status": {"availableReplicas": 0, "conditions": [
                admitted.clone(),
                cond("PodsScheduled", "False", "PodsNotScheduled", "Some pods are not scheduled"),
                cond("DeploymentAvailable", "True", "DeploymentAvailable", "The deployment is available"),
                cond("DeploymentReplicasAllAvailable", "False", "DeploymentReplicasNotAvailable",
                     "0/1 of replicas are available"),
                {"type": "Available", "status": "True"},
                {"type": "Progressing", "status": "False"},
                {"type": "Degraded", "status": "False"}]}}),
        )
        .is(Progressing, "0/1 of replicas are available"),
        case(
            "operator.openshift.io/IngressController/testdata/degraded.yaml",
            O,
            IC,
            json!({
            "status": {"availableReplicas": 0, "conditions": [
                admitted.clone(),
                {"type": "PodsScheduled", "status": "True"},
                cond("DNSManaged", "False", "NoDNSZones", "No DNS zones are defined in the cluster dns config."),
                {"type": "Progressing", "status": "False"},
                cond("Degraded", "True", "DegradedConditions",
                     "One or more other status conditions indicate a degraded state."),
                cond("CanaryChecksSucceeding", "False", "CanaryChecksRepetitiveFailures",
                     "Canary route checks for the default ingress controller are failing")]}}),
        )
        .is(Degraded, "One or more other status conditions indicate a degraded state."),
        case(
            "operator.openshift.io/IngressController/testdata/healthy.yaml",
            O,
            IC,
            json!({
            "status": {"availableReplicas": 1, "conditions": [
                admitted,
                cond("DeploymentReplicasAllAvailable", "True", "DeploymentReplicasAvailable",
                     "All replicas are available"),
                {"type": "Available", "status": "True"},
                {"type": "Progressing", "status": "False"},
                {"type": "Degraded", "status": "False"}]}}),
        )
        .is(Healthy, "IngressController is available"),
    ]
}

fn gke_managed_certificate() -> Vec<Case> {
    const A: &str = "networking.gke.io/v1";
    const K: &str = "ManagedCertificate";
    let cert = |overall: &str, domains: &[&str]| {
        let ds: Vec<Value> = domains
            .iter()
            .enumerate()
            .map(|(i, st)| json!({"domain": format!("d{i}.example.com"), "status": st}))
            .collect();
        json!({"metadata": {"generation": 2},
               "spec": {"domains": ["d0.example.com", "d1.example.com", "d2.example.com"]},
               "status": {"certificateName": "mcrt-1", "certificateStatus": overall, "domainStatus": ds}})
    };
    vec![
        case(
            "networking.gke.io/ManagedCertificate/testdata/provisioning.yaml",
            A,
            K,
            cert("Provisioning", &["Active", "Active", "Provisioning"]),
        )
        .is(Progressing, "At least one certificate is still being provisioned"),
        case(
            "networking.gke.io/ManagedCertificate/testdata/failed.yaml",
            A,
            K,
            cert("Provisioning", &["Active", "Provisioning", "FailedNotVisible"]),
        )
        .is(Degraded, "At least one certificate has failed to be provisioned"),
        case(
            "networking.gke.io/ManagedCertificate/testdata/active.yaml",
            A,
            K,
            cert("Active", &["Active", "Active", "Active"]),
        )
        .is(Healthy, "All certificates are active"),
    ]
}

fn secret_producers() -> Vec<Case> {
    const SS: &str = "bitnami.com/v1alpha1";
    const KES: &str = "kubernetes-client.io/v1";
    const OP: &str = "onepassword.com/v1";
    let sealed = json!({"spec": {"encryptedData": {".dockerconfigjson": "AgBy"}}});
    let kes = json!({"spec": {"backendType": "secretsManager", "data": [{"key": "shop/db", "name": "password"}]}});
    let item = json!({"spec": {"itemPath": "vaults/shop/items/db"}});
    let with = |base: &Value, status: Value| {
        let mut v = base.clone();
        v["status"] = status;
        v
    };
    vec![
        case("bitnami.com/SealedSecret/testdata/progressing.yaml", SS, "SealedSecret", sealed.clone())
            .is(Progressing, "Waiting for Sealed Secret to be decrypted"),
        case(
            "bitnami.com/SealedSecret/testdata/degraded.yaml",
            SS,
            "SealedSecret",
            with(
                &sealed,
                json!({
            "conditions": [{"type": "Synced", "status": "False", "lastUpdateTime": "2026-05-01T00:00:00Z",
                            "message": "no key could decrypt secret (.dockerconfigjson)"}],
            "observedGeneration": 1}),
            ),
        )
        .is(Degraded, "no key could decrypt secret (.dockerconfigjson)"),
        case(
            "bitnami.com/SealedSecret/testdata/healthy.yaml",
            SS,
            "SealedSecret",
            with(
                &sealed,
                json!({
            "conditions": [{"type": "Synced", "status": "True", "message": ""}], "observedGeneration": 1}),
            ),
        )
        .is(Healthy, ""),
        case("kubernetes-client.io/ExternalSecret/testdata/progressing.yaml", KES, "ExternalSecret", kes.clone())
            .is(Progressing, "Waiting for ExternalSecret."),
        case(
            "kubernetes-client.io/ExternalSecret/testdata/degraded.yaml",
            KES,
            "ExternalSecret",
            with(
                &kes,
                json!({
            "lastSync": "2026-05-01T00:00:00.000Z", "observedGeneration": 1,
            "status": "ERROR, Secrets Manager can't find the specified secret."}),
            ),
        )
        .is(Degraded, "Secrets Manager can't find the specified secret."),
        case(
            "kubernetes-client.io/ExternalSecret/testdata/healthy.yaml",
            KES,
            "ExternalSecret",
            with(
                &kes,
                json!({
            "lastSync": "2026-05-01T00:00:00.000Z", "observedGeneration": 1, "status": "SUCCESS"}),
            ),
        )
        .is(Healthy, "Fetched ExternalSecret."),
        case("onepassword.com/OnePasswordItem/testdata/new.yaml", OP, "OnePasswordItem", item.clone())
            .is(Progressing, "Waiting for controller to report status"),
        case(
            "onepassword.com/OnePasswordItem/testdata/degraded.yaml",
            OP,
            "OnePasswordItem",
            with(
                &item,
                json!({
            "conditions": [{"type": "Ready", "status": "False", "message": "Error"}]}),
            ),
        )
        .is(Degraded, "Error"),
        case(
            "onepassword.com/OnePasswordItem/testdata/healthy.yaml",
            OP,
            "OnePasswordItem",
            with(
                &item,
                json!({
            "conditions": [{"type": "Ready", "status": "True"}]}),
            ),
        )
        .is(Healthy, ""),
    ]
}

fn cert_manager() -> Vec<Case> {
    const A: &str = "cert-manager.io/v1";
    const OLD: &str = "certmanager.k8s.io/v1alpha1";
    let spec = json!({"secretName": "shop-tls", "dnsNames": ["shop.example.com"],
                      "issuerRef": {"kind": "Issuer", "name": "letsencrypt"}});
    let cert = |conditions: Value| json!({"spec": spec, "status": {"conditions": conditions}});
    let missing = "Issuing certificate as Secret does not exist";
    let invalid = "Resource validation failed: spec.acme.config: Required value: no ACME solver configuration \
                   specified for domain \"shop.example.com\"";
    let issuer = json!({"spec": {"acme": {"server": "https://acme.example/directory",
                                          "privateKeySecretRef": {"name": "acme-key"}}}});
    let issuer_with = |c: Value| {
        let mut v = issuer.clone();
        v["status"] = json!({"conditions": [c]});
        v
    };
    let registered = "The ACME account was registered with the ACME server";
    let failed = "Failed to verify ACME account: acme: : 404 page not found\n";
    let mut cases = vec![
        case("cert-manager.io/Certificate/testdata/progressing_noStatus.yaml", A, "Certificate", json!({"spec": spec}))
            .is(Progressing, "Waiting for certificate"),
        case(
            "cert-manager.io/Certificate/testdata/progressing_issuing.yaml",
            A,
            "Certificate",
            cert(json!([
                cond("Issuing", "True", "DoesNotExist", missing),
                cond("Ready", "False", "DoesNotExist", missing)
            ])),
        )
        .is(Progressing, missing),
        case(
            "cert-manager.io/Certificate/testdata/progressing_issuing_last.yaml",
            A,
            "Certificate",
            cert(json!([
                cond("Ready", "False", "DoesNotExist", missing),
                cond("Issuing", "True", "DoesNotExist", missing)
            ])),
        )
        .is(Progressing, missing),
        case(
            "cert-manager.io/Certificate/testdata/degraded_configError.yaml",
            A,
            "Certificate",
            cert(json!([cond("Ready", "False", "ConfigError", invalid)])),
        )
        .is(Degraded, invalid),
        case(
            "cert-manager.io/Certificate/testdata/healthy_issued.yaml",
            A,
            "Certificate",
            cert(json!([cond("Ready", "True", "CertIssued", "Certificate issued successfully")])),
        )
        .is(Healthy, "Certificate issued successfully"),
        case(
            "cert-manager.io/Certificate/testdata/healthy_renewed.yaml",
            A,
            "Certificate",
            cert(json!([
                cond("Ready", "True", "CertRenewed", "Certificate renewed successfully"),
                cond("ValidateFailed", "False", "OrderValidated", "Order validated")
            ])),
        )
        .is(Healthy, "Certificate renewed successfully"),
        case(
            "certmanager.k8s.io/Certificate/testdata/progressing_noStatus.yaml",
            OLD,
            "Certificate",
            json!({"spec": spec}),
        )
        .is(Progressing, "Waiting for certificate"),
        case(
            "certmanager.k8s.io/Certificate/testdata/degraded_configError.yaml",
            OLD,
            "Certificate",
            cert(json!([cond("Ready", "False", "ConfigError", invalid)])),
        )
        .is(Degraded, invalid),
        case(
            "certmanager.k8s.io/Certificate/testdata/healthy_issued.yaml",
            OLD,
            "Certificate",
            cert(json!([cond("Ready", "True", "CertIssued", "Certificate issued successfully")])),
        )
        .is(Healthy, "Certificate issued successfully"),
        case(
            "certmanager.k8s.io/Certificate/testdata/healthy_renewed.yaml",
            OLD,
            "Certificate",
            cert(json!([cond("Ready", "True", "CertRenewed", "Certificate renewed successfully")])),
        )
        .is(Healthy, "Certificate renewed successfully"),
    ];
    for (group_version, kind, waiting) in [
        (A, "Issuer", "Initializing issuer"),
        (A, "ClusterIssuer", "Initializing ClusterIssuer"),
        (OLD, "Issuer", "Initializing issuer"),
    ] {
        let group = group_version.split('/').next().unwrap_or_default();
        let path = |file: &str| format!("{group}/{kind}/testdata/{file}");
        cases.push(
            case(path("progressing_noStatus.yaml"), group_version, kind, issuer.clone()).is(Progressing, waiting),
        );
        cases.push(
            case(
                path("healthy_registered.yaml"),
                group_version,
                kind,
                issuer_with(cond("Ready", "True", "ACMEAccountRegistered", registered)),
            )
            .is(Healthy, registered),
        );
        cases.push(
            case(
                path("degraded_acmeFailed.yaml"),
                group_version,
                kind,
                issuer_with(cond("Ready", "False", "ErrRegisterACMEAccount", failed)),
            )
            .is(Degraded, failed),
        );
    }
    cases
}

fn external_secrets() -> Vec<Case> {
    const A: &str = "external-secrets.io/v1";
    let ready = |status: &str, message: &str| {
        json!({"status": {"conditions": [
        {"type": "Ready", "status": status, "reason": if status == "True" { "Valid" } else { "Invalid" },
         "message": message}]}})
    };
    let degraded_es =
        "could not get secret data from provider: key \"secret/sa/example\" from ExternalSecret \"test-degraded\"";
    let push_failed = "set secret failed: could not write remote ref test to target secretstore my-store: \
                       Error making API request.";
    let failed_ns = "one or more namespaces failed";
    let ces = |conditions: Value| {
        json!({"spec": {"namespaceSelectors": [{"matchLabels": {"team": "shop"}}]},
                                          "status": {"conditions": conditions}})
    };
    vec![
        case(
            "external-secrets.io/ExternalSecret/testdata/progressing.yaml",
            A,
            "ExternalSecret",
            json!({"spec": {"secretStoreRef": {"name": "vault"}}}),
        )
        .is(Progressing, "Waiting for ExternalSecret"),
        case(
            "external-secrets.io/ExternalSecret/testdata/degraded.yaml",
            A,
            "ExternalSecret",
            ready("False", degraded_es),
        )
        .is(Degraded, degraded_es),
        case(
            "external-secrets.io/ExternalSecret/testdata/healthy.yaml",
            A,
            "ExternalSecret",
            ready("True", "Secret was synced"),
        )
        .is(Healthy, "Secret was synced"),
        case(
            "external-secrets.io/PushSecret/testdata/progressing.yaml",
            "external-secrets.io/v1alpha1",
            "PushSecret",
            json!({"spec": {"secretStoreRefs": [{"name": "my-store"}]}}),
        )
        .is(Progressing, "Waiting for PushSecret"),
        case(
            "external-secrets.io/PushSecret/testdata/degraded.yaml",
            "external-secrets.io/v1alpha1",
            "PushSecret",
            ready("False", push_failed),
        )
        .is(Degraded, push_failed),
        case(
            "external-secrets.io/PushSecret/testdata/healthy.yaml",
            "external-secrets.io/v1alpha1",
            "PushSecret",
            ready("True", "PushSecret synced successfully"),
        )
        .is(Healthy, "PushSecret synced successfully"),
        case(
            "external-secrets.io/SecretStore/testdata/degraded.yaml",
            A,
            "SecretStore",
            ready("False", "unable to validate store"),
        )
        .is(Degraded, "unable to validate store"),
        case(
            "external-secrets.io/SecretStore/testdata/healthy.yaml",
            A,
            "SecretStore",
            ready("True", "store validated"),
        )
        .is(Healthy, "store validated"),
        case(
            "external-secrets.io/ClusterSecretStore/testdata/degraded.yaml",
            A,
            "ClusterSecretStore",
            ready("False", "unable to validate store"),
        )
        .is(Degraded, "unable to validate store"),
        case(
            "external-secrets.io/ClusterSecretStore/testdata/healthy.yaml",
            A,
            "ClusterSecretStore",
            ready("True", "store validated"),
        )
        .is(Healthy, "store validated"),
        case(
            "external-secrets.io/ClusterExternalSecret/testdata/progressing.yaml",
            A,
            "ClusterExternalSecret",
            json!({"spec": {"namespaceSelectors": [{"matchLabels": {"team": "shop"}}]}}),
        )
        .is(Progressing, "Waiting for ClusterExternalSecret"),
        case(
            "external-secrets.io/ClusterExternalSecret/testdata/notready.yaml",
            A,
            "ClusterExternalSecret",
            ces(json!([{"type": "NotReady", "status": "True", "message": failed_ns}])),
        )
        .is(Degraded, failed_ns),
        case(
            "external-secrets.io/ClusterExternalSecret/testdata/partiallyready.yaml",
            A,
            "ClusterExternalSecret",
            ces(json!([{"type": "PartiallyReady", "status": "True", "message": failed_ns}])),
        )
        .is(Degraded, failed_ns),
        case(
            "external-secrets.io/ClusterExternalSecret/testdata/partiallyready-multiple-conditions.yaml",
            A,
            "ClusterExternalSecret",
            ces(json!([{"type": "NotReady", "status": "True", "message": failed_ns},
                        {"type": "PartiallyReady", "status": "True", "message": failed_ns}])),
        )
        .is(Degraded, failed_ns),
        case(
            "external-secrets.io/ClusterExternalSecret/testdata/healthy.yaml",
            A,
            "ClusterExternalSecret",
            ces(json!([{"type": "PartiallyReady", "status": "True", "message": failed_ns},
                        {"type": "Ready", "status": "True"}])),
        )
        .is(Healthy, ""),
    ]
}

fn gateway_api() -> Vec<Case> {
    const A: &str = "gateway.networking.k8s.io/v1";
    let gc = |conditions: Value, generation: i64| {
        json!({"metadata": {"generation": generation},
        "spec": {"controllerName": "example.io/gateway-controller"}, "status": {"conditions": conditions}})
    };
    let ok3 = |prefix: &str| -> Vec<Value> {
        vec![
            cond_gen("Programmed", "True", "Programmed", &format!("{prefix} has been programmed"), 1),
            cond_gen("Accepted", "True", "Accepted", &format!("{prefix} has been accepted"), 1),
            cond_gen("ResolvedRefs", "True", "ResolvedRefs", "All references resolved", 1),
        ]
    };
    let gw = |conditions: Vec<Value>, listener: Vec<Value>| {
        json!({"metadata": {"generation": 1},
        "spec": {"gatewayClassName": "example", "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]},
        "status": {"conditions": conditions, "listeners": [{"name": "http", "attachedRoutes": 0,
            "supportedKinds": [{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute"}],
            "conditions": listener}]}})
    };
    let parent_ref = json!({"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "example-gateway",
                            "namespace": "default"});
    let route = |generation: i64, parents: Vec<Value>| {
        json!({"metadata": {"generation": generation},
        "spec": {"parentRefs": [{"name": "example-gateway"}], "hostnames": ["shop.example.com"],
                 "rules": [{"backendRefs": [{"name": "web", "port": 8080}]}]},
        "status": {"parents": parents}})
    };
    let parent = |conditions: Vec<Value>| {
        json!({"parentRef": parent_ref, "controllerName": "example.io/gateway-controller",
                                                 "conditions": conditions})
    };
    let accepted = cond_gen("Accepted", "True", "Accepted", "Route has been accepted", 1);
    let resolved = cond_gen("ResolvedRefs", "True", "ResolvedRefs", "All references resolved", 1);
    let programmed = cond_gen("Programmed", "True", "Programmed", "Route is successfully programmed", 1);
    let not_found =
        cond_gen("ResolvedRefs", "False", "BackendNotFound", "BackendRef service-does-not-exist not found", 1);
    let not_accepted = cond_gen(
        "Accepted",
        "False",
        "NotAllowedByListeners",
        "Route has not been accepted due to invalid configuration",
        1,
    );
    let in_progress = cond_gen("Programmed", "False", "Pending", "Route is still being programmed", 1);
    let mut cases = vec![
        case(
            "gateway.networking.k8s.io/GatewayClass/testdata/healthy.yaml",
            A,
            "GatewayClass",
            gc(json!([cond_gen("Accepted", "True", "Accepted", "GatewayClass has been accepted", 1)]), 1),
        )
        .is(Healthy, "GatewayClass has been accepted"),
        case(
            "gateway.networking.k8s.io/GatewayClass/testdata/degraded.yaml",
            A,
            "GatewayClass",
            gc(
                json!([cond_gen(
                    "Accepted",
                    "False",
                    "InvalidParameters",
                    "GatewayClass has not been accepted by any controller",
                    1
                )]),
                1,
            ),
        )
        .is(Degraded, "GatewayClass has not been accepted by any controller"),
        case(
            "gateway.networking.k8s.io/GatewayClass/testdata/progressing.yaml",
            A,
            "GatewayClass",
            gc(json!([cond_gen("Accepted", "Unknown", "Pending", "Waiting for controller", 1)]), 1),
        )
        .is(Progressing, "Waiting for controller"),
        case(
            "gateway.networking.k8s.io/GatewayClass/testdata/progressing_no_status.yaml",
            A,
            "GatewayClass",
            json!({"spec": {"controllerName": "example.io/gateway-controller"}}),
        )
        .is(Progressing, "Waiting for GatewayClass status"),
        case(
            "gateway.networking.k8s.io/GatewayClass/testdata/progressing_stale_generation.yaml",
            A,
            "GatewayClass",
            gc(json!([cond_gen("Accepted", "True", "Accepted", "GatewayClass has been accepted", 1)]), 2),
        )
        .is(Progressing, "Waiting for GatewayClass status"),
        case(
            "gateway.networking.k8s.io/Gateway/testdata/healthy.yaml",
            A,
            "Gateway",
            gw(ok3("Gateway"), ok3("Listener")),
        )
        .is(Healthy, "Gateway is healthy"),
        case(
            "gateway.networking.k8s.io/Gateway/testdata/degraded_resolved_refs.yaml",
            A,
            "Gateway",
            gw(
                vec![
                    cond_gen("Programmed", "True", "Programmed", "Gateway has been programmed", 1),
                    cond_gen("Accepted", "True", "Accepted", "Gateway has been accepted", 1),
                    cond_gen("ResolvedRefs", "False", "InvalidCertificateRef", "Failed to resolve references", 1),
                ],
                ok3("Listener"),
            ),
        )
        .is(Degraded, "Failed to resolve references"),
        case(
            "gateway.networking.k8s.io/Gateway/testdata/degraded_accepted.yaml",
            A,
            "Gateway",
            gw(
                vec![cond_gen("Accepted", "False", "Invalid", "Gateway has not been accepted by any controller", 1)],
                ok3("Listener"),
            ),
        )
        .is(Degraded, "Gateway has not been accepted by any controller"),
        case(
            "gateway.networking.k8s.io/Gateway/testdata/listener_degraded.yaml",
            A,
            "Gateway",
            gw(
                ok3("Gateway"),
                vec![
                    cond_gen("Programmed", "True", "Ready", "Listener is ready", 1),
                    cond_gen("Accepted", "False", "ListenerNotAccepted", "Listener has not been accepted", 1),
                    cond_gen("ResolvedRefs", "True", "ResolvedRefs", "All references resolved", 1),
                ],
            ),
        )
        .is(Degraded, "Listener: Listener has not been accepted"),
        case(
            "gateway.networking.k8s.io/Gateway/testdata/progressing.yaml",
            A,
            "Gateway",
            gw(
                vec![
                    cond_gen("Programmed", "False", "ProgrammingInProgress", "Gateway is still being programmed", 1),
                    cond_gen("Accepted", "True", "Accepted", "Gateway has been accepted", 1),
                    cond_gen("ResolvedRefs", "True", "ResolvedRefs", "All references resolved", 1),
                ],
                vec![cond_gen("Programmed", "False", "ProgrammingInProgress", "Listener is being programmed", 1)],
            ),
        )
        .is(Progressing, "Gateway is still being programmed"),
    ];
    for kind in ["HTTPRoute", "GRPCRoute"] {
        let path = |file: &str| format!("gateway.networking.k8s.io/{kind}/testdata/{file}");
        let healthy = format!("{kind} is healthy");
        cases.extend([
            case(path("healthy.yaml"), A, kind, route(1, vec![parent(vec![accepted.clone(), resolved.clone()])]))
                .is(Healthy, healthy),
            case(
                path("degraded_resolved_refs.yaml"),
                A,
                kind,
                route(1, vec![parent(vec![accepted.clone(), not_found.clone()])]),
            )
            .is(Degraded, "Parent example-gateway: BackendRef service-does-not-exist not found"),
            case(
                path("degraded_accepted.yaml"),
                A,
                kind,
                route(1, vec![parent(vec![not_accepted.clone(), resolved.clone()])]),
            )
            .is(Degraded, "Parent example-gateway: Route has not been accepted due to invalid configuration"),
            case(
                path("progressing.yaml"),
                A,
                kind,
                route(1, vec![parent(vec![accepted.clone(), resolved.clone(), in_progress.clone()])]),
            )
            .is(Progressing, "Parent example-gateway: Route is still being programmed"),
        ]);
    }
    cases.extend([
        case(
            "gateway.networking.k8s.io/HTTPRoute/testdata/healthy_multiple_generations.yaml",
            A,
            "HTTPRoute",
            route(
                2,
                vec![
                    parent(vec![
                        cond_gen("Accepted", "False", "NoMatchingParent", "No listeners match this parent ref", 1),
                        cond_gen("ResolvedRefs", "True", "ResolvedRefs", "Resolved all the Object references", 1),
                    ]),
                    parent(vec![
                        cond_gen("Accepted", "True", "Accepted", "Route is accepted", 2),
                        cond_gen("ResolvedRefs", "True", "ResolvedRefs", "Resolved all the Object references", 2),
                    ]),
                ],
            ),
        )
        .is(Healthy, "HTTPRoute is healthy"),
        case(
            "gateway.networking.k8s.io/GRPCRoute/testdata/degraded_no_message.yaml",
            A,
            "GRPCRoute",
            route(
                1,
                vec![parent(vec![
                    programmed.clone(),
                    accepted.clone(),
                    json!({"type": "ResolvedRefs", "status": "False", "reason": "BackendNotFound",
                               "observedGeneration": 1}),
                ])],
            ),
        )
        .is(Degraded, "Parent example-gateway: Failed condition: ResolvedRefs"),
        case(
            "gateway.networking.k8s.io/GRPCRoute/testdata/degraded_no_parent_name.yaml",
            A,
            "GRPCRoute",
            route(
                1,
                vec![json!({"parentRef": {"namespace": "default", "sectionName": "grpc"},
                   "controllerName": "example.io/gateway-controller",
                   "conditions": [programmed, accepted, not_found]})],
            ),
        )
        .is(Degraded, "Parent : BackendRef service-does-not-exist not found"),
    ]);
    let policy = |generation: i64, conditions: Vec<Value>| {
        json!({"metadata": {"generation": generation},
        "spec": {"targetRefs": [{"group": "", "kind": "Service", "name": "web"}],
                 "validation": {"hostname": "web.example.com", "wellKnownCACertificates": "System"}},
        "status": {"ancestors": [{"ancestorRef": {"name": "example-gateway", "namespace": "default"},
                                  "controllerName": "example.io/gateway-controller", "conditions": conditions}]}})
    };
    let ca_missing = "Referenced CA certificate ConfigMap 'default/example-ca' does not exist";
    let bad_value = "BackendTLSPolicy has invalid wellKnownCACertificates value, must be 'System'";
    cases.extend([
        case(
            "gateway.networking.k8s.io/BackendTLSPolicy/testdata/healthy.yaml",
            A,
            "BackendTLSPolicy",
            policy(
                1,
                vec![
                    cond_gen("Accepted", "True", "Accepted", "Policy accepted", 1),
                    cond_gen("ResolvedRefs", "True", "ResolvedRefs", "All references resolved", 1),
                ],
            ),
        )
        .is(Healthy, "BackendTLSPolicy is healthy"),
        case(
            "gateway.networking.k8s.io/BackendTLSPolicy/testdata/degraded_resolved_refs.yaml",
            A,
            "BackendTLSPolicy",
            policy(
                1,
                vec![
                    cond_gen("Accepted", "True", "Accepted", "Policy accepted", 1),
                    cond_gen("ResolvedRefs", "False", "InvalidCACertificateRef", ca_missing, 1),
                ],
            ),
        )
        .is(
            Degraded,
            "Ancestor example-gateway: Referenced CA certificate ConfigMap 'default/example-ca' does not exist",
        ),
        case(
            "gateway.networking.k8s.io/BackendTLSPolicy/testdata/degraded_accepted.yaml",
            A,
            "BackendTLSPolicy",
            policy(1, vec![cond_gen("Accepted", "False", "Invalid", bad_value, 1)]),
        )
        .is(
            Degraded,
            "Ancestor example-gateway: BackendTLSPolicy has invalid wellKnownCACertificates value, must be 'System'",
        ),
        case(
            "gateway.networking.k8s.io/BackendTLSPolicy/testdata/progressing.yaml",
            A,
            "BackendTLSPolicy",
            json!({"spec": {"targetRefs": [{"group": "", "kind": "Service", "name": "web"}]}}),
        )
        .is(Progressing, "Waiting for BackendTLSPolicy status"),
        case(
            "gateway.networking.k8s.io/BackendTLSPolicy/testdata/progressing_observed_generation.yaml",
            A,
            "BackendTLSPolicy",
            policy(2, vec![cond_gen("Accepted", "True", "Accepted", "Policy accepted", 1)]),
        )
        .is(Progressing, "Waiting for Ancestor example-gateway to update BackendTLSPolicy status"),
    ]);
    cases
}

fn application_set_and_cron_job() -> Vec<Case> {
    const AS: &str = "argoproj.io/v1alpha1";
    let appset = |conditions: Value| {
        json!({"spec": {"generators": [{"list": {"elements": []}}]},
                                            "status": {"conditions": conditions}})
    };
    const CJ: &str = "batch/v1";
    let cron = |suspend: bool, status: Value| {
        json!({"spec": {"schedule": "*/5 * * * *", "suspend": suspend,
        "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never",
                                                        "containers": [{"name": "c", "image": "busybox"}]}}}}},
        "status": status})
    };
    vec![
        case(
            "argoproj.io/ApplicationSet/testdata/healthyApplicationSet.yaml",
            AS,
            "ApplicationSet",
            appset(json!([
                cond(
                    "ErrorOccurred",
                    "False",
                    "ApplicationSetUpToDate",
                    "Successfully generated parameters for all Applications"
                ),
                cond(
                    "ParametersGenerated",
                    "True",
                    "ParametersGenerated",
                    "Successfully generated parameters for all Applications"
                ),
                cond("ResourcesUpToDate", "True", "ApplicationSetUpToDate", "ApplicationSet up to date")
            ])),
        )
        .is(Healthy, "ApplicationSet up to date"),
        case(
            "argoproj.io/ApplicationSet/testdata/errorApplicationSetWithStatusMessage.yaml",
            AS,
            "ApplicationSet",
            appset(json!([
                cond(
                    "ErrorOccurred",
                    "True",
                    "ApplicationGenerationFromParamsError",
                    "found less than two generators, Merge requires two or more"
                ),
                cond(
                    "ResourcesUpToDate",
                    "False",
                    "ApplicationGenerationFromParamsError",
                    "found less than two generators, Merge requires two or more"
                )
            ])),
        )
        .is(Degraded, "found less than two generators, Merge requires two or more"),
        case(
            "argoproj.io/ApplicationSet/testdata/noStatusApplicationSet.yaml",
            AS,
            "ApplicationSet",
            json!({"spec": {"generators": []}}),
        )
        .is(Progressing, "Waiting for the status to be reported"),
        case(
            "argoproj.io/ApplicationSet/testdata/resourceNotUpdatedApplicationSet.yaml",
            AS,
            "ApplicationSet",
            appset(json!([
                cond("ErrorOccurred", "False", "ApplicationSetUpToDate", "Successfully generated parameters"),
                cond("ResourcesUpToDate", "False", "UpdateApplicationError", "could not create application")
            ])),
        )
        .is(Degraded, "could not create application"),
        case(
            "argoproj.io/ApplicationSet/testdata/progressiveSyncApplicationSet.yaml",
            AS,
            "ApplicationSet",
            appset(json!([
                cond(
                    "RolloutProgressing",
                    "True",
                    "ApplicationSetModified",
                    "ApplicationSet is performing rollout of step 1"
                ),
                cond("ResourcesUpToDate", "True", "ApplicationSetUpToDate", "ApplicationSet up to date")
            ])),
        )
        .is(Progressing, "ApplicationSet is performing rollout of step 1"),
        case(
            "batch/CronJob/testdata/healthy.yaml",
            CJ,
            "CronJob",
            cron(
                false,
                json!({
            "lastScheduleTime": "2026-05-31T23:55:00Z", "lastSuccessfulTime": "2026-05-31T23:55:07Z"}),
            ),
        )
        .is(Healthy, "CronJob has completed its last execution successfully"),
        case("batch/CronJob/testdata/never-scheduled.yaml", CJ, "CronJob", cron(false, json!({})))
            .is(Healthy, "CronJob has not been scheduled yet"),
        case(
            "batch/CronJob/testdata/degraded.yaml",
            CJ,
            "CronJob",
            cron(
                false,
                json!({
            "lastScheduleTime": "2026-05-31T23:55:00Z", "lastSuccessfulTime": "2026-05-31T23:50:07Z"}),
            ),
        )
        .is(Degraded, "CronJob has not completed its last execution successfully"),
        case(
            "batch/CronJob/testdata/never-succeeded.yaml",
            CJ,
            "CronJob",
            cron(
                false,
                json!({
            "lastScheduleTime": "2026-05-31T23:55:00Z"}),
            ),
        )
        .is(Healthy, "The CronJob never completed successfully. It may not be healthy"),
        case(
            "batch/CronJob/testdata/active.yaml",
            CJ,
            "CronJob",
            cron(
                false,
                json!({
            "active": [{"kind": "Job", "name": "x-29000", "namespace": "ns"}],
            "lastScheduleTime": "2026-05-31T23:55:00Z", "lastSuccessfulTime": "2026-05-31T23:50:07Z"}),
            ),
        )
        .is(Healthy, "The job is running. Its last execution may not have been successful"),
        case(
            "batch/CronJob/testdata/suspended.yaml",
            CJ,
            "CronJob",
            cron(
                true,
                json!({
            "lastScheduleTime": "2026-05-31T23:55:00Z", "lastSuccessfulTime": "2026-05-31T23:50:07Z"}),
            ),
        )
        .is(Healthy, "CronJob is Suspended"),
    ]
}

fn gitops_engine_hpa() -> Vec<Case> {
    let v2 = |conditions: Value| {
        json!({"spec": {"minReplicas": 1, "maxReplicas": 5,
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}},
        "status": {"currentReplicas": 1, "desiredReplicas": 1, "conditions": conditions}})
    };
    let v1 = |conditions: Option<Value>| {
        let mut v = json!({"spec": {"minReplicas": 1, "maxReplicas": 5, "targetCPUUtilizationPercentage": 80,
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}});
        if let Some(c) = conditions {
            v["metadata"] = json!({"annotations": {"autoscaling.alpha.kubernetes.io/conditions": c.to_string()}});
        }
        v
    };
    let able = cond("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size");
    let limited =
        cond("ScalingLimited", "True", "TooFewReplicas", "the desired replica count is less than the minimum");
    let mut cases = vec![
        case(
            "gitops-engine/pkg/health/testdata/hpa-v2-healthy.yaml",
            "autoscaling/v2",
            "HorizontalPodAutoscaler",
            v2(json!([able, cond("ScalingActive", "True", "ValidMetricFound", "the HPA was able to compute")])),
        )
        .status(Healthy),
        case(
            "gitops-engine/pkg/health/testdata/hpa-v2-degraded.yaml",
            "autoscaling/v2",
            "HorizontalPodAutoscaler",
            v2(json!([
                able,
                cond(
                    "ScalingActive",
                    "False",
                    "FailedGetResourceMetric",
                    "the HPA was unable to compute the replica count"
                )
            ])),
        )
        .is(Degraded, "the HPA was unable to compute the replica count"),
        case(
            "gitops-engine/pkg/health/testdata/hpa-v2-progressing.yaml",
            "autoscaling/v2",
            "HorizontalPodAutoscaler",
            v2(json!([cond(
                "AbleToScale",
                "False",
                "BackoffBoth",
                "the time since the previous scale is still within both the downscale and upscale forbidden windows"
            )])),
        )
        .is(Progressing, "Waiting to Autoscale"),
        case(
            "gitops-engine/pkg/health/testdata/hpa-v1-degraded.yaml",
            "autoscaling/v1",
            "HorizontalPodAutoscaler",
            v1(Some(json!([
                cond("AbleToScale", "True", "SucceededGetScale", "got the current scale"),
                cond("ScalingActive", "False", "FailedGetResourceMetric", "missing request for cpu")
            ]))),
        )
        .is(Degraded, "missing request for cpu"),
        case(
            "gitops-engine/pkg/health/testdata/hpa-v1-degraded-failedgetobjectmetric.yaml",
            "autoscaling/v1",
            "HorizontalPodAutoscaler",
            v1(Some(json!([cond("ScalingActive", "False", "FailedGetObjectMetric", "unable to get metric")]))),
        )
        .is(Degraded, "unable to get metric"),
        case(
            "gitops-engine/pkg/health/testdata/hpa-v1-healthy.yaml",
            "autoscaling/v1",
            "HorizontalPodAutoscaler",
            v1(Some(json!([able]))),
        )
        .status(Healthy),
        case(
            "gitops-engine/pkg/health/testdata/hpa-v1-healthy-toofew.yaml",
            "autoscaling/v1",
            "HorizontalPodAutoscaler",
            v1(Some(json!([cond("AbleToScale", "False", "BackoffBoth", "backoff"), limited]))),
        )
        .status(Healthy),
        case(
            "gitops-engine/pkg/health/testdata/hpa-v1-progressing.yaml",
            "autoscaling/v1",
            "HorizontalPodAutoscaler",
            v1(Some(json!([cond("AbleToScale", "False", "BackoffBoth", "backoff")]))),
        )
        .is(Progressing, "Waiting to Autoscale"),
        case(
            "gitops-engine/pkg/health/testdata/hpa-v1-progressing-with-no-annotations.yaml",
            "autoscaling/v1",
            "HorizontalPodAutoscaler",
            v1(None),
        )
        .is(Progressing, "Waiting to Autoscale"),
    ];
    // (go) every reason of isDegraded, for both versions; the external metric and replica computation
    // reasons were added upstream after the others.
    for reason in [
        "FailedGetResourceMetric",
        "FailedGetObjectMetric",
        "FailedGetPodsMetric",
        "FailedGetExternalMetric",
        "FailedComputeMetricsReplicas",
        "InvalidSelector",
    ] {
        let message = format!("the HPA failed: {reason}");
        let name = format!("(go) health_hpa.go isDegraded ScalingActive/{reason}");
        // A healthy AbleToScale ahead of it: every condition is looked at for a degraded reason first.
        let conditions = json!([
            cond("AbleToScale", "True", "ReadyForNewScale", "ready"),
            cond("ScalingActive", "False", reason, &message)
        ]);
        cases.push(
            case(name.clone(), "autoscaling/v2", "HorizontalPodAutoscaler", v2(conditions.clone()))
                .is(Degraded, message.clone()),
        );
        cases.push(case(name, "autoscaling/v1", "HorizontalPodAutoscaler", v1(Some(conditions))).is(Degraded, message));
    }
    for reason in ["FailedGetScale", "FailedUpdateScale"] {
        let name = format!("(go) health_hpa.go isDegraded AbleToScale/{reason}");
        cases.push(
            case(
                name,
                "autoscaling/v2",
                "HorizontalPodAutoscaler",
                v2(json!([cond("AbleToScale", "False", reason, "scale failed")])),
            )
            .is(Degraded, "scale failed"),
        );
    }
    // (go) a reason that is not in the list is not degraded, and a v1 annotation with an empty list waits.
    cases.push(
        case(
            "(go) health_hpa.go: other ScalingActive reasons",
            "autoscaling/v2",
            "HorizontalPodAutoscaler",
            v2(json!([cond(
                "ScalingActive",
                "False",
                "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero"
            )])),
        )
        .is(Progressing, "Waiting to Autoscale"),
    );
    cases.push(
        case(
            "(go) health_hpa.go: empty v1 conditions annotation",
            "autoscaling/v1",
            "HorizontalPodAutoscaler",
            v1(Some(json!([]))),
        )
        .is(Progressing, "Waiting to Autoscale"),
    );
    cases
}

fn gitops_engine_workloads() -> Vec<Case> {
    // health_test.go asserts the status of these (and the Workflow messages); where the message is
    // gitops-engine's own format string it is asserted too.
    const T: &str = "gitops-engine/pkg/health/testdata";
    let pod = |policy: &str, status: Value| {
        json!({"spec": {"restartPolicy": policy,
        "containers": [{"name": "main", "image": "app"}]}, "status": status})
    };
    let unready = json!([{"type": "Initialized", "status": "True"},
        {"type": "Ready", "status": "False", "reason": "ContainersNotReady",
         "message": "containers with unready status: [main]"}]);
    let ready = json!([{"type": "Ready", "status": "True"}]);
    let waiting = |reason: &str, message: &str| {
        json!({"phase": "Running", "conditions": unready,
        "containerStatuses": [{"name": "main", "ready": false, "restartCount": 4,
                               "state": {"waiting": {"reason": reason, "message": message}}}]})
    };
    let workflow = |status: Value| json!({"spec": {"entrypoint": "main"}, "status": status});
    let apiservice = |st: &str, reason: &str, message: &str| {
        json!({
        "metadata": {"name": "v1beta1.metrics.k8s.io"},
        "spec": {"group": "metrics.k8s.io", "version": "v1beta1", "service": {"name": "metrics-server", "namespace": "kube-system"}},
        "status": {"conditions": [{"type": "Available", "status": st, "reason": reason, "message": message}]}})
    };
    let deployment = |replicas: i64, updated: i64, available: i64, conditions: Value| {
        json!({
        "metadata": {"name": "guestbook", "generation": 3}, "spec": {"replicas": replicas},
        "status": {"observedGeneration": 3, "replicas": replicas, "updatedReplicas": updated,
                   "availableReplicas": available, "readyReplicas": available, "conditions": conditions}})
    };
    let mut cases = vec![
        case("gitops-engine/pkg/utils/kube/testdata/nginx.yaml", "apps/v1", "Deployment", deployment(1, 1, 1, json!([
            cond("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")])))
        .is(Healthy, ""),
        case(format!("{T}/deployment-progressing.yaml"), "apps/v1", "Deployment", deployment(2, 1, 1, json!([])))
            .is(Progressing, "Waiting for rollout to finish: 1 out of 2 new replicas have been updated..."),
        case(format!("{T}/deployment-suspended.yaml"), "apps/v1", "Deployment",
             json!({"metadata": {"generation": 2}, "spec": {"paused": true, "replicas": 1},
                    "status": {"observedGeneration": 2}}))
        .is(Suspended, "Deployment is paused"),
        case(format!("{T}/deployment-degraded.yaml"), "apps/v1", "Deployment", deployment(1, 1, 1, json!([
            cond("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability."),
            cond("Progressing", "False", "ProgressDeadlineExceeded",
                 "ReplicaSet \"guestbook-ui-75dd4d49d5\" has timed out progressing.")])))
        .is(Degraded, "Deployment \"guestbook\" exceeded its progress deadline"),
        case(format!("{T}/statefulset.yaml"), "apps/v1", "StatefulSet", json!({
            "metadata": {"generation": 1}, "spec": {"replicas": 3,
                "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}},
            "status": {"observedGeneration": 1, "replicas": 3, "readyReplicas": 3, "currentReplicas": 3,
                       "updatedReplicas": 3, "currentRevision": "web-6b9f", "updateRevision": "web-6b9f"}}))
        .is(Healthy, "partitioned roll out complete: 3 new pods have been updated..."),
        case(format!("{T}/statefulset-ondelete.yaml"), "apps/v1", "StatefulSet", json!({
            "metadata": {"generation": 2}, "spec": {"replicas": 1, "updateStrategy": {"type": "OnDelete"}},
            "status": {"observedGeneration": 2, "replicas": 1, "readyReplicas": 1, "updatedReplicas": 0,
                       "currentRevision": "db-1", "updateRevision": "db-2"}}))
        .is(Healthy, "statefulset has 1 ready pods"),
        case(format!("{T}/daemonset-ondelete.yaml"), "apps/v1", "DaemonSet", json!({
            "metadata": {"generation": 2}, "spec": {"updateStrategy": {"type": "OnDelete"}},
            "status": {"observedGeneration": 2, "desiredNumberScheduled": 3, "updatedNumberScheduled": 1,
                       "numberAvailable": 3}}))
        .is(Healthy, "daemon set 1 out of 3 new pods have been updated"),
        case(format!("{T}/pvc-bound.yaml"), "v1", "PersistentVolumeClaim", json!({"status": {"phase": "Bound"}}))
            .is(Healthy, ""),
        case(format!("{T}/pvc-pending.yaml"), "v1", "PersistentVolumeClaim", json!({"status": {"phase": "Pending"}}))
            .status(Progressing),
        case(format!("{T}/svc-clusterip.yaml"), "v1", "Service", json!({"spec": {"type": "ClusterIP"}}))
            .is(Healthy, ""),
        case(format!("{T}/svc-loadbalancer.yaml"), "v1", "Service",
             json!({"spec": {"type": "LoadBalancer"}, "status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}]}}}))
        .is(Healthy, ""),
        case(format!("{T}/svc-loadbalancer-unassigned.yaml"), "v1", "Service",
             json!({"spec": {"type": "LoadBalancer", "ports": [{"port": 443}]}, "status": {"loadBalancer": {}}}))
        .status(Progressing),
        case(format!("{T}/svc-loadbalancer-nonemptylist.yaml"), "v1", "Service",
             json!({"spec": {"type": "LoadBalancer"}, "status": {"loadBalancer": {"ingress": [{"hostname": "lb.example.com"}]}}}))
        .is(Healthy, ""),
        case(format!("{T}/ingress.yaml"), "networking.k8s.io/v1", "Ingress",
             json!({"status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}]}}}))
        .is(Healthy, ""),
        case(format!("{T}/ingress-unassigned.yaml"), "extensions/v1beta1", "Ingress", json!({"status": {"loadBalancer": {}}}))
            .status(Progressing),
        case(format!("{T}/ingress-nonemptylist.yaml"), "networking.k8s.io/v1", "Ingress",
             json!({"status": {"loadBalancer": {"ingress": [{"hostname": "lb.example.com"}]}}}))
        .is(Healthy, ""),
        case(format!("{T}/job-running.yaml"), "batch/v1", "Job",
             json!({"status": {"active": 1, "startTime": "2026-05-31T23:00:00Z"}}))
        .is(Progressing, ""),
        case(format!("{T}/job-failed.yaml"), "batch/v1", "Job", json!({"status": {"failed": 2, "conditions": [
            cond("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")]}}))
        .is(Degraded, "Job has reached the specified backoff limit"),
        case(format!("{T}/job-succeeded.yaml"), "batch/v1", "Job",
             json!({"status": {"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]}}))
        .is(Healthy, ""),
        case(format!("{T}/job-suspended.yaml"), "batch/v1", "Job", json!({"spec": {"suspend": true},
            "status": {"conditions": [cond("Suspended", "True", "JobSuspended", "Job suspended")]}}))
        .status(Suspended),
        case(format!("{T}/pod-pending.yaml"), "v1", "Pod",
             pod("Always", json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False"}]})))
        .is(Progressing, ""),
        case(format!("{T}/pod-running-not-ready.yaml"), "v1", "Pod", pod("Always", json!({"phase": "Running",
            "conditions": unready, "containerStatuses": [{"name": "main", "ready": false, "lastState": {},
                                                          "state": {"running": {}}}]})))
        .is(Progressing, ""),
        case(format!("{T}/pod-crashloop.yaml"), "v1", "Pod",
             pod("Always", waiting("CrashLoopBackOff", "back-off 5m0s restarting failed container=main")))
        .is(Degraded, "back-off 5m0s restarting failed container=main"),
        case(format!("{T}/pod-imagepullbackoff.yaml"), "v1", "Pod",
             pod("Always", waiting("ImagePullBackOff", "Back-off pulling image \"app:missing\"")))
        .is(Degraded, "Back-off pulling image \"app:missing\""),
        case(format!("{T}/pod-error.yaml"), "v1", "Pod", pod("Always", json!({"phase": "Running", "conditions": unready,
            "containerStatuses": [{"name": "main", "ready": false,
                                   "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}},
                                   "state": {"terminated": {"exitCode": 1, "reason": "Error"}}}]})))
        .is(Degraded, ""),
        case(format!("{T}/pod-running-restart-always.yaml"), "v1", "Pod",
             pod("Always", json!({"phase": "Running", "conditions": ready})))
        .is(Healthy, ""),
        case(format!("{T}/pod-running-restart-never.yaml"), "v1", "Pod",
             pod("Never", json!({"phase": "Running", "conditions": ready})))
        .is(Progressing, ""),
        case(format!("{T}/pod-running-restart-onfailure.yaml"), "v1", "Pod",
             pod("OnFailure", json!({"phase": "Running", "conditions": ready})))
        .is(Progressing, ""),
        case(format!("{T}/pod-failed.yaml"), "v1", "Pod", pod("Never", json!({"phase": "Failed", "conditions": unready,
            "containerStatuses": [{"name": "main", "ready": false, "lastState": {},
                                   "state": {"terminated": {"exitCode": 1, "reason": "Error"}}}]})))
        .is(Degraded, "container \"main\" failed with exit code 1"),
        case(format!("{T}/pod-succeeded.yaml"), "v1", "Pod", pod("Never", json!({"phase": "Succeeded"})))
            .is(Healthy, ""),
        case(format!("{T}/pod-deletion.yaml"), "v1", "Pod", json!({
            "metadata": {"deletionTimestamp": "2026-05-31T23:00:00Z"},
            "spec": {"restartPolicy": "Always"}, "status": {"phase": "Running", "conditions": ready}}))
        .is(Progressing, "Pending deletion"),
        case(format!("{T}/apiservice-v1-true.yaml"), "apiregistration.k8s.io/v1", "APIService",
             apiservice("True", "Passed", "all checks passed"))
        .is(Healthy, "Passed: all checks passed"),
        case(format!("{T}/apiservice-v1-false.yaml"), "apiregistration.k8s.io/v1", "APIService",
             apiservice("False", "FailedDiscoveryCheck", "failing or missing response"))
        .is(Progressing, "FailedDiscoveryCheck: failing or missing response"),
        case(format!("{T}/apiservice-v1beta1-true.yaml"), "apiregistration.k8s.io/v1beta1", "APIService",
             apiservice("True", "Passed", "all checks passed"))
        .is(Healthy, "Passed: all checks passed"),
        case(format!("{T}/apiservice-v1beta1-false.yaml"), "apiregistration.k8s.io/v1beta1", "APIService",
             apiservice("False", "MissingEndpoints", "endpoints for service/metrics-server in kube-system have no addresses"))
        .is(Progressing, "MissingEndpoints: endpoints for service/metrics-server in kube-system have no addresses"),
        case("health_test.go TestGetArgoWorkflowHealth (running)", "argoproj.io/v1alpha1", "Workflow",
             workflow(json!({"phase": "Running", "message": "This node is running"})))
        .is(Progressing, "This node is running"),
        case("health_test.go TestGetArgoWorkflowHealth (succeeded)", "argoproj.io/v1alpha1", "Workflow",
             workflow(json!({"phase": "Succeeded", "message": "This node is has succeeded"})))
        .is(Healthy, "This node is has succeeded"),
        case("health_test.go TestGetArgoWorkflowHealth (no status)", "argoproj.io/v1alpha1", "Workflow",
             json!({"spec": {"entrypoint": "main"}}))
        .is(Progressing, ""),
    ];
    // TestApplication: without a health customization an Application has no health.
    cases.push(
        case(
            format!("{T}/application-healthy.yaml"),
            "argoproj.io/v1alpha1",
            "Application",
            json!({
            "spec": {"destination": {"namespace": "shop"}},
            "status": {"health": {"status": "Healthy"}, "sync": {"status": "Synced"}}}),
        )
        .none(),
    );
    cases.push(
        case(
            format!("{T}/application-degraded.yaml"),
            "argoproj.io/v1alpha1",
            "Application",
            json!({
            "spec": {"destination": {"namespace": "shop"}},
            "status": {"health": {"status": "Degraded"}, "sync": {"status": "Synced"}}}),
        )
        .none(),
    );
    // TestCRD: gitops-engine has no built-in check for a Knative Service (Argo CD's bundled Knative script is
    // not among the kinds edgecheck follows, so it has no health here either).
    cases.push(
        case(
            format!("{T}/knative-service.yaml"),
            "serving.knative.dev/v1",
            "Service",
            json!({
            "spec": {"template": {"spec": {"containers": [{"image": "app"}]}}},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}),
        )
        .none(),
    );
    cases
}

/// One test per group of cases, and `all_cases` for the coverage test.
macro_rules! upstream_groups {
    ($($group:ident),* $(,)?) => {
        $(
            mod $group {
                #[test]
                fn matches_upstream() {
                    super::run(super::$group());
                }
            }
        )*
        fn all_cases() -> Vec<Case> {
            let mut cases = Vec::new();
            $(cases.extend($group());)*
            cases
        }
    };
}

upstream_groups!(
    contour_httpproxy,
    contour_extension_service,
    openshift_route_and_ingress_controller,
    gke_managed_certificate,
    secret_producers,
    cert_manager,
    external_secrets,
    gateway_api,
    application_set_and_cron_job,
    gitops_engine_hpa,
    gitops_engine_workloads,
);

/// Every upstream test input edgecheck follows (`resources/health/upstream.txt`, listed at the pinned tag
/// from the `health_test.yaml` files and `health_test.go`) has a case here, and every case names one of them
/// (or a branch of the Go code, `(go)`, or a `health_test.go` test that builds its object inline).
#[test]
fn every_upstream_test_has_a_case() {
    let list = std::fs::read_to_string(crate::test_support::resources_dir().join("health/upstream.txt")).unwrap();
    let header = list.lines().next().unwrap_or_default();
    assert!(header.contains(&format!("tag {ARGO_CD_VERSION} ")) && header.contains(ARGO_CD_COMMIT), "{header}");
    let listed: std::collections::BTreeSet<&str> =
        list.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    let cases = all_cases();
    let named: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.upstream.as_str()).collect();
    let missing: Vec<&&str> = listed.iter().filter(|l| !named.contains(**l)).collect();
    assert!(missing.is_empty(), "upstream tests without a case: {missing:#?}");
    let unknown: Vec<&&str> = named
        .iter()
        .filter(|n| !listed.contains(**n) && !n.starts_with("(go) ") && !n.starts_with("health_test.go "))
        .collect();
    assert!(unknown.is_empty(), "cases naming no upstream test: {unknown:#?}");
    assert!(listed.len() > 140, "{} upstream tests listed", listed.len());
}

/// Where edgecheck says more than Argo CD at the pinned release (docs/design.md, "Argo CD health"): the
/// status is Argo CD's, the message is edgecheck's where Argo CD's is empty.
#[test]
fn messages_edgecheck_adds() {
    let cases = [
        // gitops-engine 3.5.1 returns the (empty) failure message for a suspended Job.
        (
            "batch/v1",
            "Job",
            json!({"status": {"conditions": [{"type": "Suspended", "status": "True"}]}}),
            Suspended,
            "Job is suspended",
        ),
        (
            "v1",
            "Service",
            json!({"spec": {"type": "LoadBalancer"}, "status": {"loadBalancer": {}}}),
            Progressing,
            "no LoadBalancer address in status.loadBalancer.ingress",
        ),
        (
            "networking.k8s.io/v1",
            "Ingress",
            json!({"status": {"loadBalancer": {}}}),
            Progressing,
            "no LoadBalancer address in status.loadBalancer.ingress",
        ),
        (
            "v1",
            "PersistentVolumeClaim",
            json!({"status": {"phase": "Lost"}}),
            Degraded,
            "PersistentVolumeClaim phase Lost",
        ),
        // A script that returns a condition's missing message: the deciding condition instead.
        (
            "bitnami.com/v1alpha1",
            "SealedSecret",
            json!({"status": {"conditions": [{"type": "Synced", "status": "False", "reason": "ErrUnsealFailed"}]}}),
            Degraded,
            "Synced=False ErrUnsealFailed",
        ),
        (
            "projectcontour.io/v1",
            "HTTPProxy",
            json!({"metadata": {"generation": 3}, "spec": {"virtualhost": {"fqdn": "a.example.com"}},
                "status": {"conditions": [{"type": "Valid", "status": "False", "reason": "ErrorPresent",
                                           "observedGeneration": 3}]}}),
            Degraded,
            "Valid=False ErrorPresent",
        ),
        (
            "projectcontour.io/v1",
            "HTTPProxy",
            json!({"spec": {"virtualhost": {"fqdn": "a.example.com"}}, "status": {"currentStatus": "NotReconciled"}}),
            Progressing,
            "currentStatus NotReconciled",
        ),
        (
            "operator.openshift.io/v1",
            "IngressController",
            json!({"status": {"conditions": [{"type": "Progressing", "status": "True"}]}}),
            Progressing,
            "Progressing=True",
        ),
    ];
    for (api, kind, body, status, message) in cases {
        let h = assess_live(api, kind, &body).unwrap_or_else(|| panic!("{kind}: no health"));
        assert_eq!((h.status, &*h.message), (status, message), "{kind} {body}");
    }
}

/// Where the bundled script itself fails, Argo CD shows Unknown with the Lua error; so does edgecheck.
#[test]
fn script_failures_are_unknown() {
    let cases = [
        ("route.openshift.io/v1", "Route", json!({"status": {"ingress": [{"host": "a.apps.example.com"}]}})),
        ("kubernetes-client.io/v1", "ExternalSecret", json!({"status": {"lastSync": "2026-05-31T23:00:00Z"}})),
        ("batch/v1", "CronJob", json!({"status": {}})),
        (
            "projectcontour.io/v1",
            "HTTPProxy",
            json!({"status": {"conditions": [{"type": "Valid", "status": "False"}]}}),
        ),
    ];
    for (api, kind, body) in cases {
        let h = assess_live(api, kind, &body).unwrap_or_else(|| panic!("{kind}: no health"));
        assert_eq!(h.status, Unknown, "{kind}: {h:?}");
        assert!(h.message.starts_with("attempt to") || h.message.starts_with("bad argument"), "{kind}: {h:?}");
    }
}

/// Health messages quote controller status text: URL user-info in them is masked, for the new kinds too.
#[test]
fn credentials_in_new_kinds_messages_are_masked() {
    let url = "https://deploy:PASSWORD@vault.example.internal/v1/shop";
    let cases = [
        (
            "bitnami.com/v1alpha1",
            "SealedSecret",
            json!({"status": {"conditions": [{"type": "Synced", "status": "False",
                                           "message": format!("cannot fetch certificate from {url}")}]}}),
        ),
        (
            "kubernetes-client.io/v1",
            "ExternalSecret",
            json!({"status": {"status": format!("ERROR, fetching {url}: 403")}}),
        ),
        (
            "operator.openshift.io/v1",
            "IngressController",
            json!({"status": {"conditions": [{"type": "Degraded", "status": "True", "reason": "CanaryFailed",
                                           "message": format!("canary probe of {url} failed")}]}}),
        ),
        (
            "projectcontour.io/v1",
            "HTTPProxy",
            json!({"metadata": {"generation": 1}, "spec": {"virtualhost": {"fqdn": "a.example.com"}},
                "status": {"description": format!("external auth {url} unreachable"),
                           "conditions": [{"type": "Valid", "status": "False", "observedGeneration": 1}]}}),
        ),
    ];
    for (api, kind, body) in cases {
        let h = assess_live(api, kind, &body).unwrap_or_else(|| panic!("{kind}: no health"));
        assert_eq!(h.status, Degraded, "{kind}: {h:?}");
        assert!(!h.message.contains("PASSWORD"), "{kind}: {}", h.message);
        assert!(h.message.contains("https://deploy:***@vault.example.internal/v1/shop"), "{kind}: {}", h.message);
    }
}

/// The new kinds reach `objects[]` with their health, kinds edgecheck otherwise does not model included,
/// and the message there is masked.
#[test]
fn new_kinds_reach_object_summaries() {
    let text = r#"# options: live
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: web, namespace: shop, uid: "1", generation: 1}
spec: {virtualhost: {fqdn: shop.example.com}}
status:
  description: "external auth https://deploy:PASSWORD@authz.example.internal/check unreachable"
  conditions: [{type: Valid, status: "False", reason: ErrorPresent, observedGeneration: 1}]
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: web, namespace: shop, uid: "1"}
spec: {host: shop.apps.example.com, to: {kind: Service, name: web}}
status: {ingress: [{routerName: default, conditions: [{type: Admitted, status: "True"}]}]}
---
apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata: {name: db, namespace: shop, uid: "1"}
spec: {encryptedData: {password: AgBy3i4OJSWK}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: plain, namespace: shop, uid: "1"}
"#;
    let (graph, options) = graph_from_text("objects.yaml", text);
    let analysis = crate::analyze(
        &graph,
        &options,
        crate::test_support::NOW,
        &crate::Selection::default(),
        &[],
        &[],
        crate::diagnose::Diagnose::Nothing,
    );
    let entries = analysis.object_entries(&graph);
    let health = |kind: &str| {
        let e = entries.iter().find(|e| e.object.kind == kind).unwrap_or_else(|| panic!("{kind} not in objects[]"));
        e.health.clone()
    };
    let proxy = health("HTTPProxy").expect("HTTPProxy health");
    assert_eq!(proxy.status, Degraded);
    assert_eq!(proxy.message, "external auth https://deploy:***@authz.example.internal/check unreachable");
    assert_eq!(
        health("Route").map(|h| (h.status, h.message.to_string())),
        Some((Healthy, "Route is healthy".to_string()))
    );
    assert_eq!(health("SealedSecret").map(|h| h.status), Some(Progressing));
    // A ConfigMap is listed (a kind edgecheck knows) without health.
    assert_eq!(health("ConfigMap"), None);
}
