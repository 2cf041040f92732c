use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Secret served as a TLS certificate whose `tls.key` is not the private key of the leaf
    /// certificate in `tls.crt` (compared by public key; nothing secret is printed), or whose key is
    /// encrypted.
    ///
    /// ## Why it matters
    /// The controller cannot use the pair: ingress-nginx logs `tls: private key does not match public
    /// key` and serves its fake certificate, Go-based proxies (Traefik, Envoy Gateway's control plane)
    /// reject the pair; an encrypted key cannot be loaded at all.
    ///
    /// ## Example
    /// Secret `shop/web-tls` with the renewed certificate in `tls.crt` but last year's key in
    /// `tls.key`.
    ///
    /// ## How to fix
    /// Put the key that was used to request the certificate in `tls.key` (unencrypted PEM), or
    /// re-issue the certificate for the key in the Secret.
    pub(crate) struct TlsKeyMismatch {
        code: "TLS006", name: "tls-key-mismatch", layer: Layer::Tls, severity: Severity::Error,
    }
}

impl TlsKeyMismatch {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, users) in super::helpers::served_secrets(cx.graph) {
            let secret = cx.graph.obj(id);
            let Some(info) = secret.secret.as_deref() else { continue };
            let (Some(leaf), Some(key)) = (info.leaf(), info.key.as_ref()) else { continue };
            let problem = if key.encrypted {
                "tls.key is an encrypted private key, which controllers cannot load".to_string()
            } else if info.key_matches() == Some(false) {
                "tls.key is not the private key of the certificate in tls.crt".to_string()
            } else {
                continue;
            };
            let user_refs: Vec<_> = users.iter().map(|u| u.from.to_ref()).collect();
            out.at(secret, &super::helpers::secret_key_path(secret, "tls.key"))
                .message(format!(
                    "in {}, {problem}; the controller rejects the pair and serves no or a default certificate",
                    secret.to_ref()
                ))
                .evidence(format!("tls.crt leaf: {} ({} {} bits)", leaf.subject, leaf.key_algorithm, leaf.key_bits))
                .evidence(format!(
                    "tls.key: {} {} bits{}",
                    key.algorithm,
                    key.bits,
                    if key.encrypted { ", encrypted" } else { "" }
                ))
                .related_all(user_refs)
                .fix("store the certificate's own private key, unencrypted, in tls.key (or re-issue the certificate)")
                .emit();
        }
    }
}
