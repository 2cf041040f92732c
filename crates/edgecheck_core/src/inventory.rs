//! The inventory: every object as loaded, plus what could not be loaded.

use crate::object::Object;

/// Why some input could not be (fully) loaded. Each becomes an `input` finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum LoadProblemKind {
    /// YAML that does not parse.
    YamlSyntax,
    /// JSON that does not parse.
    JsonSyntax,
    /// A file that could not be read.
    Unreadable,
    /// A file that holds binary data or is not UTF-8.
    Binary,
    /// A PEM block in a Secret that does not decode (truncated, bad base64, not a certificate/key).
    BadPem,
    /// A Secret `data` value that is not valid base64.
    BadBase64,
    /// The same kind, namespace and name twice.
    Duplicate,
    /// A document with apiVersion and kind but no usable metadata.name.
    NoName,
}

/// One problem met while loading.
#[derive(Debug, Clone)]
pub struct LoadProblem {
    /// What went wrong.
    pub kind: LoadProblemKind,
    /// The file (or `-`).
    pub file: String,
    /// The 1-based line where it went wrong, when known.
    pub line: Option<u32>,
    /// What the parser said, or what was seen.
    pub message: String,
    /// The object involved, when there is one.
    pub object: Option<crate::object::ObjectRef>,
    /// Another place involved (the first occurrence of a duplicate).
    pub other: Option<(String, Option<u32>)>,
}

/// A git checkout that was linted (its root and its remotes' URLs).
#[derive(Debug, Clone, Default)]
pub struct RepoInfo {
    /// The working tree root as given or found.
    pub root: std::path::PathBuf,
    /// URLs of the checkout's remotes.
    pub remotes: Vec<String>,
    /// Every directory of the working tree, relative to its root, `/`-separated, no leading `./`.
    pub dirs: std::collections::BTreeSet<String>,
    /// Every file of the working tree, relative to its root.
    pub files: std::collections::BTreeSet<String>,
}

/// Everything loaded.
#[derive(Debug, Default)]
pub struct Inventory {
    /// The objects, in load order (file order, then document order).
    pub objects: Vec<Object>,
    /// What could not be loaded.
    pub problems: Vec<LoadProblem>,
    /// Documents skipped because they are not Kubernetes objects (no apiVersion/kind).
    pub skipped_documents: usize,
    /// Files skipped because they are Helm chart templates.
    pub skipped_templates: usize,
    /// Files read.
    pub files: usize,
    /// The git checkouts the linted paths belong to.
    pub repos: Vec<RepoInfo>,
    /// `namespace:` of kustomization files, by the directory (as in `Source::file`) they sit in.
    pub dir_namespaces: Vec<(String, String)>,
}

impl Inventory {
    /// Counts every Kubernetes object loaded (DESIGN.md `summary.objects`).
    pub fn object_count(&self) -> usize {
        self.objects.len()
    }
}
