use std::net::IpAddr;

use edgecheck_core::cert::CertInfo;
use edgecheck_core::{Findings, Layer, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A host served with TLS (Ingress `spec.tls[].hosts`, a Gateway listener `hostname`, the `Host`
    /// / `HostSNI` names of a Traefik IngressRoute) that the leaf certificate in the referenced
    /// Secret does not cover. Matching is RFC 6125 as browsers do it: DNS subjectAltNames only; a
    /// wildcard stands for exactly one label (`*.a.com` covers `x.a.com`, not `x.y.a.com` nor
    /// `a.com`); a certificate that names the host only in its subject CN, without any SAN, does not
    /// count (browsers and Go reject it); an IP address host needs an IP SAN.
    ///
    /// ## Why it matters
    /// The client aborts the handshake with a name mismatch (`ERR_CERT_COMMON_NAME_INVALID`,
    /// `x509: certificate is valid for ..., not ...`), so the service is unreachable over HTTPS.
    ///
    /// ## Example
    /// Ingress `shop/web` serves `shop.example.com` from Secret `shop/web-tls`, whose certificate's
    /// SAN is `billing.example.com`.
    ///
    /// ## How to fix
    /// Issue a certificate for the host (cert-manager Certificate `dnsNames`), or serve the host from
    /// the Secret that covers it, or fix the host.
    pub(crate) struct TlsCertHostMismatch {
        code: "TLS003", name: "tls-cert-host-mismatch", layer: Layer::Tls, severity: Severity::Error,
    }
}

/// Why `leaf` does not cover `host`, or `None` when it does.
fn uncovered(leaf: &CertInfo, host: &str) -> Option<String> {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = h.parse::<IpAddr>() {
        let ok = leaf.ip_addresses.iter().any(|a| a.parse::<IpAddr>().ok() == Some(ip));
        return (!ok).then(|| format!("{host} is an IP address and no IP SAN names it"));
    }
    if h.starts_with("*.") {
        // A wildcard host is served by a wildcard certificate of the same suffix (or one that lists it).
        let ok = leaf
            .dns_names
            .iter()
            .any(|n| edgecheck_core::hostname::normalize(n) == edgecheck_core::hostname::normalize(h));
        return (!ok).then(|| format!("{host} needs a SAN {h}"));
    }
    if leaf.covers(h) {
        return None;
    }
    if leaf.cn_only() && leaf.common_name.as_deref().is_some_and(|cn| edgecheck_core::hostname::cert_name_covers(cn, h))
    {
        return Some(format!(
            "{host} is only in the subject CN and the certificate has no subjectAltName (browsers and Go reject it)"
        ));
    }
    let deeper = leaf.dns_names.iter().find(|n| {
        n.strip_prefix("*.").is_some_and(|suffix| {
            let hn = edgecheck_core::hostname::normalize(h);
            hn.ends_with(&format!(".{}", edgecheck_core::hostname::normalize(suffix)))
        })
    });
    Some(match deeper {
        Some(w) => format!("{host} is more than one label below {w} (a wildcard covers one label)"),
        None => format!("{host} is not among the certificate's names"),
    })
}

impl TlsCertHostMismatch {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for s in super::helpers::served(cx.graph) {
            let Target::Found(id) = s.edge.to else { continue };
            let secret = cx.graph.obj(id);
            let Some(leaf) = secret.secret.as_deref().and_then(|i| i.leaf()) else { continue };
            let misses: Vec<(String, String)> =
                s.hosts.iter().filter_map(|h| uncovered(leaf, h).map(|why| (h.clone(), why))).collect();
            if misses.is_empty() {
                continue;
            }
            let names: Vec<String> =
                leaf.dns_names.iter().cloned().chain(leaf.ip_addresses.iter().map(|ip| format!("IP:{ip}"))).collect();
            let covers = if names.is_empty() { "no subjectAltName".to_string() } else { names.join(", ") };
            let hosts: Vec<&str> = misses.iter().map(|(h, _)| h.as_str()).collect();
            let message = if names.is_empty() {
                format!(
                    "certificate in {} has no subjectAltName, so it covers no host and not {}; clients reject \
                     the handshake with a name mismatch",
                    secret.to_ref(),
                    hosts.join(", ")
                )
            } else {
                format!(
                    "certificate in {} covers {covers}, not {}; clients reject the handshake with a name mismatch",
                    secret.to_ref(),
                    hosts.join(", ")
                )
            };
            let mut b = out
                .at(s.from, &s.edge.field)
                .message(message)
                .evidence(format!("tls.crt SAN: {covers}"))
                .related(secret.to_ref())
                .hosts(hosts.iter().copied());
            if let Some(cn) = &leaf.common_name {
                b = b.evidence(format!("tls.crt subject CN: {cn}"));
            }
            for (_, why) in &misses {
                b = b.evidence(why.clone());
            }
            b.fix(format!(
                "issue a certificate whose dnsNames include {} (cert-manager Certificate dnsNames), or fix the host",
                hosts.join(", ")
            ))
            .emit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cert(dns: &[&str], ips: &[&str], cn: Option<&str>) -> CertInfo {
        CertInfo {
            dns_names: dns.iter().map(|s| (*s).to_string()).collect(),
            ip_addresses: ips.iter().map(|s| (*s).to_string()).collect(),
            has_san: !dns.is_empty() || !ips.is_empty(),
            common_name: cn.map(str::to_string),
            ..CertInfo::default()
        }
    }

    #[test]
    fn host_matching() {
        let w = cert(&["*.a.com"], &[], None);
        assert_eq!(uncovered(&w, "x.a.com"), None);
        assert_eq!(uncovered(&w, "X.A.com."), None);
        assert!(uncovered(&w, "x.y.a.com").unwrap().contains("more than one label"));
        assert!(uncovered(&w, "a.com").unwrap().contains("not among"));
        assert_eq!(uncovered(&w, "*.a.com"), None);
        assert!(uncovered(&cert(&["x.a.com"], &[], None), "*.a.com").is_some());
        let cn = cert(&[], &[], Some("x.a.com"));
        assert!(uncovered(&cn, "x.a.com").unwrap().contains("only in the subject CN"));
        let ip = cert(&["x.a.com"], &["10.0.0.1", "::1"], None);
        assert_eq!(uncovered(&ip, "10.0.0.1"), None);
        assert_eq!(uncovered(&ip, "[::1]"), None);
        assert!(uncovered(&ip, "10.0.0.2").unwrap().contains("IP SAN"));
    }
}
