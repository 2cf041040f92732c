use edgecheck_core::kind::K;
use edgecheck_core::{EdgeKind, Findings, Layer, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A cert-manager Issuer or ClusterIssuer whose ACME HTTP-01 solver names an ingress class
    /// (`http01.ingress.ingressClassName`, or the older `http01.ingress.class`) for which no
    /// IngressClass exists.
    ///
    /// Reported as docs/design.md "Absence" says: an error on a full cluster dump, a warning when the
    /// inventory holds other IngressClasses, silent otherwise. The annotation-style `class` is at
    /// most a warning: some controllers still watch a class by annotation without an IngressClass.
    ///
    /// ## Why it matters
    /// cert-manager creates the solver Ingress with that class; no controller picks it up, the
    /// ACME server cannot fetch `/.well-known/acme-challenge/...`, the Challenge stays `pending` and
    /// the certificate is never issued or renewed.
    ///
    /// ## Example
    /// ClusterIssuer `letsencrypt` with `http01: {ingress: {ingressClassName: nginx}}` on a cluster
    /// whose only IngressClass is `traefik`.
    ///
    /// ## How to fix
    /// Set the solver's `ingressClassName` to an existing IngressClass (the one serving port 80 for
    /// those hosts).
    pub(crate) struct AcmeSolverClassMissing {
        code: "TLS018", name: "acme-solver-class-missing", layer: Layer::Tls, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl AcmeSolverClassMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let classes: Vec<String> =
            cx.graph.ids(K::INGRESS_CLASS).iter().map(|id| cx.graph.obj(*id).name.to_string()).collect();
        for e in cx.graph.edges().iter().filter(|e| e.kind == EdgeKind::SolverClass) {
            let Target::Missing(r) = &e.to else { continue };
            let Some(mut severity) = cx.absence(K::INGRESS_CLASS, None) else { continue };
            if e.how() == "annotation" {
                severity = Severity::Warning;
            }
            let issuer = cx.graph.obj(e.from);
            out.at(issuer, &e.field)
                .severity(severity)
                .message(format!(
                    "{}'s HTTP-01 solver uses ingress class `{}`, for which no IngressClass exists; no controller \
                     serves the challenge and certificates are never issued",
                    issuer.to_ref(),
                    r.name
                ))
                .evidence(format!("{}: {}", e.field, r.name))
                .evidence(format!(
                    "IngressClasses: {}",
                    if classes.is_empty() { "(none)".to_string() } else { classes.join(", ") }
                ))
                .related((**r).clone())
                .fix("set the solver's ingressClassName to an existing IngressClass")
                .emit();
        }
    }
}
