use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::{date, report};

declare_check! {
    /// ## What it checks
    /// A probed endpoint whose served leaf certificate is not the one in the TLS Secret the objects
    /// give that host (same path: the claiming Ingress, Gateway listener or IngressRoute). When the
    /// Secret's certificate is newer than the served one, the Secret was renewed and the server
    /// never reloaded it; otherwise the server presents some other certificate.
    ///
    /// ## Why it matters
    /// cert-manager (or whoever renews) did its job, `kubectl get secret` looks right, and clients
    /// still get the old certificate until it expires: then the site breaks with an expired
    /// certificate although a valid one sits in the cluster. A different certificate altogether
    /// usually means the controller's default certificate (the Secret could not be read) or another
    /// object claiming the host.
    ///
    /// ## Example
    /// Secret `shop/shop-tls` holds a certificate valid from 2026-05-31 (sha256 `3F:...`); the server
    /// at `shop.example.com:443` serves one valid from 2026-04-01 (sha256 `A1:...`).
    ///
    /// ## How to fix
    /// Restart or reload the server that terminates TLS (the ingress controller, the Gateway's
    /// proxy, the pod itself for passthrough), or run a reloader that restarts on Secret changes.
    /// For a different certificate, check the controller's logs for why it cannot use the Secret.
    pub(crate) struct TlsServedCertStale {
        code: "TLS104", name: "tls-served-cert-stale", layer: Layer::Tls, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl TlsServedCertStale {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for s in cx.serving {
            if s.passthrough {
                continue;
            }
            let o = &cx.observations[s.observation];
            let Some(served) = o.tls.as_ref().and_then(|t| t.chain.first()) else { continue };
            if served.sha256.is_empty() {
                continue;
            }
            for &sid in &s.secrets {
                let secret = cx.graph.obj(sid);
                let Some(leaf) = secret.secret.as_deref().and_then(|i| i.leaf()) else { continue };
                if leaf.sha256.to_string().eq_ignore_ascii_case(&served.sha256) {
                    continue;
                }
                let renewed = leaf.not_before > served.not_before;
                let (severity, message, fix) = if renewed {
                    (
                        Severity::Error,
                        format!(
                            "the server still serves the certificate from before {} was renewed: it has not reloaded the Secret",
                            secret.to_ref()
                        ),
                        "restart or reload the server that terminates TLS, or add a reloader that restarts it when the Secret changes",
                    )
                } else {
                    (
                        Severity::Warning,
                        format!(
                            "the server serves a different certificate than {} (the controller's default certificate, or another claim on the host?)",
                            secret.to_ref()
                        ),
                        "check the controller's logs for why it does not use the Secret, and which object claims the host",
                    )
                };
                let mut b = report(out, o)
                    .severity(severity)
                    .message(message)
                    .evidence(format!(
                        "served: {} sha256 {} valid {} to {}",
                        served.subject,
                        served.sha256,
                        date(served.not_before),
                        date(served.not_after)
                    ))
                    .evidence(format!(
                        "{}: {} sha256 {} valid {} to {}",
                        secret.to_ref(),
                        leaf.subject,
                        leaf.sha256,
                        date(leaf.not_before),
                        date(leaf.not_after)
                    ))
                    .related(secret.to_ref());
                if let Some(r) = s.route {
                    b = b.related(cx.graph.obj(r).to_ref());
                }
                b.fix(fix).emit();
            }
        }
    }
}
