use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Secret served as a TLS certificate whose leaf or an intermediate in `tls.crt` has a weak key
    /// (RSA under 2048 bits, EC under 256 bits) or a weak signature (SHA-1, MD5). A self-signed root
    /// in the bundle is not judged by its signature: clients trust it by its key, not its signature.
    ///
    /// ## Why it matters
    /// Current clients refuse such certificates: browsers and Go reject SHA-1 signatures, rustls and
    /// OpenSSL at security level 2 refuse RSA keys under 2048 bits. The handshake fails.
    ///
    /// ## Example
    /// Secret `shop/legacy-tls` holding an RSA-1024 certificate from an old internal CA.
    ///
    /// ## How to fix
    /// Re-issue the certificate with an RSA key of at least 2048 bits or an ECDSA P-256 key, signed
    /// with SHA-256 (cert-manager: `privateKey: {algorithm: ECDSA, size: 256}`).
    pub(crate) struct TlsCertWeak {
        code: "TLS012", name: "tls-cert-weak", layer: Layer::Tls, severity: Severity::Error,
    }
}

/// Why `cert` is weak, if it is.
pub(super) fn weakness(cert: &edgecheck_core::cert::CertInfo) -> Vec<String> {
    let mut out: Vec<String> = cert.weak_key().into_iter().collect();
    if !cert.self_signed {
        out.extend(cert.weak_signature());
    }
    out
}

impl TlsCertWeak {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, users) in super::helpers::served_secrets(cx.graph) {
            let secret = cx.graph.obj(id);
            let Some(info) = secret.secret.as_deref() else { continue };
            let weak: Vec<String> = info
                .certs
                .iter()
                .enumerate()
                .flat_map(|(i, c)| {
                    let role = if i == 0 { "leaf" } else { "chain" };
                    weakness(c).into_iter().map(move |w| format!("{role} {}: {w}", c.subject))
                })
                .collect();
            if weak.is_empty() {
                continue;
            }
            let user_refs: Vec<_> = users.iter().map(|u| u.from.to_ref()).collect();
            let mut b = out
                .at(secret, &super::helpers::secret_key_path(secret, "tls.crt"))
                .message(format!(
                    "tls.crt in {} uses weak cryptography ({}); current clients refuse the certificate",
                    secret.to_ref(),
                    weak.join("; ")
                ))
                .related_all(user_refs);
            for w in &weak {
                b = b.evidence(w.clone());
            }
            b.fix("re-issue with an RSA key of at least 2048 bits or ECDSA P-256, signed with SHA-256").emit();
        }
    }
}

#[cfg(test)]
mod tests {
    use edgecheck_core::cert::CertInfo;

    use super::weakness;

    #[test]
    fn sha1_and_small_keys() {
        let c = CertInfo {
            key_algorithm: "RSA".into(),
            key_bits: 2048,
            signature_algorithm: "sha1WithRSAEncryption".into(),
            ..CertInfo::default()
        };
        assert_eq!(weakness(&c), vec!["signed with sha1WithRSAEncryption"]);
        let root = CertInfo { self_signed: true, ..c.clone() };
        assert!(weakness(&root).is_empty());
        let small = CertInfo { key_bits: 1024, signature_algorithm: "sha256WithRSAEncryption".into(), ..c };
        assert_eq!(weakness(&small), vec!["RSA key of 1024 bits (at least 2048 needed)"]);
    }
}
