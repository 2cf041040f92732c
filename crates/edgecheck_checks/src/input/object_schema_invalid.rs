use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An object of a kind edgecheck understands with a field of the wrong type (a port written as a
    /// list, `hosts` as a string, `spec` as a number).
    ///
    /// ## Why it matters
    /// The API server rejects the object, or the controller ignores it; edgecheck cannot follow its
    /// references either, so the checks that need it see nothing.
    ///
    /// ## Example
    /// ```yaml
    /// spec:
    ///   tls:
    ///     hosts: shop.example.com   # must be a list
    /// ```
    ///
    /// ## How to fix
    /// Write the field with the type the API reference gives (`kubectl explain ingress.spec.tls`).
    pub(crate) struct ObjectSchemaInvalid {
        code: "LOD006", name: "object-schema-invalid", layer: Layer::Input, severity: Severity::Warning,
    }
}

impl ObjectSchemaInvalid {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, err) in &cx.graph.view_errors {
            let o = cx.graph.obj(*id);
            let path = if err.path == "." { "" } else { err.path.as_str() };
            out.at(o, path)
                .message(format!(
                    "{} does not match the schema of its kind: `{}`: {}",
                    o.to_ref(),
                    err.path,
                    err.message
                ))
                .evidence(format!("{}: {}", err.path, err.message))
                .fix(format!(
                    "write the field with the type `kubectl explain {}` gives",
                    o.kind.kind.to_ascii_lowercase()
                ))
                .emit();
        }
    }
}
