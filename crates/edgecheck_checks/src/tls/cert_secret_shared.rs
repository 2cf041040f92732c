use edgecheck_core::{EdgeKind, Findings, Layer, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A cert-manager Certificate whose `spec.secretName` is a Secret that holds other data: a Secret
    /// in the inputs with keys besides `tls.crt`, `tls.key` and `ca.crt`, or Argo CD's
    /// `argocd-secret` (which holds the admin password, the server signing key and the webhook
    /// secrets).
    ///
    /// ## Why it matters
    /// cert-manager owns the Secret it writes: it overwrites `tls.crt`/`tls.key`, may set an owner
    /// reference and delete the Secret with the Certificate, and fights any other writer. For
    /// `argocd-secret` that breaks logins (the session signing key and admin password go with it).
    ///
    /// ## Example
    /// Certificate `argocd/argocd-server` with `secretName: argocd-secret`.
    ///
    /// ## How to fix
    /// Give the Certificate a dedicated Secret; Argo CD reads its server certificate from
    /// `argocd-server-tls`, which exists for this purpose.
    pub(crate) struct CertSecretShared {
        code: "TLS016", name: "cert-secret-shared", layer: Layer::Tls, severity: Severity::Error,
    }
}

const TLS_KEYS: &[&str] = &["tls.crt", "tls.key", "ca.crt"];

impl CertSecretShared {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, obj, cert) in cx.graph.each::<edgecheck_core::views::Certificate>() {
            let Some(e) = cx.graph.edges_from_kind(id, EdgeKind::CertificateSecret).next() else { continue };
            let other: Vec<String> = match &e.to {
                Target::Found(sid) => cx
                    .graph
                    .obj(*sid)
                    .secret
                    .as_deref()
                    .map(|i| {
                        i.lengths.keys().filter(|k| !TLS_KEYS.contains(&k.as_str())).map(|k| k.to_string()).collect()
                    })
                    .unwrap_or_default(),
                Target::Missing(_) => Vec::new(),
            };
            let argocd = cert.spec.secret_name == "argocd-secret";
            if other.is_empty() && !argocd {
                continue;
            }
            let mut b = out
                .at(obj, "spec.secretName")
                .message(format!(
                    "{} writes its certificate into Secret `{}`, which holds other data; cert-manager takes the \
                     Secret over and {}",
                    obj.to_ref(),
                    cert.spec.secret_name,
                    if argocd {
                        "Argo CD loses its admin password and session key (logins fail)"
                    } else {
                        "its other keys' consumers break"
                    }
                ))
                .evidence(format!("spec.secretName: {}", cert.spec.secret_name));
            if !other.is_empty() {
                b = b.evidence(format!("other keys in the Secret: {}", other.join(", ")));
            }
            if argocd {
                b = b.evidence("argocd-secret holds admin.password, server.secretkey and webhook secrets");
            }
            b = b.related(match &e.to {
                Target::Found(sid) => cx.graph.obj(*sid).to_ref(),
                Target::Missing(r) => (**r).clone(),
            });
            b.fix(if argocd {
                "set secretName: argocd-server-tls (Argo CD reads its server certificate from it)".to_string()
            } else {
                format!("give the Certificate a dedicated Secret (e.g. {}-tls)", obj.name)
            })
            .emit();
        }
    }
}
