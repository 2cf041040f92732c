use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// The same kind, namespace and name defined twice in the inputs, where both would be applied
    /// together: in one directory, or included by one build (a kustomization, a Flux Kustomization, an
    /// Argo CD Application's path). Copies that separate builds include (`overlays/dev` and
    /// `overlays/prod`, `clusters/staging` and `clusters/production`) are alternatives, not duplicates;
    /// so are files in different directories that no build includes (each is its own unit), files a
    /// kustomization in their directory does not list, and copies in example or test directories.
    /// Identical copies and `generateName` objects are never duplicates, and kustomize patch files are
    /// not objects at all.
    ///
    /// ## Why it matters
    /// Only one definition wins, and which one depends on apply order: Argo CD reports
    /// `RepeatedResourceWarning` and the two copies fight on every sync. edgecheck checks the first one
    /// it loaded.
    ///
    /// ## Example
    /// `apps/shop/ingress.yaml` and `apps/shop/ingress-old.yaml` both define Ingress `shop/web`.
    ///
    /// ## How to fix
    /// Delete one of the two, or give them different names.
    pub(crate) struct ObjectDuplicate {
        code: "LOD004", name: "object-duplicate", layer: Layer::Input, severity: Severity::Warning,
    }
}

impl ObjectDuplicate {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (dup, first) in &cx.graph.duplicates {
            let (d, f) = (cx.graph.obj(*dup), cx.graph.obj(*first));
            // Identical copies apply the same object: nothing fights.
            if d.value == f.value || !cx.graph.applied_together(*dup, *first) {
                continue;
            }
            let place = |o: &edgecheck_core::Object| {
                format!("{}:{}", o.source.file().unwrap_or("-"), o.source.line().unwrap_or(0))
            };
            out.at(d, "")
                .message(format!("{} is defined twice; only one definition takes effect", d.to_ref()))
                .evidence(format!("first definition: {}", place(f)))
                .evidence(format!("second definition: {}", place(d)))
                .fix("delete one of the two definitions or rename one")
                .emit();
        }
    }
}
