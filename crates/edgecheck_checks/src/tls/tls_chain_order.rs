use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Secret served as a TLS certificate whose `tls.crt` bundle is out of order: the first
    /// certificate is a CA while a leaf follows, or a certificate is not followed by its issuer
    /// although the issuer is elsewhere in the bundle.
    ///
    /// ## Why it matters
    /// Servers present the first certificate as theirs: with a CA first, clients see the wrong
    /// certificate (and the key no longer matches). An intermediate out of place is tolerated by many
    /// clients and rejected by strict ones (older OpenSSL, some Java and embedded clients). TLS 1.2
    /// (RFC 5246) requires the order; TLS 1.3 only recommends it, hence a warning.
    ///
    /// ## Example
    /// `tls.crt` holding the intermediate, then the leaf (`cat chain.pem cert.pem`).
    ///
    /// ## How to fix
    /// Order `tls.crt` leaf first, then the certificate that signed it, and so on towards the root
    /// (`cat cert.pem chain.pem`).
    pub(crate) struct TlsChainOrder {
        code: "TLS011", name: "tls-chain-order", layer: Layer::Tls, severity: Severity::Warning,
    }
}

impl TlsChainOrder {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, users) in super::helpers::served_secrets(cx.graph) {
            let secret = cx.graph.obj(id);
            let Some(info) = secret.secret.as_deref() else { continue };
            let certs = &info.certs;
            if certs.len() < 2 {
                continue;
            }
            let mut problem = None;
            if certs[0].is_ca {
                if let Some(pos) = certs.iter().position(|c| !c.is_ca) {
                    problem = Some(format!(
                        "certificate 1 ({}) is a CA and the leaf ({}) is certificate {}",
                        certs[0].subject,
                        certs[pos].subject,
                        pos + 1
                    ));
                }
            }
            if problem.is_none() {
                for i in 0..certs.len() - 1 {
                    if certs[i].self_signed || certs[i].issued_by(&certs[i + 1]) {
                        continue;
                    }
                    if let Some(j) = (0..certs.len()).find(|&j| j != i && certs[i].issued_by(&certs[j])) {
                        problem = Some(format!(
                            "certificate {} ({}) is followed by {}, but its issuer is certificate {} ({})",
                            i + 1,
                            certs[i].subject,
                            certs[i + 1].subject,
                            j + 1,
                            certs[j].subject
                        ));
                        break;
                    }
                }
            }
            let Some(problem) = problem else { continue };
            let order: Vec<&str> = certs.iter().map(|c| c.subject.as_str()).collect();
            let user_refs: Vec<_> = users.iter().map(|u| u.from.to_ref()).collect();
            out.at(secret, &super::helpers::secret_key_path(secret, "tls.crt"))
                .message(format!(
                    "tls.crt in {} is out of order: {problem}; strict clients reject the chain",
                    secret.to_ref()
                ))
                .evidence(format!("tls.crt order: {}", order.join(" | ")))
                .related_all(user_refs)
                .fix("order tls.crt leaf first, then each issuer in turn (cat cert.pem chain.pem)")
                .emit();
        }
    }
}
