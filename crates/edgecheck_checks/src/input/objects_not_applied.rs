use edgecheck_core::{Findings, Layer, LoadProblemKind, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// In a repository that has builds (Argo CD Applications, Flux Kustomizations, kustomize roots),
    /// directories of objects that no build applies: one finding per directory. Those objects are still
    /// checked, but a copy of an object a build renders is left out (it never stands in for, or collides
    /// with, the rendered one). Controller objects (Applications, Flux Kustomizations and sources), which
    /// bootstrap applies, are never counted; neither are example, test and archive directories.
    ///
    /// ## Why it matters
    /// A file no build applies never reaches the cluster: an edit there changes nothing, and an old copy
    /// misleads whoever reads it.
    ///
    /// ## Example
    /// `old/ingress.yaml` next to `apps/`, which the Applications point at.
    ///
    /// ## How to fix
    /// Add the directory to a build (a kustomization's `resources`, an Application's path), or move it to an
    /// `archive/` or `examples/` directory, or delete it.
    pub(crate) struct ObjectsNotApplied {
        code: "LOD011", name: "objects-not-applied", layer: Layer::Input, severity: Severity::Info,
    }
}

impl ObjectsNotApplied {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for p in super::problems(cx.graph, &[LoadProblemKind::NotApplied]) {
            super::report(out, p)
                .fix("include the directory in a build, move it to an archive or examples directory, or delete it")
                .emit();
        }
    }
}
