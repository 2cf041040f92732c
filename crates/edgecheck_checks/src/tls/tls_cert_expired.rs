use edgecheck_core::cert::format_time;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Secret served as a TLS certificate whose leaf certificate is expired (`notAfter` in the past)
    /// or not yet valid (`notBefore` in the future).
    ///
    /// ## Why it matters
    /// Clients refuse the handshake (`x509: certificate has expired or is not yet valid`,
    /// `NET::ERR_CERT_DATE_INVALID`): the host is unreachable over HTTPS.
    ///
    /// ## Example
    /// Secret `shop/web-tls`, served by Ingress `shop/web`, holds a certificate whose notAfter was
    /// 2026-05-02.
    ///
    /// ## How to fix
    /// Renew the certificate (for cert-manager: check why the Certificate did not renew, e.g. with
    /// `cmctl status certificate`), or fix the clock of whoever issued a future-dated certificate.
    pub(crate) struct TlsCertExpired {
        code: "TLS004", name: "tls-cert-expired", layer: Layer::Tls, severity: Severity::Error,
    }
}

impl TlsCertExpired {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, users) in super::helpers::served_secrets(cx.graph) {
            let secret = cx.graph.obj(id);
            let Some(leaf) = secret.secret.as_deref().and_then(|i| i.leaf()) else { continue };
            let (problem, fix) = if leaf.not_after < cx.now {
                (
                    format!("expired on {}", format_time(leaf.not_after)),
                    "renew the certificate (cert-manager: find why the Certificate did not renew)",
                )
            } else if leaf.not_before > cx.now {
                (
                    format!("is not valid before {}", format_time(leaf.not_before)),
                    "serve a certificate valid now; check the clock of the issuer that dated it in the future",
                )
            } else {
                continue;
            };
            let user_refs: Vec<_> = users.iter().map(|u| u.from.to_ref()).collect();
            let by: Vec<String> = user_refs.iter().map(ToString::to_string).collect();
            out.at(secret, &super::helpers::secret_key_path(secret, "tls.crt"))
                .message(format!(
                    "certificate in {} {problem}; clients of {} reject the handshake",
                    secret.to_ref(),
                    by.join(", ")
                ))
                .evidence(format!("tls.crt subject: {}", leaf.subject))
                .evidence(format!("tls.crt notBefore: {}", format_time(leaf.not_before)))
                .evidence(format!("tls.crt notAfter: {}", format_time(leaf.not_after)))
                .evidence(format!("now: {}", format_time(cx.now)))
                .related_all(user_refs)
                .fix(fix)
                .emit();
        }
    }
}
