use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// With `--show-unused-ignores`: a suppression that suppressed no finding in this run, an
    /// `edgecheck.io/ignore` annotation's selector or an `ignore` entry of the configuration. The
    /// engine reports these after suppression (it alone knows what each suppression matched); the
    /// check itself finds nothing.
    ///
    /// ## Why it matters
    /// A suppression outlives the fault it hid: once the object is fixed, it waits to hide the next
    /// real fault of the same kind. Unused ones are worth deleting.
    ///
    /// ## Example
    /// `edgecheck.io/ignore: "TLS013 private CA"` on an Ingress whose certificate now verifies.
    ///
    /// ## How to fix
    /// Remove the selector from the annotation, or the entry from `ignore` in `.edgecheck.toml`.
    pub(crate) struct IgnoreUnused {
        code: "LOD009", name: "ignore-unused", layer: Layer::Input, severity: Severity::Info,
    }
}

impl IgnoreUnused {
    fn run(&self, _cx: &CheckContext<'_>, _out: &mut Findings<'_>) {}
}
