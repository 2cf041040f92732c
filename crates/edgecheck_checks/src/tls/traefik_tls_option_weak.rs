use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Traefik TLSOption (either API group) whose `minVersion` is below TLS 1.2 (`VersionTLS10`,
    /// `VersionTLS11`) or whose `cipherSuites` include CBC-mode or RSA-key-exchange suites
    /// (`TLS_RSA_WITH_AES_128_CBC_SHA`, `TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA`, 3DES, RC4).
    ///
    /// ## Why it matters
    /// TLS 1.0/1.1 are deprecated (RFC 8996) and refused by current browsers; RSA key exchange has
    /// no forward secrecy and CBC suites are the subject of padding-oracle attacks (Lucky13).
    /// Scanners and compliance checks (PCI DSS) fail the endpoint. Nothing breaks for clients
    /// today, hence a warning.
    ///
    /// ## Example
    /// TLSOption `traefik/legacy` with `minVersion: VersionTLS10` and
    /// `cipherSuites: [TLS_RSA_WITH_AES_128_CBC_SHA]`.
    ///
    /// ## How to fix
    /// Set `minVersion: VersionTLS12` and keep only ECDHE AEAD suites (`TLS_ECDHE_*_WITH_AES_*_GCM_*`,
    /// `TLS_ECDHE_*_WITH_CHACHA20_POLY1305*`), or drop `cipherSuites` to use Go's defaults.
    pub(crate) struct TraefikTlsOptionWeak {
        code: "TLS019", name: "traefik-tls-option-weak", layer: Layer::Tls, severity: Severity::Warning,
    }
}

/// Why a cipher suite is weak, if it is.
fn weak_suite(s: &str) -> Option<&'static str> {
    let u = s.to_ascii_uppercase();
    if u.contains("RC4") || u.contains("3DES") || u.contains("_DES_") {
        Some("broken cipher")
    } else if u.starts_with("TLS_RSA_") {
        Some("RSA key exchange, no forward secrecy")
    } else if u.contains("_CBC_") {
        Some("CBC mode")
    } else {
        None
    }
}

impl TraefikTlsOptionWeak {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (_, obj, opt) in cx.graph.each::<edgecheck_core::views::TlsOption>() {
            let mut problems = Vec::new();
            let mut field = None;
            if let Some(v) = opt.spec.min_version.as_deref() {
                if matches!(v, "VersionTLS10" | "VersionTLS11" | "VersionSSL30") {
                    problems.push(format!("minVersion: {v} (below TLS 1.2)"));
                    field = Some("spec.minVersion".to_string());
                }
            }
            for (i, s) in opt.spec.cipher_suites.iter().enumerate() {
                if let Some(why) = weak_suite(s) {
                    problems.push(format!("cipher suite {s} ({why})"));
                    field.get_or_insert_with(|| format!("spec.cipherSuites[{i}]"));
                }
            }
            let Some(field) = field else { continue };
            let mut b = out.at(obj, &field).message(format!(
                "{} allows weak TLS ({}); routes using it accept deprecated protocol versions or ciphers",
                obj.to_ref(),
                problems.join(", ")
            ));
            for p in &problems {
                b = b.evidence(p.clone());
            }
            b.fix("set minVersion: VersionTLS12 and keep only ECDHE AEAD suites (or drop cipherSuites)").emit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::weak_suite;

    #[test]
    fn suites() {
        assert!(weak_suite("TLS_RSA_WITH_AES_128_CBC_SHA").is_some());
        assert!(weak_suite("TLS_RSA_WITH_AES_128_GCM_SHA256").is_some());
        assert!(weak_suite("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA").is_some());
        assert!(weak_suite("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256").is_none());
        assert!(weak_suite("TLS_CHACHA20_POLY1305_SHA256").is_none());
    }
}
