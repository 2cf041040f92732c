//! The check interface, the context checks run in, and `declare_check!`.

use edgecheck_core::kind::K;
use edgecheck_core::{CheckMeta, Findings, Graph, Options, Severity};

use crate::model::Model;

/// A check: a pure function over the graph and the status model.
pub trait Check: Sync {
    /// Identity and docs.
    fn meta(&self) -> &'static CheckMeta;
    /// Reports findings.
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>);
}

/// What a check sees.
pub struct CheckContext<'a> {
    /// Objects, views and edges.
    pub graph: &'a Graph,
    /// Conditions a conformant Gateway API implementation would write, and health as Argo CD gives it.
    pub model: &'a Model,
    /// Now, Unix seconds (pinned in tests).
    pub now: i64,
    /// Settings.
    pub options: &'a Options,
    /// Live observations of endpoints (`edgecheck probe`); empty for lint.
    pub observations: &'a [edgecheck_core::observation::TargetObservation],
    /// For each observation whose host the inventory claims, what serves it (computed once per run).
    pub serving: &'a [crate::diagnose::Serving],
    /// Who claims which host, and the indexes the request paths are built from (built once per run).
    pub paths: &'a crate::diagnose::PathIndex<'a>,
    /// The URLs being traced (`trace`); empty for `lint`, `scan` and `probe`.
    pub targets: &'a [crate::diagnose::TraceTarget],
}

impl CheckContext<'_> {
    /// docs/design.md "Absence": the severity for "no `kind` named so in the inventory", or `None` when it
    /// must not be reported. Error on a full cluster dump; warning when the inventory manages that
    /// area (holds objects of `kind`, in `namespace` for namespaced kinds); otherwise silence (the
    /// object may be installed by other means).
    pub fn absence(&self, kind: K, namespace: Option<&str>) -> Option<Severity> {
        self.graph.absence(&kind.to_kind(), namespace)
    }

    /// The severity of a finding about a predicted Gateway API condition: `default`, unless the condition
    /// follows from a missing object, which the model predicts only where the absence rule reports it (an
    /// error on a full dump, a warning where the inventory manages the area).
    pub fn condition_severity(&self, c: &crate::model::ExpectedCondition, default: Severity) -> Severity {
        match (c.from_absence(), self.graph.complete) {
            (false, _) => default,
            (true, true) => Severity::Error,
            (true, false) => Severity::Warning,
        }
    }
}

/// Declares a check: a unit struct whose doc comment is its documentation, with its metadata. `also`
/// (optional) lists the severities other than the default its findings may carry (docs/design.md
/// "Severity": the absence rule, expiry); without it, every finding carries the default.
///
/// ```ignore
/// declare_check! {
///     /// ## What it checks
///     /// ...
///     pub(crate) struct GatewayClassMissing {
///         code: "LSN001", name: "gateway-class-missing", layer: Layer::Listener, severity: Severity::Error,
///         also: [Severity::Warning],
///     }
/// }
/// impl GatewayClassMissing { fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) { ... } }
/// ```
macro_rules! declare_check {
    (
        $(#[doc = $doc:literal])*
        $vis:vis struct $name:ident {
            code: $code:literal, name: $cname:literal, layer: $layer:expr, severity: $sev:expr
            $(, also: [$($also:expr),* $(,)?])? $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        $vis struct $name;

        impl $name {
            /// This check's metadata.
            pub const META: edgecheck_core::CheckMeta = edgecheck_core::CheckMeta {
                code: $code,
                name: $cname,
                layer: $layer,
                severity: $sev,
                also: &[$($($also),*)?],
                docs: concat!($($doc, "\n"),*),
            };
        }

        impl $crate::framework::Check for $name {
            fn meta(&self) -> &'static edgecheck_core::CheckMeta {
                static META: edgecheck_core::CheckMeta = $name::META;
                &META
            }
            fn run(&self, cx: &$crate::framework::CheckContext<'_>, out: &mut edgecheck_core::Findings<'_>) {
                $name::run(self, cx, out);
            }
        }
    };
}
pub(crate) use declare_check;
