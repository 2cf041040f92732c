//! Objects as loaded, with where they came from, and references to objects.

use std::fmt;
use std::sync::Arc;

use crate::doc::{Doc, MapRef};

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
/// so recording a line costs one `u64` per node and a lookup is a binary search. A finished table is one
/// exact-size allocation of 6 bytes a node (#17): each hash folded to 32 bits, unless two of the document's
/// paths fold alike (then the table keeps whole hashes), and each line an offset in 16 bits from the
/// document's first, unless the document spans 65,536 lines or more. Its words: the node count with the two
/// choices in its top bits, the first line, the sorted keys (one word each, or two), then the lines (two to a
/// word, or one). Cloning shares the words: the objects of one document (a `List`'s items) hold one table,
/// and an object holds it without a box of its own.
#[derive(Debug, Clone)]
pub struct LineTable {
    words: Arc<[u32]>,
}

impl Default for LineTable {
    fn default() -> LineTable {
        LineTable { words: Arc::from(Vec::new()) }
    }
}

/// Keys are whole 64-bit hashes (two words each).
const WHOLE: u32 = 1 << 31;
/// Lines are full words (not 16-bit offsets from the first).
const FAR: u32 = 1 << 30;
const COUNT: u32 = FAR - 1;

/// A path hash in 32 bits. Folding is idempotent on a folded hash, so a folded table's entries read back
/// (the render cache) fold to themselves.
fn fold(h: u64) -> u32 {
    (h ^ (h >> 32)) as u32
}

/// Records (path hash, line) pairs for a [`LineTable`].
#[derive(Debug, Default)]
pub struct LineRecorder {
    pending: Vec<(u64, u32)>,
}

impl LineRecorder {
    /// Records the line of the node at `path`.
    pub fn insert(&mut self, path: u64, line: u32) {
        self.pending.push((path, line));
    }

    /// The table, ready for lookups.
    pub fn finish(self) -> LineTable {
        LineTable::from_entries(self.pending)
    }
}

impl LineTable {
    fn n(&self) -> usize {
        self.words.first().map_or(0, |w| (w & COUNT) as usize)
    }

    fn flags(&self) -> u32 {
        self.words.first().map_or(0, |w| w & !COUNT)
    }

    /// The key at `i`, as stored (folded or whole).
    fn key_at(&self, i: usize) -> u64 {
        if self.flags() & WHOLE != 0 {
            (u64::from(self.words[2 + 2 * i]) << 32) | u64::from(self.words[2 + 2 * i + 1])
        } else {
            u64::from(self.words[2 + i])
        }
    }

    /// The line at `i`.
    fn line_at(&self, i: usize) -> u32 {
        let n = self.n();
        let lines = 2 + if self.flags() & WHOLE != 0 { 2 * n } else { n };
        if self.flags() & FAR != 0 {
            self.words[lines + i]
        } else {
            let w = self.words[lines + i / 2];
            self.words[1] + if i.is_multiple_of(2) { w & 0xffff } else { w >> 16 }
        }
    }

    /// A table of (path hash, line) pairs; of two pairs of one path, the first is kept (a repeated key keeps
    /// its first line).
    fn build(mut all: Vec<(u64, u32)>) -> LineTable {
        // Stable: of two records of one path, the first stays.
        all.sort_by_key(|e| e.0);
        all.dedup_by_key(|e| e.0);
        if all.is_empty() {
            return LineTable::default();
        }
        let mut folded: Vec<(u32, u32)> = all.iter().map(|e| (fold(e.0), e.1)).collect();
        folded.sort_unstable_by_key(|e| e.0);
        let whole = folded.windows(2).any(|w| w[0].0 == w[1].0);
        let base = all.iter().map(|e| e.1).min().unwrap_or(0);
        let far = all.iter().any(|e| e.1 - base > 0xffff);
        let n = all.len().min(COUNT as usize);
        let mut words = Vec::with_capacity(2 + 2 * n + n);
        words.push(u32::try_from(n).unwrap_or(COUNT) | if whole { WHOLE } else { 0 } | if far { FAR } else { 0 });
        words.push(base);
        let lines: Vec<u32> = if whole {
            for e in &all[..n] {
                words.push((e.0 >> 32) as u32);
                words.push(e.0 as u32);
            }
            all[..n].iter().map(|e| e.1).collect()
        } else {
            words.extend(folded[..n].iter().map(|e| e.0));
            folded[..n].iter().map(|e| e.1).collect()
        };
        if far {
            words.extend(lines);
        } else {
            words.extend(lines.chunks(2).map(|c| (c[0] - base) | c.get(1).map_or(0, |l| (l - base) << 16)));
        }
        LineTable { words: Arc::from(words) }
    }
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

    /// The recorded (path hash, line) pairs, keys as stored (folded or whole).
    pub fn entries(&self) -> Vec<(u64, u32)> {
        (0..self.n()).map(|i| (self.key_at(i), self.line_at(i))).collect()
    }

    /// A table of recorded pairs (read back from the render cache), ready for lookups.
    pub fn from_entries(entries: Vec<(u64, u32)>) -> LineTable {
        LineTable::build(entries)
    }

    /// Moves every recorded line through `f`: lines of a rendered document mapped to the lines of the
    /// template it came from.
    pub fn remap(&mut self, f: impl Fn(u32) -> u32) {
        let entries = self.entries().into_iter().map(|(k, l)| (k, f(l))).collect();
        *self = LineTable::build(entries);
    }

    /// The line of the node at a hashed path.
    pub fn get(&self, path: u64) -> Option<u32> {
        let n = self.n();
        let key = if self.flags() & WHOLE != 0 { path } else { u64::from(fold(path)) };
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.key_at(mid).cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(self.line_at(mid)),
            }
        }
        None
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
    /// The file, relative to the path named on the command line where possible; `-` for stdin. Shared by
    /// the objects of one file.
    pub file: Option<Arc<str>>,
    /// 1-based line of the object's start (its document, or its item in a List).
    pub line: Option<u32>,
    /// Lines of the fields of the object's document.
    pub lines: Option<LineTable>,
    /// The hashed path of the object inside its document (the root, or `items[i]`).
    pub root: u64,
    /// For objects read from a cluster: the cluster or context name.
    pub cluster: Option<Arc<str>>,
    /// The linted checkout the file belongs to (index into the inventory's repos) and the file's
    /// path relative to its root.
    pub repo_path: Option<(usize, Arc<str>)>,
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
    pub api_version: crate::value::Str,
    /// Group and kind.
    pub kind: Kind,
    /// Namespace, defaulted as Kubernetes does for namespaced kinds; `None` for cluster-scoped kinds.
    pub namespace: Option<String>,
    /// `metadata.name` (or `generateName` when no name is set).
    pub name: String,
    /// The object, packed ([`Doc`]). For Secrets, `data` and `stringData` values are replaced by `null`.
    pub value: Doc,
    /// Where it came from.
    pub source: Source,
    /// For Secrets: what was learned from the data, never the values.
    pub secret: Option<Box<SecretInfo>>,
}

impl Object {
    /// The reference to this object.
    pub fn to_ref(&self) -> ObjectRef {
        ObjectRef {
            api_version: Some(self.api_version.to_string()),
            kind: self.kind.kind.to_string(),
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
        // Looked up directly (no pointer to parse): every check asks every object for some annotation.
        self.value.get("metadata")?.get("annotations")?.get(key)?.as_str()
    }

    /// A metadata label.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.value.get("metadata")?.get("labels")?.get(key)?.as_str()
    }

    /// `metadata.labels` as a map.
    pub fn labels(&self) -> Option<MapRef<'_>> {
        self.value.get("metadata")?.get("labels")?.as_object()
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

    fn table(pairs: &[(u64, u32)]) -> LineTable {
        let mut r = LineRecorder::default();
        pairs.iter().for_each(|(k, l)| r.insert(*k, *l));
        r.finish()
    }

    #[test]
    fn a_line_table_folds_hashes_and_lines_and_reads_back_what_was_recorded() {
        let keys: Vec<u64> = (0..200).map(|i| LineTable::index(LineTable::ROOT, i)).collect();
        let pairs: Vec<(u64, u32)> = keys.iter().enumerate().map(|(i, k)| (*k, 1000 + i as u32 * 3)).collect();
        let t = table(&pairs);
        // Folded keys, 16-bit lines from 1000: 6 bytes a node, in one allocation.
        assert_eq!((t.flags(), t.words[1], t.words.len()), (0, 1000, 2 + 200 + 100));
        for (k, l) in &pairs {
            assert_eq!(t.get(*k), Some(*l));
        }
        assert_eq!(t.get(LineTable::key(LineTable::ROOT, "absent")), None);
        // A repeated path keeps its first line.
        let t = table(&[(keys[0], 7), (keys[0], 9)]);
        assert_eq!(t.get(keys[0]), Some(7));
        // Read back from its entries (the render cache), and remapped, it answers the same.
        let mut back = LineTable::from_entries(table(&pairs).entries());
        assert_eq!(back.get(keys[5]), Some(1015));
        back.remap(|l| l + 1);
        assert_eq!(back.get(keys[5]), Some(1016));
    }

    #[test]
    fn hashes_that_fold_alike_and_documents_of_many_lines_are_kept_whole() {
        // Both fold to 1: the table keeps whole hashes and tells them apart.
        let (a, b) = (0x0000_0001_0000_0000_u64, 0x0000_0000_0000_0001_u64);
        let t = table(&[(a, 3), (b, 70_000), (LineTable::ROOT, 1)]);
        assert_eq!(t.flags(), WHOLE | FAR, "70,000 lines apart is beyond 16 bits: {t:?}");
        assert_eq!((t.get(a), t.get(b), t.get(LineTable::ROOT)), (Some(3), Some(70_000), Some(1)));
        assert_eq!(t.get(0x0000_0002_0000_0003), None);
        let back = LineTable::from_entries(t.entries());
        assert_eq!((back.get(a), back.get(b)), (Some(3), Some(70_000)));
        assert_eq!(LineTable::default().get(LineTable::ROOT), None);
        assert_eq!(LineRecorder::default().finish().entries(), []);
    }

    #[test]
    fn display_names_objects_like_messages_do() {
        let r = ObjectRef::new(K::SECRET, Some("shop"), "web-tls");
        assert_eq!(r.to_string(), "Secret `shop/web-tls`");
        let c = ObjectRef::new(K::CLUSTER_ISSUER, Some("ignored"), "le");
        assert_eq!(c.to_string(), "ClusterIssuer `le`");
    }
}
