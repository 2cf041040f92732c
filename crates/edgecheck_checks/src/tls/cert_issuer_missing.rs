use edgecheck_core::kind::K;
use edgecheck_core::{EdgeKind, Findings, Layer, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A cert-manager Certificate whose `spec.issuerRef` names an Issuer (same namespace) or a
    /// ClusterIssuer that is not in the inputs. References to external issuers (an `issuerRef.group`
    /// other than `cert-manager.io`, such as `awspca.cert-manager.io` or `cas-issuer.jetstack.io`)
    /// are not cert-manager's and are not judged.
    ///
    /// Reported as docs/design.md "Absence" says: an error on a full cluster dump, a warning when the
    /// inventory holds other issuers of that kind (in that namespace for an Issuer), silent otherwise.
    ///
    /// ## Why it matters
    /// cert-manager never issues the certificate: the Certificate stays `Ready=False` and its
    /// CertificateRequest waits with `IssuerNotFound`; the Secret the route serves is never created
    /// or never renewed.
    ///
    /// ## Example
    /// Certificate `shop/web` with `issuerRef: {name: letsencrypt-prod, kind: ClusterIssuer}` while
    /// the repository defines ClusterIssuer `letsencrypt` only. An `issuerRef` without `kind` means
    /// an Issuer in the Certificate's namespace, a frequent slip for a ClusterIssuer.
    ///
    /// ## How to fix
    /// Point `issuerRef` at an existing issuer (and set `kind: ClusterIssuer` for a cluster-wide one),
    /// or create the issuer.
    pub(crate) struct CertIssuerMissing {
        code: "TLS007", name: "cert-issuer-missing", layer: Layer::Tls, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl CertIssuerMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, obj, cert) in cx.graph.each::<edgecheck_core::views::Certificate>() {
            for e in cx.graph.edges_from_kind(id, EdgeKind::Issuer) {
                let Target::Missing(r) = &e.to else { continue };
                let cluster = r.kind == "ClusterIssuer";
                let (k, ns) = if cluster { (K::CLUSTER_ISSUER, None) } else { (K::ISSUER, r.namespace.as_deref()) };
                let Some(severity) = cx.absence(k, ns) else { continue };
                let mut b = out
                    .at(obj, &e.field)
                    .severity(severity)
                    .message(format!(
                        "{} is issued by {r}, which does not exist; cert-manager never issues or renews Secret `{}`",
                        obj.to_ref(),
                        cert.spec.secret_name
                    ))
                    .evidence(format!(
                        "issuerRef: name={} kind={}",
                        cert.spec.issuer_ref.name,
                        cert.spec.issuer_ref.kind.as_deref().unwrap_or("Issuer (default)")
                    ))
                    .related((**r).clone());
                let (other, other_k, other_ns) = if cluster {
                    ("Issuer", K::ISSUER, obj.namespace.as_deref())
                } else {
                    ("ClusterIssuer", K::CLUSTER_ISSUER, None)
                };
                if let Some(oid) = cx.graph.find(other_k, other_ns, &r.name) {
                    b = b.evidence(format!("a {other} named {} exists", r.name)).related(cx.graph.obj(oid).to_ref());
                    b = b.fix(format!("set issuerRef.kind: {other}"));
                } else {
                    b = b.fix(format!("create {r} or point issuerRef at an existing Issuer/ClusterIssuer"));
                }
                b.emit();
            }
        }
    }
}
