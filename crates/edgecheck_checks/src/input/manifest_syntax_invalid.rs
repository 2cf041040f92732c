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
    /// file are still checked.
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
        code: "LOD001", name: "manifest-syntax-invalid", layer: Layer::Input, severity: Severity::Error,
    }
}

impl ManifestSyntaxInvalid {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for p in super::problems(cx.graph, &[LoadProblemKind::YamlSyntax, LoadProblemKind::JsonSyntax]) {
            super::report(out, p)
                .evidence(format!("{}:{}", p.file, p.line.map_or("?".into(), |l| l.to_string())))
                .fix("fix the syntax at this line; the rest of the file was still checked")
                .emit();
        }
    }
}
