use std::collections::{HashMap, HashSet};

use edgecheck_core::kind::K;
use edgecheck_core::{EdgeKind, Findings, Layer, Severity, Target};

use super::cert_dns_names_uncovered::TargetKey;
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A cert-manager Certificate for a public host (through its `issuerRef`) whose Secret a route or
    /// listener serves (or a controller serves as its default certificate), or an Ingress /
    /// Gateway using the ingress-shim annotations `cert-manager.io/cluster-issuer` /
    /// `cert-manager.io/issuer`, whose issuer is an ACME issuer on a staging directory (Let's
    /// Encrypt `acme-staging-v02.api.letsencrypt.org`, or any ACME server URL with `staging` in its
    /// host).
    ///
    /// ## Why it matters
    /// Staging certificates are signed by a CA no client trusts (`(STAGING) ...`): every browser and
    /// API client rejects the handshake. Staging is for testing the issuance flow, not for users.
    /// A staging issuer may be intended on a test environment, hence a warning.
    ///
    /// ## Example
    /// Certificate `shop/web` for `shop.example.com` with `issuerRef: {kind: ClusterIssuer, name:
    /// letsencrypt}`, whose `acme.server` is `https://acme-staging-v02.api.letsencrypt.org/directory`.
    ///
    /// ## How to fix
    /// Point the Certificate at a production issuer (`https://acme-v02.api.letsencrypt.org/directory`),
    /// then delete the Secret so cert-manager re-issues.
    pub(crate) struct AcmeStagingServer {
        code: "TLS017", name: "acme-staging-server", layer: Layer::Tls, severity: Severity::Warning,
    }
}

/// The ACME server of `issuer` when it is a staging directory.
fn staging_server(cx: &CheckContext<'_>, issuer: edgecheck_core::ObjId) -> Option<String> {
    let acme = cx.graph.view::<edgecheck_core::views::Issuer>(issuer)?.spec.acme.as_ref()?;
    let host = acme.server.split("://").nth(1).unwrap_or(&acme.server).split('/').next().unwrap_or_default();
    host.to_ascii_lowercase().contains("staging").then(|| acme.server.to_string())
}

impl AcmeStagingServer {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        // Staging issuers are rare: what is served is worked out once, and only when a Certificate or an
        // annotation names one (a scan of every served reference per Certificate was quadratic).
        let served = std::cell::OnceCell::new();
        let served = || served.get_or_init(|| super::helpers::served(cx.graph));
        let served_targets = std::cell::OnceCell::new();
        let served_targets = || {
            served_targets.get_or_init(|| served().iter().map(|s| TargetKey::of(&s.edge.to)).collect::<HashSet<_>>())
        };
        let defaults = std::cell::OnceCell::new();
        let defaults = || defaults.get_or_init(|| super::helpers::default_certificates(cx.graph));
        for (id, obj, cert) in cx.graph.each::<edgecheck_core::views::Certificate>() {
            let staging: Vec<(&edgecheck_core::Edge, edgecheck_core::ObjId, String)> = cx
                .graph
                .edges_from_kind(id, EdgeKind::Issuer)
                .filter_map(|e| e.to.found().and_then(|iid| staging_server(cx, iid).map(|s| (e, iid, s))))
                .collect();
            if staging.is_empty() {
                continue;
            }
            let public: Vec<&str> = cert
                .spec
                .dns_names
                .iter()
                .map(edgecheck_core::Str::as_str)
                .filter(|h| super::tls_cert_self_signed::is_public(h))
                .collect();
            if public.is_empty() {
                continue;
            }
            // Only a certificate something serves is one clients meet: a staging Certificate kept beside the
            // production one (routes naming the production Secret) harms nobody.
            let Some(secret) = cx.graph.edges_from_kind(id, EdgeKind::CertificateSecret).next() else { continue };
            let served = served_targets().contains(&TargetKey::of(&secret.to));
            let default = match &secret.to {
                Target::Found(sid) => {
                    let o = cx.graph.obj(*sid);
                    o.namespace.as_ref().is_some_and(|ns| defaults().contains(&(ns.to_string(), o.name.to_string())))
                }
                Target::Missing(r) => {
                    r.namespace.as_ref().is_some_and(|ns| defaults().contains(&(ns.clone(), r.name.clone())))
                }
            };
            if !served && !default {
                continue;
            }
            for (e, iid, server) in staging {
                let issuer = cx.graph.obj(iid);
                out.at(obj, &e.field)
                    .message(format!(
                        "{} for {} is issued by {}, an ACME staging server; no client trusts its certificates",
                        obj.to_ref(),
                        public.join(", "),
                        issuer.to_ref()
                    ))
                    .evidence(format!("{} spec.acme.server: {server}", issuer.to_ref()))
                    .related(issuer.to_ref())
                    .fix("use a production ACME issuer (https://acme-v02.api.letsencrypt.org/directory) and re-issue")
                    .emit();
            }
        }
        const SHIM: &[(&str, bool)] = &[("cert-manager.io/cluster-issuer", true), ("cert-manager.io/issuer", false)];
        let by_from = std::cell::OnceCell::new();
        let by_from = || {
            by_from.get_or_init(|| {
                let mut m: HashMap<edgecheck_core::ObjId, Vec<&super::helpers::Served<'_>>> = HashMap::new();
                served().iter().for_each(|s| m.entry(s.edge.from).or_default().push(s));
                m
            })
        };
        let routes = cx.graph.ids(K::INGRESS).iter().chain(cx.graph.ids(K::GATEWAY));
        for &rid in routes {
            let o = cx.graph.obj(rid);
            for (annotation, cluster) in SHIM {
                let Some(name) = o.annotation(annotation) else { continue };
                let (k, ns) = if *cluster { (K::CLUSTER_ISSUER, None) } else { (K::ISSUER, o.namespace.as_deref()) };
                let Some(iid) = cx.graph.find(k, ns, name) else { continue };
                let Some(server) = staging_server(cx, iid) else { continue };
                let hosts: Vec<&str> = by_from()
                    .get(&rid)
                    .into_iter()
                    .flatten()
                    .flat_map(|s| s.hosts.iter().map(String::as_str))
                    .filter(|h| super::tls_cert_self_signed::is_public(h))
                    .collect();
                if hosts.is_empty() {
                    continue;
                }
                let issuer = cx.graph.obj(iid);
                out.at(o, &format!("metadata.annotations[\"{annotation}\"]"))
                    .message(format!(
                        "{} gets certificates for {} from {}, an ACME staging server; no client trusts them",
                        o.to_ref(),
                        hosts.join(", "),
                        issuer.to_ref()
                    ))
                    .evidence(format!("{annotation}: {name}"))
                    .evidence(format!("{} spec.acme.server: {server}", issuer.to_ref()))
                    .related(issuer.to_ref())
                    .fix("use a production ACME issuer (https://acme-v02.api.letsencrypt.org/directory) and re-issue")
                    .emit();
            }
        }
    }
}
