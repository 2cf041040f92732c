use edgecheck_core::{Findings, Layer, LoadProblemKind, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Secret whose `data` value is not base64 as the API server decodes it (Go's `StdEncoding`: padding
    /// required, line breaks skipped, any other white space rejected, non-zero trailing bits accepted), or whose `tls.crt` / `tls.key` does not hold a
    /// readable PEM block: truncated (a `BEGIN` line without its `END`), bad base64 inside the block, or
    /// not a certificate or key at all.
    ///
    /// ## Why it matters
    /// The API server rejects `data` that is not base64. A TLS Secret with a broken PEM is accepted,
    /// but every ingress controller and Gateway refuses to load it and falls back to its default
    /// certificate, so clients see a certificate for the wrong name. Copy-pasting PEM into a manifest
    /// often cuts the last lines.
    ///
    /// ## Example
    /// ```yaml
    /// stringData:
    ///   tls.crt: |
    ///     -----BEGIN CERTIFICATE-----
    ///     MIIBszCCAVmgAwIBAgIU...      # no END CERTIFICATE line
    /// ```
    ///
    /// ## How to fix
    /// Re-create the Secret from the files (`kubectl create secret tls NAME --cert=tls.crt --key=tls.key
    /// --dry-run=client -o yaml`), or let cert-manager issue it.
    pub(crate) struct SecretDataInvalid {
        code: "LOD003", name: "secret-data-invalid", layer: Layer::Input, severity: Severity::Error,
    }
}

impl SecretDataInvalid {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for p in super::problems(cx.graph, &[LoadProblemKind::BadBase64, LoadProblemKind::BadPem]) {
            let fix = match p.kind {
                LoadProblemKind::BadBase64 => {
                    "encode the value on one line (`base64 -w0`), or move the plain value under `stringData`"
                }
                _ => "re-create the Secret from its PEM files (kubectl create secret tls --dry-run=client -o yaml) or let cert-manager issue it",
            };
            super::report(out, p).fix(fix).emit();
        }
    }
}
