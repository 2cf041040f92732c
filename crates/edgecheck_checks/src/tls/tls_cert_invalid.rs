use edgecheck_core::observation::{HandshakeOutcome, VerifyProblem};
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::{date, report};

declare_check! {
    /// ## What it checks
    /// The certificate chain a TLS endpoint served, as verified against the trust store and the
    /// name asked for, with the precise reason it fails: unknown issuer, self-signed, incomplete
    /// chain (the intermediate is not sent; the missing issuer and its AIA URL are named), expired or
    /// not yet valid (with dates), name mismatch (with the SANs served), CN-only certificate, weak key
    /// or SHA-1 signature.
    ///
    /// ## Why it matters
    /// Browsers, curl and gRPC clients refuse the connection. An incomplete chain is the treacherous
    /// one: browsers that cached the intermediate work, curl, Go and Java clients do not.
    ///
    /// ## Example
    /// `served chain: CN=shop.example.com (issuer CN=R11)`; `the chain lacks the issuer CN=R11`.
    ///
    /// ## How to fix
    /// Serve the full chain (`tls.crt` = leaf then intermediates), renew expired certificates, add
    /// the host to the SANs, re-issue weak or SHA-1 certificates, or use a trusted issuer.
    pub(crate) struct TlsCertInvalid {
        code: "TLS101", name: "tls-cert-invalid", layer: Layer::Tls, severity: Severity::Error, also: [Severity::Warning],
    }
}

fn describe(p: &VerifyProblem) -> String {
    match p {
        VerifyProblem::UnknownIssuer { issuer } => format!("issued by {issuer}, which the trust store does not hold"),
        VerifyProblem::SelfSigned { subject } => format!("self-signed certificate {subject}"),
        VerifyProblem::IncompleteChain { missing_issuer, aia } => format!(
            "incomplete chain: the server does not send the issuer {missing_issuer}{}",
            if aia.is_empty() { String::new() } else { format!(" (AIA: {})", aia.join(", ")) }
        ),
        VerifyProblem::Expired { subject, not_after } => format!("{subject} expired on {}", date(*not_after)),
        VerifyProblem::NotYetValid { subject, not_before } => {
            format!("{subject} is not valid before {}", date(*not_before))
        }
        VerifyProblem::NameMismatch { host, sans } => {
            format!(
                "the certificate does not cover {host}; it names {}",
                if sans.is_empty() { "nothing".into() } else { sans.join(", ") }
            )
        }
        VerifyProblem::CnOnly { common_name } => {
            format!("the certificate names {common_name} only in its CN, which clients ignore (no SAN)")
        }
        VerifyProblem::WeakKey { subject, detail } => format!("{subject}: weak key, {detail}"),
        VerifyProblem::WeakSignature { subject, detail } => format!("{subject}: weak signature, {detail}"),
        VerifyProblem::HandshakeSignature { detail } => format!("the handshake signature was refused: {detail}"),
        VerifyProblem::Other { detail } => detail.clone(),
    }
}

impl TlsCertInvalid {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for o in cx.observations {
            let Some(t) = &o.tls else { continue };
            if t.outcome != HandshakeOutcome::Completed || t.problems.is_empty() {
                continue;
            }
            let head = describe(&t.problems[0]);
            let mut b = report(out, o).message(if t.verified {
                format!("the certificate verifies but is weak: {head}")
            } else {
                format!("the served certificate does not verify: {head}")
            });
            if t.verified {
                b = b.severity(Severity::Warning);
            }
            for p in &t.problems[1..] {
                b = b.evidence(describe(p));
            }
            for (i, c) in t.chain.iter().enumerate() {
                b = b.evidence(format!(
                    "served chain [{i}]: {} (issuer {}; SANs {}; valid {} to {}; {} {} bits; {})",
                    c.subject,
                    c.issuer,
                    if c.dns_names.is_empty() { "none".to_string() } else { c.dns_names.join(",") },
                    date(c.not_before),
                    date(c.not_after),
                    c.key_algorithm,
                    c.key_bits,
                    c.signature_algorithm
                ));
            }
            b.evidence(format!("verified against {} for {}", t.trust, t.verify_name))
                .fix("serve leaf + intermediates, valid now, covering the host in a SAN, from a trusted issuer")
                .emit();
        }
    }
}
