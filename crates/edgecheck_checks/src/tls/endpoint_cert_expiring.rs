use edgecheck_core::observation::HandshakeOutcome;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::{date, report};

declare_check! {
    /// ## What it checks
    /// A served certificate that verifies today but expires within the warning window
    /// (`expiry-warning-days`, 14 days by default: the same window as TLS005 for the Secret's certificate).
    ///
    /// ## Why it matters
    /// cert-manager renews 30 days before expiry by default (Let's Encrypt: at two thirds of the
    /// lifetime); a certificate this close to expiry means renewal is failing or it is managed by hand.
    ///
    /// ## Example
    /// `CN=shop.example.com expires on 2026-06-08T00:00:00Z (7 days)`.
    ///
    /// ## How to fix
    /// Look at the Certificate's and CertificateRequest's status and the ACME challenge; renew now.
    pub(crate) struct EndpointCertExpiring {
        code: "TLS102", name: "endpoint-cert-expiring", layer: Layer::Tls, severity: Severity::Warning,
    }
}

impl EndpointCertExpiring {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for o in cx.observations {
            let Some(t) = &o.tls else { continue };
            if t.outcome != HandshakeOutcome::Completed || !t.verified {
                continue;
            }
            let Some(c) = t.chain.iter().filter(|c| c.not_after >= cx.now).min_by_key(|c| c.not_after) else {
                continue;
            };
            let days = (c.not_after - cx.now) / 86_400;
            if c.not_after - cx.now >= cx.options.expiry_warning_days.max(0) * 86_400 {
                continue;
            }
            report(out, o)
                .message(format!("the certificate expires in {days} days"))
                .evidence(format!("{} expires on {} ({days} days)", c.subject, date(c.not_after)))
                .evidence(format!("warning window: {} days", cx.options.expiry_warning_days))
                .fix("check why renewal fails (cert-manager Certificate status, ACME challenge) and renew")
                .emit();
        }
    }
}
