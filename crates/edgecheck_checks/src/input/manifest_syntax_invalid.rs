use edgecheck_core::{Findings, Layer, LoadProblemKind, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A YAML or JSON document that does not parse.
    ///
    /// ## Why it matters
    /// `kubectl apply` and Argo CD reject the whole file, so none of its objects reach the cluster:
    /// the Ingress, Service or Certificate it holds is simply absent, and every later layer fails for
    /// a reason that has nothing to do with it. Argo CD shows the Application as `Unknown` with a
    /// ComparisonError. edgecheck parses each `---` document on its own, so the other documents of the
    /// file are still checked. A file the kustomization of its own directory does not list is applied
    /// by nothing, so its syntax error is a warning; so is that of a document that names no `apiVersion` and
    /// no `kind` (a translations file, an application's configuration in a ConfigMap generator).
    ///
    /// ## Example
    /// ```yaml
    /// spec:
    ///   rules:
    ///     - host: shop.example.com
    ///      http:            # indented one space too little
    /// ```
    ///
    /// ## How to fix
    /// Fix the syntax at the line given (`yamllint` shows the same place).
    pub(crate) struct ManifestSyntaxInvalid {
        code: "LOD001", name: "manifest-syntax-invalid", layer: Layer::Input, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl ManifestSyntaxInvalid {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for p in super::problems(cx.graph, &[LoadProblemKind::YamlSyntax, LoadProblemKind::JsonSyntax]) {
            let mut f = super::report(out, p)
                .evidence(format!("{}:{}", p.file, p.line.map_or("?".into(), |l| l.to_string())))
                .fix("fix the syntax at this line; the rest of the file was still checked");
            // The kustomization beside it leaves it out: nothing applies it, so nothing fails on it yet.
            if cx.graph.unlisted_problem_files.contains(&p.file) {
                f = f
                    .severity(Severity::Warning)
                    .evidence("the kustomization of its directory does not list it: no build applies it");
            } else if p.not_manifest {
                f = f.severity(Severity::Warning).evidence(
                    "it names no apiVersion and no kind: it may be another program's file, not a Kubernetes manifest",
                );
            }
            f.emit();
        }
    }
}
