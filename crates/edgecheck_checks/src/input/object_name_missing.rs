use edgecheck_core::{Findings, Layer, LoadProblemKind, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A document with `apiVersion` and `kind` but neither `metadata.name` nor `metadata.generateName`.
    ///
    /// ## Why it matters
    /// The API server rejects it (`resource name may not be empty`), so the object never exists and
    /// anything that refers to it fails later.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Service
    /// metadata:
    ///   namespace: shop
    /// ```
    ///
    /// ## How to fix
    /// Give the object a `metadata.name`. If the file is a kustomize patch, list it under `patches` in
    /// its kustomization instead of `resources`.
    pub(crate) struct ObjectNameMissing {
        code: "LOD005", name: "object-name-missing", layer: Layer::Input, severity: Severity::Warning,
    }
}

impl ObjectNameMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for p in super::problems(cx.graph, &[LoadProblemKind::NoName]) {
            super::report(out, p)
                .fix("set metadata.name (or list the file as a kustomize patch, not a resource)")
                .emit();
        }
    }
}
