use edgecheck_core::observation::HandshakeOutcome;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::report;

declare_check! {
    /// ## What it checks
    /// A TLS target that accepted TCP but did not complete a handshake: it stalled, reset the
    /// connection, sent an alert, sent a handshake message larger than clients accept (an oversized
    /// certificate chain: rustls takes at most 64 KiB, browsers about as much), or answered with
    /// something that is not TLS.
    ///
    /// ## Why it matters
    /// Clients fail before any certificate is looked at. "Not TLS" usually means a plaintext port
    /// (HTTP on 443, a TLS-terminating proxy that expects plaintext); a reset or alert, a listener
    /// with no certificate for the SNI or no common protocol.
    ///
    /// ## Example
    /// `tls 127.0.0.1:443 sni shop.example.com: NotTls (received corrupt message)`.
    ///
    /// ## How to fix
    /// Check that the port terminates TLS, that the listener has a certificate for this SNI, and its
    /// protocol and cipher settings.
    pub(crate) struct TlsHandshakeFailed {
        code: "TLS100", name: "tls-handshake-failed", layer: Layer::Tls, severity: Severity::Error,
    }
}

impl TlsHandshakeFailed {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for o in cx.observations {
            let Some(t) = &o.tls else { continue };
            let what = match t.outcome {
                HandshakeOutcome::Completed => continue,
                HandshakeOutcome::Timeout => "stalled: no TLS handshake within the timeout",
                HandshakeOutcome::Reset => "closed the connection during the TLS handshake",
                HandshakeOutcome::NotTls => "does not speak TLS on this port (plaintext or another protocol)",
                HandshakeOutcome::Alert => "refused the TLS handshake with an alert",
                HandshakeOutcome::TooLarge => {
                    "sent a TLS handshake message larger than clients accept (64 KiB): its certificate chain is too large"
                }
                HandshakeOutcome::Error => "failed the TLS handshake",
            };
            report(out, o)
                .message(format!("{}:{} {what}", o.host, o.port))
                .evidence(format!(
                    "tls {} sni {} alpn {}: {:?} after {:.0} ms ({})",
                    t.address,
                    t.sni.as_deref().unwrap_or("-"),
                    t.offered_alpn.join(","),
                    t.outcome,
                    t.ms,
                    t.detail.as_deref().unwrap_or("-")
                ))
                .fix("make the port terminate TLS with a certificate for this name")
                .emit();
        }
    }
}
