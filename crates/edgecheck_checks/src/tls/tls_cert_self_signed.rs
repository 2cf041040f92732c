use std::net::IpAddr;

use edgecheck_core::{Findings, Layer, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A public host (not an IP address in a private range, not under `.local`, `.internal`, `.lan`,
    /// `.home.arpa`, `.localhost`, `.svc` or `.cluster.local`) served with a self-signed leaf
    /// certificate.
    ///
    /// ## Why it matters
    /// No public client trusts a self-signed certificate: browsers show a full-page warning, API
    /// clients fail with `x509: certificate signed by unknown authority`. It is often a placeholder
    /// left in Git, or cert-manager's `selfSigned` issuer used where an ACME issuer was meant. Internal
    /// clients may trust it on purpose, hence a warning.
    ///
    /// ## Example
    /// Ingress `shop/web` serves `shop.example.com` from Secret `shop/web-tls`, whose certificate's
    /// subject and issuer are both `CN=shop.example.com`.
    ///
    /// ## How to fix
    /// Serve a certificate from a public CA (cert-manager with an ACME ClusterIssuer), or, for an
    /// internal service, use an internal host name and distribute your CA to the clients.
    pub(crate) struct TlsCertSelfSigned {
        code: "TLS013", name: "tls-cert-self-signed", layer: Layer::Tls, severity: Severity::Warning,
    }
}

/// True when `host` is a name the public Internet reaches.
pub(super) fn is_public(host: &str) -> bool {
    let h = edgecheck_core::hostname::normalize(host.trim_start_matches('[').trim_end_matches(']'));
    if let Ok(ip) = h.parse::<IpAddr>() {
        return match ip {
            IpAddr::V4(v4) => {
                !(v4.is_private()
                    || v4.is_loopback()
                    || v4.is_link_local()
                    || (v4.octets()[0] == 100 && (v4.octets()[1] & 0xc0) == 64))
            }
            IpAddr::V6(v6) => !(v6.is_loopback() || v6.is_unique_local() || v6.is_unicast_link_local()),
        };
    }
    const PRIVATE: &[&str] =
        &["local", "internal", "lan", "home.arpa", "localhost", "svc", "cluster.local", "intranet", "corp"];
    h.contains('.') && !PRIVATE.iter().any(|s| h == *s || h.ends_with(&format!(".{s}")))
}

impl TlsCertSelfSigned {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for s in super::helpers::served(cx.graph) {
            let Target::Found(id) = s.edge.to else { continue };
            let secret = cx.graph.obj(id);
            let Some(leaf) = secret.secret.as_deref().and_then(|i| i.leaf()) else { continue };
            if !leaf.self_signed {
                continue;
            }
            let public: Vec<&str> = s.hosts.iter().map(String::as_str).filter(|h| is_public(h)).collect();
            if public.is_empty() {
                continue;
            }
            out.at(s.from, &s.edge.field)
                .message(format!(
                    "{} serves {} with a self-signed certificate from {}; public clients do not trust it",
                    s.from.to_ref(),
                    public.join(", "),
                    secret.to_ref()
                ))
                .evidence(format!("tls.crt subject: {}", leaf.subject))
                .evidence(format!("tls.crt issuer: {} (self-signed)", leaf.issuer))
                .related(secret.to_ref())
                .fix("serve a certificate from a public CA (cert-manager with an ACME ClusterIssuer)")
                .emit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_public;

    #[test]
    fn public_hosts() {
        assert!(is_public("shop.example.com"));
        assert!(is_public("203.0.113.7"));
        assert!(!is_public("10.1.2.3"));
        assert!(!is_public("web.shop.svc"));
        assert!(!is_public("web.shop.svc.cluster.local"));
        assert!(!is_public("nas.home.arpa"));
        assert!(!is_public("grafana.internal"));
        assert!(!is_public("[fd00::1]"));
    }
}
