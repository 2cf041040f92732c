use edgecheck_core::{Findings, Layer, LoadProblemKind, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A file that was named or found with a manifest extension (`.yaml`, `.yml`, `.json`) but could
    /// not be read: permission denied, binary content, or not UTF-8.
    ///
    /// ## Why it matters
    /// What is in it was not checked. A binary or mis-encoded manifest is also rejected by
    /// `kubectl apply`, so its objects are missing from the cluster.
    ///
    /// ## Example
    /// A `secrets.yaml` encrypted with `git-crypt` in a checkout where it is not unlocked.
    ///
    /// ## How to fix
    /// Make the file readable text (unlock it, re-encode it as UTF-8), or move it out of the linted
    /// path.
    pub(crate) struct FileUnreadable {
        code: "LOD002", name: "file-unreadable", layer: Layer::Input, severity: Severity::Warning,
    }
}

impl FileUnreadable {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for p in super::problems(cx.graph, &[LoadProblemKind::Unreadable, LoadProblemKind::Binary]) {
            super::report(out, p).fix("make the file readable UTF-8 text or exclude it from the linted paths").emit();
        }
    }
}
