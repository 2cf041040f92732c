//! Check metadata and the options that change what checks conclude. The `Check` trait and its
//! context live in `edgecheck_checks`.

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
    /// The other severities its findings may carry (the absence rule, expiry), as its documentation says.
    pub also: &'static [Severity],
    /// Markdown documentation: what, why, example, fix (the check's doc comment).
    pub docs: &'static str,
}

impl CheckMeta {
    /// Every severity its findings may carry: the default first, then the others, most severe first.
    pub fn severities(&self) -> Vec<Severity> {
        let mut out = vec![self.severity];
        for s in [Severity::Error, Severity::Warning, Severity::Info] {
            if s != self.severity && self.also.contains(&s) {
                out.push(s);
            }
        }
        out
    }

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
    /// The inventory is a full dump of a cluster: absence is an error (docs/design.md "Absence").
    /// `None`: decided from the objects (all read from a cluster, Namespaces included).
    pub complete: Option<bool>,
    /// Days before expiry at which a certificate is reported.
    pub expiry_warning_days: i64,
    /// Trust the `status` of every object read from files (test fixtures' `# options: live`). Otherwise
    /// status is live only on objects that carry what the API server writes (`metadata.resourceVersion`
    /// or `uid`: a dump, a scan); a Git repository's `status: {}` is no cluster's word.
    pub trust_file_status: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            default_namespace: "default".into(),
            api_versions: Vec::new(),
            cni: None,
            complete: None,
            expiry_warning_days: 14,
            trust_file_status: false,
        }
    }
}
