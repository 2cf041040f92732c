//! Objects as loaded, with where they came from, and references to objects.

use std::fmt;
use std::sync::Arc;

use crate::value::Value;

use crate::kind::{Kind, K};
use crate::secret::SecretInfo;

/// The kind of [`ObjectRef::endpoint`] references, as JSON shows it.
pub const ENDPOINT_KIND: &str = "Endpoint";

/// A reference to an object, present or not: what findings name and what edges point at.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectRef {
    /// `apiVersion` as written, or the version edgecheck would use for an object it has not seen.
    /// `None` for things that are not Kubernetes objects (a probed endpoint).
    pub api_version: Option<String>,
    /// Kind.
    pub kind: String,
    /// Namespace, for namespaced kinds.
    pub namespace: Option<String>,
    /// Name.
    pub name: String,
}

impl ObjectRef {
    /// A reference to an object of a known kind.
    pub fn new(k: K, namespace: Option<&str>, name: &str) -> ObjectRef {
        let namespaced = k.to_kind().namespaced();
        ObjectRef {
            api_version: Some(k.api_version()),
            kind: k.kind.to_string(),
            namespace: if namespaced { namespace.map(str::to_string) } else { None },
            name: name.to_string(),
        }
    }

    /// A probed endpoint (not a Kubernetes object).
    pub fn endpoint(url: &str) -> ObjectRef {
        ObjectRef { api_version: None, kind: ENDPOINT_KIND.into(), namespace: None, name: url.into() }
    }

    /// Whether this is a probed endpoint made by [`ObjectRef::endpoint`] (a finding of what the probe saw),
    /// not a Kubernetes object: it has no apiVersion.
    pub fn is_endpoint(&self) -> bool {
        self.api_version.is_none() && self.kind == ENDPOINT_KIND
    }

    /// The group/kind of this reference.
    pub fn group_kind(&self) -> Kind {
        Kind::from_api_version(self.api_version.as_deref().unwrap_or(""), &self.kind)
    }
}

impl fmt::Display for ObjectRef {
    /// `` Kind `ns/name` `` as messages write it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{} `{}/{}`", self.kind, ns, self.name),
            None => write!(f, "{} `{}`", self.kind, self.name),
        }
    }
}

/// Lines of the fields of one document, keyed by a hash of the field's path.
///
/// Paths are hashed incrementally while parsing (see [`LineTable::key`] and [`LineTable::index`]),
/// so recording a line costs one `u64` per node and a lookup is a binary search. Once finished, the table
/// is two exact-size arrays (12 bytes a node, not the 16 of a padded pair, and no growth slack).
#[derive(Debug, Default, Clone)]
pub struct LineTable {
    /// Recorded while building, before [`LineTable::finish`].
    pending: Vec<(u64, u32)>,
    /// Sorted path hashes.
    keys: Box<[u64]>,
    /// The line of each of `keys`.
    lines: Box<[u32]>,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

impl LineTable {
    /// The hash of the document root.
    pub const ROOT: u64 = FNV_OFFSET;

    /// The hash of a mapping key below `parent`.
    pub fn key(parent: u64, key: &str) -> u64 {
        let mut h = parent ^ 0x6b;
        h = h.wrapping_mul(FNV_PRIME);
        for b in key.as_bytes() {
            h ^= u64::from(*b);
            h = h.wrapping_mul(FNV_PRIME);
        }
        h ^ 0xff
    }

    /// The hash of a sequence item below `parent`.
    pub fn index(parent: u64, i: usize) -> u64 {
        let mut h = parent ^ 0x69;
        h = h.wrapping_mul(FNV_PRIME);
        for b in (i as u64).to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(FNV_PRIME);
        }
        h
    }

    /// Records the line of the node at `path`.
    pub fn insert(&mut self, path: u64, line: u32) {
        self.pending.push((path, line));
    }

    /// Sorts the table for lookups; call once after the last insert.
    pub fn finish(&mut self) {
        let mut all = std::mem::take(&mut self.pending);
        all.extend(self.keys.iter().copied().zip(self.lines.iter().copied()));
        // Stable: of two records of one path, the first stays (a repeated key keeps its first line).
        all.sort_by_key(|e| e.0);
        all.dedup_by_key(|e| e.0);
        self.keys = all.iter().map(|e| e.0).collect();
        self.lines = all.iter().map(|e| e.1).collect();
    }

    /// The recorded (path hash, line) pairs.
    pub fn entries(&self) -> Vec<(u64, u32)> {
        self.keys.iter().copied().zip(self.lines.iter().copied()).chain(self.pending.iter().copied()).collect()
    }

    /// A table of recorded pairs (read back from the render cache), ready for lookups.
    pub fn from_entries(entries: Vec<(u64, u32)>) -> LineTable {
        let mut t = LineTable { pending: entries, ..LineTable::default() };
        t.finish();
        t
    }

    /// Moves every recorded line through `f`: lines of a rendered document mapped to the lines of the
    /// template it came from.
    pub fn remap(&mut self, f: impl Fn(u32) -> u32) {
        for e in &mut self.pending {
            e.1 = f(e.1);
        }
        for l in self.lines.iter_mut() {
            *l = f(*l);
        }
    }

    /// The line of the node at a hashed path.
    pub fn get(&self, path: u64) -> Option<u32> {
        debug_assert!(self.pending.is_empty(), "a line table is finished before lookups");
        self.keys.binary_search(&path).ok().map(|i| self.lines[i])
    }

    /// Hashes a textual path below `root`: `spec.tls[0].secretName`,
    /// `metadata.annotations["alb.ingress.kubernetes.io/listen-ports"]`.
    pub fn hash_path(root: u64, path: &str) -> u64 {
        let mut h = root;
        let bytes = path.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'.' => i += 1,
                b'[' if bytes.get(i + 1) == Some(&b'"') => {
                    let start = i + 2;
                    let end = path[start..].find("\"]").map_or(path.len(), |e| start + e);
                    h = LineTable::key(h, &path[start..end]);
                    i = end + 2;
                }
                b'[' => {
                    let start = i + 1;
                    let end = path[start..].find(']').map_or(path.len(), |e| start + e);
                    let n = path[start..end].parse::<usize>().unwrap_or(usize::MAX);
                    h = LineTable::index(h, n);
                    i = end + 1;
                }
                _ => {
                    let start = i;
                    let end = path[start..].find(['.', '[']).map_or(path.len(), |e| start + e);
                    h = LineTable::key(h, &path[start..end]);
                    i = end;
                }
            }
        }
        h
    }
}

/// Where an object came from.
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// The file, relative to the path named on the command line where possible; `-` for stdin.
    pub file: Option<String>,
    /// 1-based line of the object's start (its document, or its item in a List).
    pub line: Option<u32>,
    /// Lines of the fields of the object's document.
    pub lines: Option<Arc<LineTable>>,
    /// The hashed path of the object inside its document (the root, or `items[i]`).
    pub root: u64,
    /// For objects read from a cluster: the cluster or context name.
    pub cluster: Option<String>,
    /// The linted checkout the file belongs to (index into the inventory's repos) and the file's
    /// path relative to its root.
    pub repo_path: Option<(usize, String)>,
    /// The file sits in an example, test, archive or vendored directory below the linted root
    /// ([`crate::placement::EXAMPLE_DIRS`]). The loader sets it; [`crate::Graph::build`] clears it when a
    /// build names the file. An object still marked is not what a cluster runs: it is kept (and counted)
    /// but not indexed, linked or checked, never a duplicate and never the target of a reference.
    pub example: bool,
    /// In a repository that has builds, no build applies the file (LOD011): two such files defining one
    /// object are alternatives kept side by side (a runbook's steps, a doc's working and failing versions),
    /// not a duplicate the cluster sees.
    pub loose: bool,
    /// The build that rendered the object (`helm template`, `kustomize build`, a Flux Kustomization),
    /// named as `lint --show-builds` names it; `None` for an object read as it is in its file. `file` and
    /// `lines` then point at the source the user edits (the chart template, the kustomize resource).
    pub build: Option<std::sync::Arc<str>>,
}

/// One Kubernetes object, as loaded. Objects stay dynamic: `value` is the whole object (with the
/// values of Secret data removed); typed views are built from it by the graph.
#[derive(Debug, Clone)]
pub struct Object {
    /// `apiVersion` as written.
    pub api_version: String,
    /// Group and kind.
    pub kind: Kind,
    /// Namespace, defaulted as Kubernetes does for namespaced kinds; `None` for cluster-scoped kinds.
    pub namespace: Option<String>,
    /// `metadata.name` (or `generateName` when no name is set).
    pub name: String,
    /// The object. For Secrets, `data` and `stringData` values are replaced by `null`.
    pub value: Value,
    /// Where it came from.
    pub source: Source,
    /// For Secrets: what was learned from the data, never the values.
    pub secret: Option<Box<SecretInfo>>,
}

impl Object {
    /// The reference to this object.
    pub fn to_ref(&self) -> ObjectRef {
        ObjectRef {
            api_version: Some(self.api_version.clone()),
            kind: self.kind.kind.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
        }
    }

    /// True when the object is of kind `k`.
    pub fn is(&self, k: K) -> bool {
        self.kind.is(k)
    }

    /// The line of the field at `path` (see [`LineTable::hash_path`]), falling back to the object's
    /// start line when the field is not there or the object did not come from a file.
    pub fn line_at(&self, path: &str) -> Option<u32> {
        self.field_line(path).or(self.source.line)
    }

    /// The line of the field at `path`, if the field is there.
    pub fn field_line(&self, path: &str) -> Option<u32> {
        let lines = self.source.lines.as_ref()?;
        lines.get(LineTable::hash_path(self.source.root, path))
    }

    /// A metadata annotation.
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.value.pointer("/metadata/annotations")?.get(key)?.as_str()
    }

    /// A metadata label.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.value.pointer("/metadata/labels")?.get(key)?.as_str()
    }

    /// `metadata.labels` as a map.
    pub fn labels(&self) -> Option<&crate::value::Map> {
        self.value.pointer("/metadata/labels")?.as_object()
    }

    /// True when the object carries live state (`status`, or a `resourceVersion`).
    pub fn has_status(&self) -> bool {
        self.value.get("status").is_some_and(|s| !s.is_null())
    }

    /// True when the object was read from a cluster (it has a `resourceVersion` or `uid`).
    pub fn is_live(&self) -> bool {
        let m = self.value.get("metadata");
        m.and_then(|m| m.get("resourceVersion")).is_some() || m.and_then(|m| m.get("uid")).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_hashes_agree_with_incremental_hashing() {
        let root = LineTable::ROOT;
        let spec = LineTable::key(root, "spec");
        let tls = LineTable::key(spec, "tls");
        let item = LineTable::index(tls, 0);
        let secret = LineTable::key(item, "secretName");
        assert_eq!(LineTable::hash_path(root, "spec.tls[0].secretName"), secret);
        let ann = LineTable::key(LineTable::key(LineTable::key(root, "metadata"), "annotations"), "a.b/c");
        assert_eq!(LineTable::hash_path(root, "metadata.annotations[\"a.b/c\"]"), ann);
        assert_ne!(LineTable::hash_path(root, "spec.tls[1].secretName"), secret);
        assert_ne!(LineTable::key(root, "ab"), LineTable::key(LineTable::key(root, "a"), "b"));
    }

    #[test]
    fn display_names_objects_like_messages_do() {
        let r = ObjectRef::new(K::SECRET, Some("shop"), "web-tls");
        assert_eq!(r.to_string(), "Secret `shop/web-tls`");
        let c = ObjectRef::new(K::CLUSTER_ISSUER, Some("ignored"), "le");
        assert_eq!(c.to_string(), "ClusterIssuer `le`");
    }
}
