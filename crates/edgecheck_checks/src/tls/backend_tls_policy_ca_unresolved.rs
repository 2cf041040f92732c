use edgecheck_core::kind::K;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, Check as _, CheckContext};
use crate::model::condition::ConditionType;

declare_check! {
    /// ## What it checks
    /// A BackendTLSPolicy whose `validation.caCertificateRefs` the computed model cannot resolve
    /// (`ResolvedRefs=False`): `InvalidKind` (not a ConfigMap or Secret) or `InvalidCACertificateRef`
    /// (the ConfigMap is missing under the absence rule: a full dump, or other ConfigMaps of that
    /// namespace in the inventory).
    ///
    /// ## Why it matters
    /// The policy is not accepted (`NoValidCACertificate`): the Gateway cannot verify the backend's
    /// certificate and the connection to the backend fails, or falls back to plaintext.
    ///
    /// ## Example
    /// `caCertificateRefs: [{group: "", kind: ConfigMap, name: backend-ca}]` and no ConfigMap
    /// `backend-ca` in the policy's namespace.
    ///
    /// ## How to fix
    /// Create the ConfigMap with the CA bundle (`ca.crt`), or use `wellKnownCACertificates: System`.
    pub(crate) struct BackendTlsPolicyCaUnresolved {
        code: "TLS092", name: "backend-tls-policy-ca-unresolved", layer: Layer::Tls, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl BackendTlsPolicyCaUnresolved {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for f in cx.model.gateway.faults(cx.graph) {
            if cx.graph.obj(f.id).is(K::BACKEND_TLS_POLICY) && f.cond.condition_type == ConditionType::ResolvedRefs {
                crate::gateway_api::predicted(cx, out, &f, self.meta().severity)
                    .fix("create the CA object (ConfigMap, Secret or ClusterTrustBundle) named in caCertificateRefs, or fix the reference")
                    .emit();
            }
        }
    }
}
