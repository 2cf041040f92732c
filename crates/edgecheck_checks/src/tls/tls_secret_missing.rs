use edgecheck_core::kind::K;
use edgecheck_core::{Findings, Layer, Severity, Target};

use crate::framework::{declare_check, CheckContext};

/// A Certificate in `ns` whose names cover one of `hosts` and that writes a Secret other than `name`.
pub(super) fn certificate_writing_other<'g>(
    cx: &CheckContext<'g>,
    ns: &str,
    hosts: &[String],
    name: &str,
) -> Option<(&'g edgecheck_core::Object, String)> {
    cx.graph.each::<edgecheck_core::views::Certificate>().into_iter().find_map(|(_, o, c)| {
        let mut names = c.spec.dns_names.to_vec();
        names.extend(c.spec.common_name.clone());
        let covers = hosts.iter().any(|h| super::cert_dns_names_uncovered::names_cover(&names, h));
        (o.namespace.as_deref() == Some(ns) && covers && !c.spec.secret_name.is_empty() && c.spec.secret_name != name)
            .then(|| (o, c.spec.secret_name.to_string()))
    })
}

declare_check! {
    /// ## What it checks
    /// An Ingress `spec.tls[].secretName`, a Gateway listener `tls.certificateRefs[]` or a Traefik
    /// IngressRoute `tls.secretName` that names a Secret not in the inputs, and that no cert-manager
    /// Certificate, ExternalSecret, SealedSecret or cert-manager ingress-shim annotation will create.
    /// (A Secret of that name in another namespace is reported by TLS009 instead.)
    ///
    /// ## Why it matters
    /// Without the Secret the controller has no certificate for the host: ingress-nginx and Traefik
    /// serve their self-signed default certificate, a Gateway listener gets `ResolvedRefs=False
    /// InvalidCertificateRef` and does not serve at all. Clients fail the handshake.
    ///
    /// Reported as docs/design.md "Absence" says: an error on a full cluster dump, a warning when the
    /// inventory holds other Secrets of that namespace, silent otherwise; but a name that reads as a
    /// documentation stand-in (`your-tls-secret`, `changeme`) is a warning even where absence is silent.
    ///
    /// ## Example
    /// Ingress `shop/web` with `tls: [{hosts: [shop.example.com], secretName: web-tls}]` and no Secret
    /// `shop/web-tls`, nor a Certificate with `secretName: web-tls`.
    ///
    /// ## How to fix
    /// Create the Secret, or a cert-manager Certificate whose `spec.secretName` is that name, or fix
    /// the reference.
    pub(crate) struct TlsSecretMissing {
        code: "TLS001", name: "tls-secret-missing", layer: Layer::Tls, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl TlsSecretMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for s in super::helpers::served(cx.graph) {
            let Target::Missing(r) = &s.edge.to else { continue };
            let ns = r.namespace.as_deref().unwrap_or(&cx.graph.default_namespace);
            if !cx.graph.secret_producers(ns, &r.name).is_empty() {
                continue;
            }
            // A Secret of that name in another namespace is TLS009's finding.
            if s.from.namespace.as_deref() == Some(ns)
                && !super::tls_secret_other_namespace::elsewhere(cx, ns, &r.name).is_empty()
            {
                continue;
            }
            // A Certificate of the same namespace for these hosts writes another Secret: one of the two
            // names is mistyped. The repository manages this Secret, so it is an error, on the route.
            if let Some((cert, written)) = certificate_writing_other(cx, ns, &s.hosts, &r.name) {
                out.at(s.from, &s.edge.field)
                    .severity(Severity::Error)
                    .message(format!(
                        "{} serves TLS from {r}, which nothing creates, while {} for {} writes Secret `{written}`: one of the two names is mistyped, and clients get the controller's default certificate",
                        s.from.to_ref(),
                        cert.to_ref(),
                        s.hosts.join(", ")
                    ))
                    .evidence(format!("{}: {}", s.edge.field, r.name))
                    .evidence(format!("{} spec.secretName: {written}", cert.to_ref()))
                    .related((**r).clone())
                    .related(cert.to_ref())
                    .fix(format!(
                        "name the same Secret in both: {} `{written}`, or the Certificate's spec.secretName `{}`",
                        s.edge.field, r.name
                    ))
                    .emit();
                continue;
            }
            // A name copied from documentation (`your-tls-secret`) that nothing creates was never filled in:
            // a warning even where the absence rule is silent.
            let stand_in = edgecheck_core::placeholder::stand_in_name(&r.name);
            let Some(severity) = cx.absence(K::SECRET, Some(ns)).or(stand_in.then_some(Severity::Warning)) else {
                continue;
            };
            let mut b = out
                .at(s.from, &s.edge.field)
                .severity(severity)
                .message(format!(
                    "{} serves TLS from {r}, which does not exist; clients get the controller's default \
                     certificate or no TLS at all",
                    s.from.to_ref()
                ))
                .evidence(format!("{}: {}", s.edge.field, r.name))
                .related((**r).clone());
            if let Some(l) = s.edge.section() {
                b = b.evidence(format!("listener: {l}"));
            }
            if !s.hosts.is_empty() {
                b = b.evidence(format!("hosts: {}", s.hosts.join(", ")));
            }
            if stand_in {
                b = b.evidence(format!("`{}` reads as a documentation stand-in that was never replaced", r.name));
            }
            let fix = if stand_in {
                format!(
                    "replace `{}` in {} with the Secret that holds the certificate for the host (or a cert-manager Certificate's secretName)",
                    r.name, s.edge.field
                )
            } else {
                format!(
                    "create Secret `{ns}/{}` (kubernetes.io/tls), or a cert-manager Certificate with secretName: {}",
                    r.name, r.name
                )
            };
            b.fix(fix).emit();
        }
    }
}
