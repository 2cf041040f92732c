use edgecheck_core::cert::parse_go_duration;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A cert-manager Certificate whose `spec.renewBefore` is not shorter than its `spec.duration`
    /// (Go durations such as `2160h`, `720h0m0s`; `duration` defaults to `2160h`, 90 days).
    ///
    /// ## Why it matters
    /// cert-manager would renew the certificate as soon as it is issued, forever: the webhook rejects
    /// the Certificate in recent versions (`spec.renewBefore: Invalid value: ... must be less than
    /// certificate duration`), older versions loop and hit the ACME rate limits (Let's Encrypt: 5
    /// duplicate certificates a week), after which renewal fails and the certificate expires.
    ///
    /// ## Example
    /// `duration: 720h` (30 days) with `renewBefore: 720h`, or `renewBefore: 2160h` with the default
    /// duration.
    ///
    /// ## How to fix
    /// Make `renewBefore` clearly shorter than `duration` (cert-manager's default is a third of it),
    /// or drop it.
    pub(crate) struct CertRenewBeforeTooLong {
        code: "TLS014", name: "cert-renew-before-too-long", layer: Layer::Tls, severity: Severity::Error,
    }
}

/// cert-manager's default `duration`.
const DEFAULT_DURATION: i64 = 2160 * 3600;

impl CertRenewBeforeTooLong {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (_, obj, cert) in cx.graph.each::<edgecheck_core::views::Certificate>() {
            let Some(rb_text) = cert.spec.renew_before.as_deref() else { continue };
            let Some(renew_before) = parse_go_duration(rb_text) else { continue };
            let (duration, duration_text) = match cert.spec.duration.as_deref() {
                Some(d) => match parse_go_duration(d) {
                    Some(v) => (v, d.to_string()),
                    None => continue,
                },
                None => (DEFAULT_DURATION, "2160h (default)".to_string()),
            };
            if renew_before < duration {
                continue;
            }
            out.at(obj, "spec.renewBefore")
                .message(format!(
                    "{} renews {rb_text} before expiry but lives only {duration_text}; cert-manager rejects it or \
                     re-issues it continuously until rate limits stop renewal",
                    obj.to_ref()
                ))
                .evidence(format!("spec.renewBefore: {rb_text}"))
                .evidence(format!("spec.duration: {duration_text}"))
                .fix(format!("set renewBefore well below the duration (e.g. {}h) or remove it", duration / 3 / 3600))
                .emit();
        }
    }
}
