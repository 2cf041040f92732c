use edgecheck_core::{Findings, Layer, Severity};

use crate::engine::{IgnoreTokens, IGNORE_ANNOTATION};
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An `edgecheck.io/ignore` annotation whose selectors name no check: a code that does not exist
    /// (`BKD0009`, `TLS13`), or a first word that is no code, prefix, layer or check name. The
    /// annotation is a list of selectors separated by commas or spaces, then an optional reason; the
    /// reason's words never select anything.
    ///
    /// ## Why it matters
    /// A suppression with a typo suppresses nothing, silently: the finding it was meant for keeps
    /// failing the pipeline, or someone "fixes" it with a broader selector. edgecheck never widens an
    /// unknown code into a broader suppression; it says the annotation is wrong.
    ///
    /// ## Example
    /// ```yaml
    /// metadata:
    ///   annotations:
    ///     edgecheck.io/ignore: "BKD0009 ALB in front"
    /// ```
    ///
    /// ## How to fix
    /// Write the check's code or name (`edgecheck checks` lists them): `BKD009 ALB in front`.
    pub(crate) struct IgnoreUnknown {
        code: "LOD008", name: "ignore-annotation-unknown", layer: Layer::Input, severity: Severity::Error,
    }
}

impl IgnoreUnknown {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let field = format!("metadata.annotations[\"{IGNORE_ANNOTATION}\"]");
        for (_, o) in cx.graph.iter() {
            let Some(ann) = o.annotation(IGNORE_ANNOTATION) else { continue };
            for t in IgnoreTokens::parse(ann).unknown {
                out.at(o, &field)
                    .message(format!(
                        "{}: `{IGNORE_ANNOTATION}` names `{t}`, which is no check, code prefix or layer; it suppresses nothing",
                        o.to_ref()
                    ))
                    .evidence(format!("{IGNORE_ANNOTATION}: {ann}"))
                    .fix("write an existing check's code or name (see `edgecheck checks`), then the reason")
                    .emit();
            }
        }
    }
}
