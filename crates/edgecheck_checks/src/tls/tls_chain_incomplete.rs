use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Secret served as a TLS certificate whose `tls.crt` holds a leaf that is not self-signed and
    /// whose issuer is not in the bundle: the intermediate certificate is missing. A Secret with a
    /// `ca.crt` key (cert-manager's CA and Vault issuers, private PKIs) is not judged: its issuer is a
    /// private root handed to clients separately.
    ///
    /// ## Why it matters
    /// Servers send what `tls.crt` holds. Browsers on desktops often repair the chain from the AIA URL
    /// or a cache, but iOS/ATS, Android apps, curl, Go and Java clients fail with `unable to get local
    /// issuer certificate`. The fault is intermittent by client, hence a warning.
    ///
    /// ## Example
    /// Secret `shop/web-tls` whose `tls.crt` holds only the leaf issued by `CN=R11, O=Let's Encrypt`.
    ///
    /// ## How to fix
    /// Put the full chain in `tls.crt`: the leaf first, then each intermediate (the file your CA calls
    /// `fullchain.pem`); the missing issuer can be downloaded from the leaf's AIA caIssuers URL.
    pub(crate) struct TlsChainIncomplete {
        code: "TLS010", name: "tls-chain-incomplete", layer: Layer::Tls, severity: Severity::Warning,
    }
}

impl TlsChainIncomplete {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, users) in super::helpers::served_secrets(cx.graph) {
            let secret = cx.graph.obj(id);
            let Some(info) = secret.secret.as_deref() else { continue };
            let Some(leaf) = info.leaf() else { continue };
            if leaf.self_signed || info.has_key("ca.crt") || info.certs.iter().skip(1).any(|c| leaf.issued_by(c)) {
                continue;
            }
            let user_refs: Vec<_> = users.iter().map(|u| u.from.to_ref()).collect();
            let mut b = out
                .at(secret, &super::helpers::secret_key_path(secret, "tls.crt"))
                .message(format!(
                    "tls.crt in {} lacks the issuer of its leaf ({}); clients that do not fetch missing \
                     intermediates (iOS, curl, Go, Java) fail to verify the chain",
                    secret.to_ref(),
                    leaf.issuer
                ))
                .evidence(format!("tls.crt leaf: {} issued by {}", leaf.subject, leaf.issuer))
                .evidence(format!("tls.crt certificates: {}", info.certs.len()));
            if let Some(aki) = &leaf.authority_key_id {
                b = b.evidence(format!("leaf authority key id: {aki}"));
            }
            for url in &leaf.ca_issuers {
                b = b.evidence(format!("issuer available at (AIA caIssuers): {url}"));
            }
            b.related_all(user_refs)
                .fix("put the full chain in tls.crt: the leaf, then its intermediate(s) (fullchain.pem)")
                .emit();
        }
    }
}
