//! The check interface, its metadata, the context checks run in, and `declare_check!`.

use crate::graph::Graph;
use crate::kind::K;
use crate::layer::{Layer, Severity};

/// A check's identity and documentation.
#[derive(Debug)]
pub struct CheckMeta {
    /// Stable code: a layer tag and three digits (`TLS003`). Never reused.
    pub code: &'static str,
    /// Kebab-case `<subject>-<problem>` name.
    pub name: &'static str,
    /// Layer of the fault.
    pub layer: Layer,
    /// Default severity.
    pub severity: Severity,
    /// Markdown documentation: what, why, example, fix (the check's doc comment).
    pub docs: &'static str,
}

impl CheckMeta {
    /// The first sentence of the "What it checks" section, for listings.
    pub fn summary(&self) -> String {
        let mut lines = self.docs.lines().map(str::trim).skip_while(|l| l.is_empty() || l.starts_with('#'));
        let mut s = String::new();
        for l in lines.by_ref() {
            if l.is_empty() || l.starts_with('#') {
                break;
            }
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(l);
        }
        s
    }

    /// The documentation with the one leading space of each doc-comment line removed.
    pub fn documentation(&self) -> String {
        self.docs.lines().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect::<Vec<_>>().join("\n").trim().to_string()
    }
}

/// A check: a pure function over the graph (and, later, observations).
pub trait Check: Sync {
    /// Identity and docs.
    fn meta(&self) -> &'static CheckMeta;
    /// Reports findings.
    fn run(&self, cx: &CheckContext<'_>, out: &mut crate::finding::Findings<'_>);
}

/// Settings that change what checks conclude.
#[derive(Debug, Clone)]
pub struct Options {
    /// Namespace for namespaced objects that name none (`default`, or `--namespace`).
    pub default_namespace: String,
    /// API versions the target cluster serves (`--api-versions`, like helm's): `group/version` or
    /// `group/version/Kind`.
    pub api_versions: Vec<String>,
    /// The cluster's CNI when known (`--cni`): `flannel`, `terway`, `cilium`, `calico`, ...
    pub cni: Option<String>,
    /// The inventory is a full dump of a cluster: absence is an error (DESIGN.md "Absence").
    /// `None`: decided from the objects (all read from a cluster).
    pub complete: Option<bool>,
    /// Days before expiry at which a certificate is reported.
    pub expiry_warning_days: i64,
}

impl Default for Options {
    fn default() -> Self {
        Options { default_namespace: "default".into(), api_versions: Vec::new(), cni: None, complete: None, expiry_warning_days: 14 }
    }
}

/// What a check sees.
pub struct CheckContext<'a> {
    /// Objects, views and edges.
    pub graph: &'a Graph,
    /// Now, Unix seconds (pinned in tests).
    pub now: i64,
    /// Settings.
    pub options: &'a Options,
}

impl CheckContext<'_> {
    /// DESIGN.md "Absence": the severity for "no `kind` named so in the inventory", or `None` when it
    /// must not be reported. Error on a full cluster dump; warning when the inventory manages that
    /// area (holds objects of `kind`, in `namespace` for namespaced kinds); otherwise silence (the
    /// object may be installed by other means).
    pub fn absence(&self, kind: K, namespace: Option<&str>) -> Option<Severity> {
        if self.graph.complete {
            return Some(Severity::Error);
        }
        let manages = if kind.to_kind().namespaced() {
            namespace.is_some_and(|ns| self.graph.count_in_namespace(kind, ns) > 0)
        } else {
            self.graph.count(kind) > 0
        };
        manages.then_some(Severity::Warning)
    }
}

/// Declares a check: a unit struct whose doc comment is its documentation, with its metadata.
///
/// ```ignore
/// declare_check! {
///     /// ## What it checks
///     /// ...
///     pub(crate) struct GatewayClassMissing {
///         code: "LSN001", name: "gateway-class-missing", layer: Layer::Listener, severity: Severity::Error,
///     }
/// }
/// impl GatewayClassMissing { fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) { ... } }
/// ```
#[macro_export]
macro_rules! declare_check {
    (
        $(#[doc = $doc:literal])*
        $vis:vis struct $name:ident {
            code: $code:literal, name: $cname:literal, layer: $layer:expr, severity: $sev:expr $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        $vis struct $name;

        impl $name {
            /// This check's metadata.
            pub const META: $crate::CheckMeta = $crate::CheckMeta {
                code: $code,
                name: $cname,
                layer: $layer,
                severity: $sev,
                docs: concat!($($doc, "\n"),*),
            };
        }

        impl $crate::Check for $name {
            fn meta(&self) -> &'static $crate::CheckMeta {
                static META: $crate::CheckMeta = $name::META;
                &META
            }
            fn run(&self, cx: &$crate::CheckContext<'_>, out: &mut $crate::Findings<'_>) {
                $name::run(self, cx, out);
            }
        }
    };
}
