use edgecheck_core::kind::K;
use edgecheck_core::views::ExternalSecret;
use edgecheck_core::{EdgeKind, Findings, Layer, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An `ExternalSecret` whose `spec.secretStoreRef` names a SecretStore (in its namespace) or
    /// ClusterSecretStore that is not in the inventory. Following the absence rule, this is an error on a
    /// full cluster dump, a warning when the inventory holds other stores of that kind (in that namespace,
    /// for SecretStores), and not reported otherwise (the store may be installed by other means).
    ///
    /// ## Why it matters
    /// The controller reports `SecretSyncedError`/`InvalidStoreRef` and never writes the target Secret, so
    /// every pod reading it fails to start.
    ///
    /// ## Example
    /// `secretStoreRef: {name: vault}` (kind defaults to `SecretStore`) while the store is a
    /// `ClusterSecretStore` named `vault`.
    ///
    /// ## How to fix
    /// Name an existing store, and set `kind: ClusterSecretStore` when the store is cluster-wide.
    pub(crate) struct ExternalSecretStoreMissing {
        code: "SEC003", name: "external-secret-store-missing", layer: Layer::Secrets, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl ExternalSecretStoreMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, obj, es) in cx.graph.each::<ExternalSecret>() {
            for e in cx.graph.edges_from_kind(id, EdgeKind::SecretStore) {
                let Target::Missing(r) = &e.to else { continue };
                let cluster = r.kind == "ClusterSecretStore";
                let k = if cluster { K::CLUSTER_SECRET_STORE } else { K::SECRET_STORE };
                let Some(sev) = cx.absence(k, obj.namespace.as_deref()) else { continue };
                let mut f = out
                    .at(obj, &e.field)
                    .severity(sev)
                    .message(format!(
                        "{} reads from {}, which does not exist; the target Secret is never written",
                        obj.to_ref(),
                        r
                    ))
                    .evidence(format!(
                        "secretStoreRef: kind {}, name {}",
                        es.spec.secret_store_ref.kind.as_deref().unwrap_or("SecretStore (default)"),
                        es.spec.secret_store_ref.name
                    ));
                // The other kind with that name: a wrong or missing `kind`.
                let other = if cluster {
                    cx.graph.find(K::SECRET_STORE, obj.namespace.as_deref(), &r.name)
                } else {
                    cx.graph.find(K::CLUSTER_SECRET_STORE, None, &r.name)
                };
                let fix = match other {
                    Some(o) => {
                        let oo = cx.graph.obj(o);
                        f = f.evidence(format!("{} exists", oo.to_ref())).related(oo.to_ref());
                        format!("set secretStoreRef.kind to {}", oo.kind.kind)
                    }
                    None => "name an existing SecretStore or ClusterSecretStore (and its kind)".to_string(),
                };
                f.fix(fix).emit();
            }
        }
    }
}
