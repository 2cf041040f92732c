use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A live cert-manager Issuer or ClusterIssuer with `Ready=False`, with its reason and message:
    /// typically `ErrRegisterACMEAccount` (the ACME account could not be registered: an invalid
    /// or forbidden e-mail, no route to the ACME server, a missing External Account Binding) or
    /// `ErrInitIssuer` (a CA issuer whose Secret is missing or not a CA).
    ///
    /// ## Why it matters
    /// Every Certificate using the issuer stays unissued or unrenewed; their Secrets go missing or
    /// expire and the routes serving them fail the handshake.
    ///
    /// ## Example
    /// ClusterIssuer `letsencrypt` `Ready=False ErrRegisterACMEAccount`: `Failed to register ACME
    /// account: 400 urn:ietf:params:acme:error:invalidContact: Error validating contact(s)`.
    ///
    /// ## How to fix
    /// Fix what the message names (the `acme.email`, egress to the ACME server, the EAB or CA
    /// Secret); cert-manager retries on its own.
    pub(crate) struct IssuerNotReady {
        code: "TLS021", name: "issuer-not-ready", layer: Layer::Tls, severity: Severity::Error,
    }
}

impl IssuerNotReady {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, obj, issuer) in cx.graph.each::<edgecheck_core::views::Issuer>() {
            let Some(ready) = issuer.status.condition("Ready") else { continue };
            if ready.status != "False" {
                continue;
            }
            let reason = ready.reason.as_deref().unwrap_or("");
            if edgecheck_core::reasons::layer_for("Ready", reason).is_some_and(|l| l != Layer::Tls) {
                continue;
            }
            let at = issuer
                .status
                .conditions
                .iter()
                .position(|c| c.type_ == "Ready")
                .map_or_else(|| "status.conditions".to_string(), |i| format!("status.conditions[{i}]"));
            let users: Vec<_> = cx
                .graph
                .edges_to_kind(id, edgecheck_core::EdgeKind::Issuer)
                .map(|e| cx.graph.obj(e.from).to_ref())
                .collect();
            let mut b = out
                .at(obj, &at)
                .message(format!(
                    "{} is not Ready ({reason}): {}; Certificates using it are not issued or renewed",
                    obj.to_ref(),
                    ready.message.as_deref().unwrap_or("no message").trim()
                ))
                .evidence(format!("Ready=False {reason}: {}", ready.message.as_deref().unwrap_or("").trim()));
            if let Some(acme) = &issuer.spec.acme {
                b = b.evidence(format!("spec.acme.server: {}", acme.server));
            }
            if !users.is_empty() {
                b = b.evidence(format!("used by {} Certificate(s)", users.len()));
            }
            b.related_all(users).fix("fix what the condition message names; cert-manager retries on its own").emit();
        }
    }
}
