use edgecheck_core::cert::format_time;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Secret served as a TLS certificate whose leaf certificate is still valid but expires within
    /// the warning window (`expiry-warning-days`, 14 days by default).
    ///
    /// ## Why it matters
    /// Nothing is broken yet, but it will be on the expiry date unless the certificate is renewed.
    /// cert-manager renews at two thirds of the lifetime by default: a certificate this close to its
    /// end usually means renewal is failing, or the certificate is managed by hand.
    ///
    /// ## Example
    /// Secret `shop/web-tls` served by Ingress `shop/web` holds a certificate with notAfter
    /// 2026-06-08, seven days from now.
    ///
    /// ## How to fix
    /// Renew the certificate now; with cert-manager, look at the Certificate's conditions and its
    /// latest CertificateRequest for why renewal has not happened.
    pub(crate) struct TlsCertExpiring {
        code: "TLS005", name: "tls-cert-expiring", layer: Layer::Tls, severity: Severity::Warning,
    }
}

impl TlsCertExpiring {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let window = cx.options.expiry_warning_days.max(0) * 86_400;
        for (id, users) in super::helpers::served_secrets(cx.graph) {
            let secret = cx.graph.obj(id);
            let Some(leaf) = secret.secret.as_deref().and_then(|i| i.leaf()) else { continue };
            if leaf.not_after < cx.now || leaf.not_before > cx.now || leaf.not_after - cx.now > window {
                continue;
            }
            let days = (leaf.not_after - cx.now) / 86_400;
            let user_refs: Vec<_> = users.iter().map(|u| u.from.to_ref()).collect();
            out.at(secret, &super::helpers::secret_key_path(secret, "tls.crt"))
                .message(format!(
                    "certificate in {} expires on {} (in {days} days); after that clients reject the handshake",
                    secret.to_ref(),
                    format_time(leaf.not_after)
                ))
                .evidence(format!("tls.crt subject: {}", leaf.subject))
                .evidence(format!("tls.crt notAfter: {}", format_time(leaf.not_after)))
                .evidence(format!("warning window: {} days", cx.options.expiry_warning_days))
                .related_all(user_refs)
                .fix("renew the certificate before it expires (cert-manager: check why renewal has not happened)")
                .emit();
        }
    }
}
