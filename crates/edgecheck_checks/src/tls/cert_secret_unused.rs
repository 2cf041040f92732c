use std::collections::HashMap;

use edgecheck_core::{EdgeKind, Findings, Layer, Severity};

use super::cert_dns_names_uncovered::TargetKey;

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A cert-manager Certificate whose hosts (`dnsNames`) are served by Ingresses, Gateway listeners
    /// or Traefik IngressRoutes, none of which uses the Certificate's `spec.secretName`: they serve
    /// those hosts from other Secrets, at least one of which is in the inputs and managed by nothing (no
    /// Certificate, ExternalSecret or SealedSecret writes it). A Secret a controller serves as its default
    /// certificate (ingress-nginx `--default-ssl-certificate`, in a workload's args or chart values;
    /// Traefik's `default` TLSStore) is used, though no route names it.
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
        let mut by_target: HashMap<TargetKey<'_>, Vec<&super::helpers::Served<'_>>> = HashMap::new();
        for s in &served {
            by_target.entry(TargetKey::of(&s.edge.to)).or_default().push(s);
        }
        for (id, obj, cert) in cx.graph.each::<edgecheck_core::views::Certificate>() {
            let Some(e) = cx.graph.edges_from_kind(id, EdgeKind::CertificateSecret).next() else { continue };
            let mut names = cert.spec.dns_names.to_vec();
            names.extend(cert.spec.common_name.clone());
            if names.is_empty() {
                continue;
            }
            // Its own Secret served for one of its names: used (looked up by the Secret; the references that
            // serve its names are gathered only when none is its own — a wildcard Certificate in every
            // namespace covers every route's host).
            let own = by_target.get(&TargetKey::of(&e.to)).into_iter().flatten();
            if own.into_iter().any(|s| s.hosts.iter().any(|h| super::cert_dns_names_uncovered::names_cover(&names, h)))
            {
                continue;
            }
            let serving = index.covering(&names);
            if serving.is_empty() {
                continue;
            }
            // What is served must be a Secret in the inputs that nothing manages: one nothing creates is
            // TLS001's mistyped name, and one another Certificate (or an ExternalSecret) writes is renewed too.
            let unmanaged = |s: &&super::helpers::Served<'_>| match &s.edge.to {
                edgecheck_core::Target::Found(sid) => {
                    let o = cx.graph.obj(*sid);
                    let ns = o.namespace.as_deref().unwrap_or(&cx.graph.default_namespace);
                    cx.graph.secret_producers(ns, &o.name).is_empty()
                }
                edgecheck_core::Target::Missing(_) => false,
            };
            if !serving.iter().any(unmanaged) {
                continue;
            }
            // A controller's default certificate (ingress-nginx `--default-ssl-certificate`, Traefik's default
            // TLSStore) is a use of the Secret that no route names.
            let (ns, name) = match &e.to {
                edgecheck_core::Target::Found(sid) => {
                    let o = cx.graph.obj(*sid);
                    (o.namespace.as_deref().map(str::to_string), o.name.to_string())
                }
                edgecheck_core::Target::Missing(r) => (r.namespace.clone(), r.name.clone()),
            };
            if ns.as_deref().is_some_and(|ns| {
                super::helpers::default_certificates(cx.graph).contains(&(ns.to_string(), name.clone()))
            }) {
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
                // With its namespace: a Secret of the same name elsewhere is another Secret.
                let secret = match &s.edge.to {
                    edgecheck_core::Target::Found(sid) => {
                        let o = cx.graph.obj(*sid);
                        format!("{}/{}", o.namespace.as_deref().unwrap_or("-"), o.name)
                    }
                    edgecheck_core::Target::Missing(r) => {
                        format!("{}/{}", r.namespace.as_deref().unwrap_or("-"), r.name)
                    }
                };
                b = b
                    .evidence(format!("{} serves {} from Secret `{secret}`", s.from.to_ref(), s.hosts.join(", ")))
                    .related(s.from.to_ref());
            }
            b.fix("use the same Secret name in the route and in the Certificate's spec.secretName").emit();
        }
    }
}
