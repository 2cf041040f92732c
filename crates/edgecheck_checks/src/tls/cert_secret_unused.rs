use edgecheck_core::{EdgeKind, Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A cert-manager Certificate whose hosts (`dnsNames`) are served by Ingresses, Gateway listeners
    /// or Traefik IngressRoutes, none of which uses the Certificate's `spec.secretName`: they serve
    /// those hosts from other Secrets.
    ///
    /// ## Why it matters
    /// The certificate cert-manager keeps renewing is not the one clients get; the Secret actually
    /// served is managed by nobody (or by another Certificate) and expires unnoticed, or was a typo
    /// (`web-tls` vs `web-cert`). It may be a migration in progress, hence a warning.
    ///
    /// ## Example
    /// Certificate `shop/web` with `secretName: web-tls` and `dnsNames: [shop.example.com]`; Ingress
    /// `shop/web` serves `shop.example.com` from `secretName: web-cert`.
    ///
    /// ## How to fix
    /// Make the route's `secretName` (or `certificateRefs[].name`) and the Certificate's
    /// `spec.secretName` the same, or delete the Certificate that is not used.
    pub(crate) struct CertSecretUnused {
        code: "TLS022", name: "cert-secret-unused", layer: Layer::Tls, severity: Severity::Warning,
    }
}

impl CertSecretUnused {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let served = super::helpers::served(cx.graph);
        let index = super::helpers::ServedByHost::new(&served);
        for (id, obj, cert) in cx.graph.each::<edgecheck_core::views::Certificate>() {
            let Some(e) = cx.graph.edges_from_kind(id, EdgeKind::CertificateSecret).next() else { continue };
            let mut names = cert.spec.dns_names.clone();
            names.extend(cert.spec.common_name.clone());
            if names.is_empty() {
                continue;
            }
            let serving: Vec<_> = index
                .candidates(&names)
                .into_iter()
                .filter(|s| s.hosts.iter().any(|h| super::cert_dns_names_uncovered::names_cover(&names, h)))
                .collect();
            if serving.is_empty()
                || serving.iter().any(|s| super::cert_dns_names_uncovered::same_target(&s.edge.to, &e.to))
            {
                continue;
            }
            // Every route names a Secret nothing creates: TLS001 reports the mistyped name on the route.
            let unmade = |s: &&super::helpers::Served<'_>| match &s.edge.to {
                edgecheck_core::Target::Missing(r) => {
                    let ns = r.namespace.as_deref().unwrap_or(&cx.graph.default_namespace);
                    cx.graph.secret_producers(ns, &r.name).is_empty()
                }
                edgecheck_core::Target::Found(_) => false,
            };
            if serving.iter().all(unmade) {
                continue;
            }
            let mut b = out
                .at(obj, "spec.secretName")
                .message(format!(
                    "{} writes Secret `{}`, but the routes serving its hosts use other Secrets; the certificate \
                     cert-manager renews is not the one clients get",
                    obj.to_ref(),
                    cert.spec.secret_name
                ))
                .evidence(format!("spec.secretName: {}", cert.spec.secret_name));
            for s in &serving {
                let secret = match &s.edge.to {
                    edgecheck_core::Target::Found(sid) => cx.graph.obj(*sid).name.clone(),
                    edgecheck_core::Target::Missing(r) => r.name.clone(),
                };
                b = b
                    .evidence(format!("{} serves {} from Secret `{secret}`", s.from.to_ref(), s.hosts.join(", ")))
                    .related(s.from.to_ref());
            }
            b.fix("use the same Secret name in the route and in the Certificate's spec.secretName").emit();
        }
    }
}
