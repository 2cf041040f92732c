use edgecheck_core::hostname::{cert_name_covers, normalize};
use std::collections::HashMap;

use edgecheck_core::{EdgeKind, Findings, Layer, ObjId, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A cert-manager Certificate whose Secret is served by an Ingress, Gateway listener or Traefik
    /// IngressRoute for a host that the Certificate's `dnsNames` (or `commonName`) do not cover, with
    /// the wildcard rule of browsers (one label).
    ///
    /// ## Why it matters
    /// cert-manager issues exactly what the Certificate asks for; the route then presents a
    /// certificate that does not name its host and clients reject the handshake. Found in Git,
    /// before the Secret exists.
    ///
    /// ## Example
    /// Certificate `shop/web` with `dnsNames: [shop.example.com]` and `secretName: web-tls`;
    /// Ingress `shop/web` serves `shop.example.com` and `www.shop.example.com` from `web-tls`.
    ///
    /// ## How to fix
    /// Add the hosts to the Certificate's `dnsNames`, or serve them from a Secret whose Certificate
    /// names them.
    pub(crate) struct CertDnsNamesUncovered {
        code: "TLS015", name: "cert-dns-names-uncovered", layer: Layer::Tls, severity: Severity::Error,
    }
}

/// True when a certificate requested with `names` covers `host` (a wildcard host needs the same wildcard).
pub(super) fn names_cover(names: &[impl AsRef<str>], host: &str) -> bool {
    if host.starts_with("*.") {
        return names.iter().any(|n| normalize(n.as_ref()) == normalize(host));
    }
    names.iter().any(|n| cert_name_covers(n.as_ref(), host))
}

impl CertDnsNamesUncovered {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let served = super::helpers::served(cx.graph);
        // The references by the Secret they name, in order: each Certificate looks its Secret up (scanning
        // every reference per Certificate was O(Certificates × references)).
        let mut by_target: HashMap<TargetKey<'_>, Vec<&super::helpers::Served<'_>>> = HashMap::new();
        for s in &served {
            by_target.entry(TargetKey::of(&s.edge.to)).or_default().push(s);
        }
        for (id, obj, cert) in cx.graph.each::<edgecheck_core::views::Certificate>() {
            let Some(e) = cx.graph.edges_from_kind(id, EdgeKind::CertificateSecret).next() else { continue };
            let mut names: Vec<edgecheck_core::Str> = cert.spec.dns_names.to_vec();
            names.extend(cert.spec.common_name.clone());
            names.extend(cert.spec.ip_addresses.clone());
            for s in by_target.get(&TargetKey::of(&e.to)).into_iter().flatten() {
                let missing: Vec<&str> =
                    s.hosts.iter().map(String::as_str).filter(|h| !names_cover(&names, h)).collect();
                if missing.is_empty() {
                    continue;
                }
                let field = if obj.field_line("spec.dnsNames").is_some() { "spec.dnsNames" } else { "spec" };
                out.at(obj, field)
                    .message(format!(
                        "{} serves {} from Secret `{}`, but {} asks only for {}; the issued certificate will not \
                         cover those hosts",
                        s.from.to_ref(),
                        missing.join(", "),
                        cert.spec.secret_name,
                        obj.to_ref(),
                        if names.is_empty() { "no names".to_string() } else { names.join(", ") }
                    ))
                    .evidence(format!("dnsNames: {}", cert.spec.dns_names.join(", ")))
                    .evidence(format!("{} {}: hosts {}", s.from.to_ref(), s.edge.field, s.hosts.join(", ")))
                    .related(s.from.to_ref())
                    .hosts(missing.iter().copied())
                    .fix(format!("add {} to spec.dnsNames", missing.join(", ")))
                    .emit();
            }
        }
    }
}

/// What an edge points at, as a key: the object (found) or the kind, namespace and name (missing); two
/// targets have the same key exactly when [`same_target`] holds.
#[derive(PartialEq, Eq, Hash)]
pub(super) enum TargetKey<'a> {
    Found(ObjId),
    Missing(&'a str, Option<&'a str>, &'a str),
}

impl TargetKey<'_> {
    pub(super) fn of(t: &Target) -> TargetKey<'_> {
        match t {
            Target::Found(id) => TargetKey::Found(*id),
            Target::Missing(r) => TargetKey::Missing(&r.kind, r.namespace.as_deref(), &r.name),
        }
    }
}
