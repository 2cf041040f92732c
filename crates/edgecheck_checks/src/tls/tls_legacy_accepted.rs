use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::report;

declare_check! {
    /// ## What it checks
    /// With `--legacy`: a TLS endpoint that still completes a TLS 1.0 or TLS 1.1 handshake.
    ///
    /// ## Why it matters
    /// Both versions are deprecated (RFC 8996); browsers and current clients refuse them, PCI DSS and
    /// most audits flag them, and they allow downgrade-era weaknesses (CBC, SHA-1 handshake hashes).
    ///
    /// ## Example
    /// `TLSv1.1 accepted (ECDHE-RSA-AES128-SHA)`.
    ///
    /// ## How to fix
    /// Set the minimum protocol to TLS 1.2 on the listener (`ssl_protocols TLSv1.2 TLSv1.3;` in
    /// nginx, `minVersion: VersionTLS12` in a Traefik TLSOption, `ssl-min-ver TLSv1.2` in haproxy).
    pub(crate) struct TlsLegacyAccepted {
        code: "TLS103", name: "tls-legacy-accepted", layer: Layer::Tls, severity: Severity::Warning,
    }
}

impl TlsLegacyAccepted {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for o in cx.observations {
            let accepted: Vec<_> = o.legacy.iter().filter(|l| l.accepted == Some(true)).collect();
            if accepted.is_empty() {
                continue;
            }
            let versions: Vec<&str> = accepted.iter().map(|l| l.version.as_str()).collect();
            let mut b = report(out, o).message(format!("the endpoint still accepts {}", versions.join(" and ")));
            for l in &o.legacy {
                b = b.evidence(format!(
                    "{} {} ({})",
                    l.version,
                    if l.accepted == Some(true) { "accepted" } else { "refused" },
                    l.detail.as_deref().unwrap_or("-")
                ));
            }
            b.fix("set the listener's minimum TLS version to 1.2").emit();
        }
    }
}
