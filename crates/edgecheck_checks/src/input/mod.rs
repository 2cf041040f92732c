//! Checks of the `input` layer: what could not be read, and objects that are malformed as loaded.

mod build_not_rendered;
mod checkout_assumed;
mod file_unreadable;
mod ignore_unknown;
pub(crate) mod ignore_unused;
mod manifest_syntax_invalid;
mod object_duplicate;
mod object_name_missing;
mod object_schema_invalid;
mod objects_not_applied;
mod secret_data_invalid;
// --- scan (LOD007)
mod resource_forbidden;

use edgecheck_core::{FindingBuilder, Findings, LoadProblem, LoadProblemKind, ObjectRef};

use crate::framework::Check;

/// The checks of this layer, sorted by code.
pub(crate) const CHECKS: &[&dyn Check] = &[
    &manifest_syntax_invalid::ManifestSyntaxInvalid,
    &file_unreadable::FileUnreadable,
    &secret_data_invalid::SecretDataInvalid,
    &object_duplicate::ObjectDuplicate,
    &object_name_missing::ObjectNameMissing,
    &object_schema_invalid::ObjectSchemaInvalid,
    // --- scan (LOD007)
    &resource_forbidden::ResourceForbidden,
    // --- suppressions
    &ignore_unknown::IgnoreUnknown,
    &ignore_unused::IgnoreUnused,
    // --- builds (docs/design.md "Builds")
    &build_not_rendered::BuildNotRendered,
    &objects_not_applied::ObjectsNotApplied,
    &checkout_assumed::CheckoutAssumed,
];

/// Starts a finding about a load problem: about its object when it has one, else about the file.
fn report<'s, 'a>(out: &'s mut Findings<'a>, p: &LoadProblem) -> FindingBuilder<'s, 'a> {
    let object = p.object.clone().unwrap_or_else(|| ObjectRef {
        api_version: None,
        kind: "File".into(),
        namespace: None,
        name: p.file.clone(),
    });
    out.about(object, Some(p.file.clone()), p.line).message(p.message.clone())
}

/// The problems of the given kinds.
fn problems<'g>(
    graph: &'g edgecheck_core::Graph,
    kinds: &'g [LoadProblemKind],
) -> impl Iterator<Item = &'g LoadProblem> {
    graph.problems.iter().filter(move |p| kinds.contains(&p.kind))
}

#[cfg(test)]
mod tests {
    #[test]
    fn fixtures() {
        let mut cases = crate::test_support::run_layer_fixtures("input");
        // LOD002 needs bytes that are not text; its cases are files written by
        // `crates/edgecheck/tests/cli/lint.rs` (broken-file corpus).
        cases.insert("LOD002".into(), vec![("corpus".into(), true), ("corpus".into(), false)]);
        // LOD007 needs a live scan's unlisted kinds; its cases are unit tests in resource_forbidden.rs
        // and crates/edgecheck_kube/tests (403 from the test API server).
        cases.insert("LOD007".into(), vec![("unit".into(), true), ("unit".into(), false)]);
        // LOD009 is the engine's (what each suppression matched is known only after suppression); its
        // cases are `engine::tests` and `crates/edgecheck/tests/cli/lint.rs`.
        cases.insert("LOD009".into(), vec![("engine".into(), true), ("engine".into(), false)]);
        // LOD010 and LOD011 need real builds and the real helm and kustomize; their cases are
        // `crates/edgecheck/tests/cli/render.rs`.
        for code in ["LOD010", "LOD011"] {
            cases.insert(code.into(), vec![("cli".into(), true), ("cli".into(), false)]);
        }
        crate::test_support::assert_coverage("input", &cases);
    }
}
