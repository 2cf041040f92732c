//! Objects as loaded, with where they came from, and references to objects.

use std::fmt;
use std::sync::Arc;

use crate::doc::{Doc, MapRef};

use crate::kind::{Kind, K};
use crate::secret::SecretInfo;
use crate::value::Str;

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

/// Lines of the fields of one parsed document, keyed by a hash of the field's path. A held object carries
/// its fields' lines in its [`crate::Doc`] ([`crate::Doc::with_lines`]); the table is what the parser
/// records them in, and what a values file or a kustomization is read with.
///
/// Paths are hashed incrementally while parsing (see [`LineTable::key`] and [`LineTable::index`]),
/// so recording a line costs one `u64` per node and a lookup is a binary search. A finished table is one
/// exact-size allocation of 5 bytes a node for most documents (#17): each hash folded to 32 bits, or kept
/// whole when two of the document's paths fold alike (not 24: `field_line(..).is_some()` is read as "the field
/// is there", and 24 bits answered for absent fields 256 times as often); each line an offset from the
/// document's first in 8 bits, or 16, or 32 as the document's span needs. Its bytes: the two widths,
/// the node count and the first line (a 9-byte head), the sorted keys, then the lines, all little-endian.
/// Cloning shares the bytes: the objects of one document (a `List`'s items) hold one table, and an object
/// holds it without a box of its own.
#[derive(Debug, Clone)]
pub struct LineTable {
    bytes: Arc<[u8]>,
}

impl Default for LineTable {
    fn default() -> LineTable {
        LineTable { bytes: Arc::from(Vec::new()) }
    }
}

/// The head: key width and line width (one byte), node count, first line.
const HEAD: usize = 9;

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

fn read_le(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0, |acc, b| (acc << 8) | u64::from(*b))
}

impl LineTable {
    fn n(&self) -> usize {
        self.bytes.get(1..5).map_or(0, |b| read_le(b) as usize)
    }

    /// Bytes a key takes: 4 or 8.
    fn key_width(&self) -> usize {
        usize::from(self.bytes.first().map_or(8, |w| w & 0x0f))
    }

    /// Bytes a line takes: 1, 2 or 4.
    fn line_width(&self) -> usize {
        usize::from(self.bytes.first().map_or(4, |w| w >> 4))
    }

    /// The key at `i`, as stored (folded or whole).
    fn key_at(&self, i: usize) -> u64 {
        let w = self.key_width();
        read_le(&self.bytes[HEAD + i * w..HEAD + (i + 1) * w])
    }

    /// The line at `i`.
    fn line_at(&self, i: usize) -> u32 {
        let w = self.line_width();
        let at = HEAD + self.n() * self.key_width() + i * w;
        let base = read_le(&self.bytes[5..HEAD]) as u32;
        base + read_le(&self.bytes[at..at + w]) as u32
    }

    /// A table of (path hash, line) pairs; of two pairs of one path, the first is kept (a repeated key keeps
    /// its first line).
    fn build(mut all: Vec<(u64, u32)>) -> LineTable {
        // Stable: of two records of one path, the first stays.
        all.sort_by_key(|e| e.0);
        all.dedup_by_key(|e| e.0);
        all.truncate(u32::MAX as usize);
        if all.is_empty() {
            return LineTable::default();
        }
        let distinct = |keyed: &mut Vec<(u64, u32)>| {
            keyed.sort_unstable_by_key(|e| e.0);
            keyed.windows(2).all(|w| w[0].0 != w[1].0)
        };
        let mut keyed: Vec<(u64, u32)> = all.iter().map(|e| (u64::from(fold(e.0)), e.1)).collect();
        let key_width: u8 = if distinct(&mut keyed) {
            4
        } else {
            keyed = all;
            8
        };
        let base = keyed.iter().map(|e| e.1).min().unwrap_or(0);
        let span = keyed.iter().map(|e| e.1 - base).max().unwrap_or(0);
        let line_width: u8 = match span {
            0..=0xff => 1,
            0x100..=0xffff => 2,
            _ => 4,
        };
        let n = keyed.len();
        let mut bytes = Vec::with_capacity(HEAD + n * usize::from(key_width + line_width));
        bytes.push(key_width | (line_width << 4));
        bytes.extend_from_slice(&(n as u32).to_le_bytes());
        bytes.extend_from_slice(&base.to_le_bytes());
        for e in &keyed {
            bytes.extend_from_slice(&e.0.to_le_bytes()[..usize::from(key_width)]);
        }
        for e in &keyed {
            bytes.extend_from_slice(&(e.1 - base).to_le_bytes()[..usize::from(line_width)]);
        }
        LineTable { bytes: Arc::from(bytes) }
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
        let key = if self.key_width() == 4 { u64::from(fold(path)) } else { path };
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
        PathStep::parse(path).fold(root, |h, step| match step {
            PathStep::Key(k) => LineTable::key(h, k),
            PathStep::Index(i) => LineTable::index(h, i),
        })
    }
}

/// One step of a textual field path ([`LineTable::hash_path`]): a map key or an array position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathStep<'a> {
    /// `.name`, or `["a/b"]` for a key with dots or slashes.
    Key(&'a str),
    /// `[0]`; a position that is no number reads as `usize::MAX` (no element).
    Index(usize),
}

impl<'a> PathStep<'a> {
    /// The steps of `path`, in order.
    pub fn parse(path: &'a str) -> impl Iterator<Item = PathStep<'a>> {
        let bytes = path.as_bytes();
        let mut i = 0;
        std::iter::from_fn(move || {
            while bytes.get(i) == Some(&b'.') {
                i += 1;
            }
            if i >= bytes.len() {
                return None;
            }
            Some(match bytes[i] {
                b'[' if bytes.get(i + 1) == Some(&b'"') => {
                    let start = i + 2;
                    let end = path[start..].find("\"]").map_or(path.len(), |e| start + e);
                    i = end + 2;
                    PathStep::Key(&path[start..end])
                }
                b'[' => {
                    let start = i + 1;
                    let end = path[start..].find(']').map_or(path.len(), |e| start + e);
                    i = end + 1;
                    PathStep::Index(path[start..end].parse::<usize>().unwrap_or(usize::MAX))
                }
                _ => {
                    let start = i;
                    let end = path[start..].find(['.', '[']).map_or(path.len(), |e| start + e);
                    i = end;
                    PathStep::Key(&path[start..end])
                }
            })
        })
    }
}

/// Where an object came from.
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// The file and its place in a checkout ([`Source::file`], [`Source::repo_path`]): one shared box for
    /// the objects of a file, absent for an object from no file (#17: two fields of 40 bytes an object).
    at: Option<FileRef>,
    /// 1-based line of the object's start (its document, or its item in a List), 0 for none
    /// ([`Source::line`]: 4 bytes, not 8, #17).
    line: u32,
    /// The file sits in an example, test, archive or vendored directory below the linted root
    /// ([`crate::placement::EXAMPLE_DIRS`]). The loader sets it; [`crate::Graph::build`] clears it when a
    /// build names the file. An object still marked is not what a cluster runs: it is kept (and counted)
    /// but not indexed, linked or checked, never a duplicate and never the target of a reference.
    pub example: bool,
    /// In a repository that has builds, no build applies the file (LOD011): two such files defining one
    /// object are alternatives kept side by side (a runbook's steps, a doc's working and failing versions),
    /// not a duplicate the cluster sees.
    pub loose: bool,
    /// The cluster it was read from, or the build that rendered it ([`Source::cluster`], [`Source::build`]):
    /// one box, absent for an object read as it is in its file (most of a repository's; #17).
    origin: Option<Box<Origin>>,
}

/// A file objects were read from, and where it sits in a linted checkout: shared by the objects of the file
/// (cloning it is a reference count).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef(Arc<FileAt>);

/// A file's name and its place in a checkout, in one buffer: the name, then the path in the checkout unless
/// the name ends with it (as it does for every file below a linted checkout's root).
#[derive(Debug, PartialEq, Eq)]
struct FileAt {
    text: Box<str>,
    /// Length of the name in `text`; [`FileAt::NONE`] when there is no file.
    file_len: u32,
    /// Where the path in the checkout starts in `text`.
    rel_start: u32,
    /// The checkout (index into the inventory's repos); [`FileAt::NONE`] when not placed.
    repo: u32,
}

impl FileAt {
    const NONE: u32 = u32::MAX;

    fn new(file: Option<&str>, repo_path: Option<(usize, &str)>) -> FileAt {
        let at = |n: usize| u32::try_from(n).unwrap_or(FileAt::NONE - 1);
        let name = file.unwrap_or("");
        let mut text = String::from(name);
        let (repo, rel_start) = match repo_path {
            None => (FileAt::NONE, 0),
            Some((r, rel)) if name.ends_with(rel) => (at(r), name.len() - rel.len()),
            Some((r, rel)) => {
                text.push_str(rel);
                (at(r), name.len())
            }
        };
        let file_len = if file.is_some() { at(name.len()) } else { FileAt::NONE };
        FileAt { text: text.into_boxed_str(), file_len, rel_start: at(rel_start), repo }
    }

    fn file(&self) -> Option<&str> {
        (self.file_len != FileAt::NONE).then(|| &self.text[..self.file_len as usize])
    }

    fn repo_path(&self) -> Option<(usize, &str)> {
        (self.repo != FileAt::NONE).then(|| (self.repo as usize, &self.text[self.rel_start as usize..]))
    }
}

impl FileRef {
    /// The file `name` (relative to the path named on the command line where possible; `-` for stdin), not
    /// placed in a checkout.
    pub fn new(name: &str) -> FileRef {
        FileRef(Arc::new(FileAt::new(Some(name), None)))
    }

    /// The same file placed at `repo_path` (see [`Source::repo_path`]).
    pub fn placed(&self, repo_path: Option<(usize, &str)>) -> FileRef {
        FileRef(Arc::new(FileAt::new(self.0.file(), repo_path)))
    }

    /// The file's name (`""` for a place with no file).
    pub fn name(&self) -> &str {
        self.0.file().unwrap_or("")
    }

    /// Whether `self` and `other` are one shared file (not only equal).
    pub fn same(&self, other: &FileRef) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Where an object that is not read as it is in its file comes from.
#[derive(Debug, Clone, Default)]
struct Origin {
    cluster: Option<Arc<str>>,
    build: Option<Arc<str>>,
}

impl Source {
    /// 1-based line of the object's start (its document, or its item in a List).
    pub fn line(&self) -> Option<u32> {
        (self.line != 0).then_some(self.line)
    }

    /// Sets the object's start line (line 0, which no file has, reads as none).
    pub fn set_line(&mut self, line: Option<u32>) {
        self.line = line.unwrap_or(0);
    }

    /// The file, relative to the path named on the command line where possible; `-` for stdin.
    pub fn file(&self) -> Option<&str> {
        self.at.as_ref()?.0.file()
    }

    /// The linted checkout the file belongs to (index into the inventory's repos) and the file's path
    /// relative to its root.
    pub fn repo_path(&self) -> Option<(usize, &str)> {
        self.at.as_ref()?.0.repo_path()
    }

    /// The shared file (to give the other objects of the file).
    pub fn file_ref(&self) -> Option<&FileRef> {
        self.at.as_ref()
    }

    /// Sets the shared file.
    pub fn set_file_ref(&mut self, at: Option<FileRef>) {
        self.at = at;
    }

    /// Sets the file (its place in a checkout kept).
    pub fn set_file(&mut self, file: Option<&str>) {
        let repo_path = self.repo_path();
        self.at = (file.is_some() || repo_path.is_some()).then(|| FileRef(Arc::new(FileAt::new(file, repo_path))));
    }

    /// Sets the place in a checkout (the file kept). Objects of one file share a place:
    /// [`FileRef::placed`] gives it once.
    pub fn set_repo_path(&mut self, repo_path: Option<(usize, &str)>) {
        let file = self.file();
        self.at = (file.is_some() || repo_path.is_some()).then(|| FileRef(Arc::new(FileAt::new(file, repo_path))));
    }

    /// For objects read from a cluster: the cluster or context name.
    pub fn cluster(&self) -> Option<&str> {
        self.origin.as_ref()?.cluster.as_deref()
    }

    /// The build that rendered the object (`helm template`, `kustomize build`, a Flux Kustomization),
    /// named as `lint --show-builds` names it; `None` for an object read as it is in its file. `file` and
    /// `lines` then point at the source the user edits (the chart template, the kustomize resource).
    pub fn build(&self) -> Option<&str> {
        self.origin.as_ref()?.build.as_deref()
    }

    /// Sets the cluster it was read from.
    pub fn set_cluster(&mut self, cluster: Option<Arc<str>>) {
        self.origin.get_or_insert_with(Box::default).cluster = cluster;
        self.drop_empty_origin();
    }

    /// Sets the build that rendered it.
    pub fn set_build(&mut self, build: Option<Arc<str>>) {
        self.origin.get_or_insert_with(Box::default).build = build;
        self.drop_empty_origin();
    }

    fn drop_empty_origin(&mut self) {
        if self.origin.as_ref().is_some_and(|o| o.cluster.is_none() && o.build.is_none()) {
            self.origin = None;
        }
    }
}

/// One Kubernetes object, as loaded. Objects stay dynamic: `value` is the whole object (with the
/// values of Secret data removed); typed views are built from it by the graph.
#[derive(Debug, Clone)]
pub struct Object {
    /// Group and kind, and `apiVersion` as written ([`Object::api_version`]).
    pub kind: crate::kind::ObjKind,
    /// Namespace, defaulted as Kubernetes does for namespaced kinds; `None` for cluster-scoped kinds.
    pub namespace: Option<Str>,
    /// `metadata.name` (or `generateName` when no name is set).
    pub name: Str,
    /// The object, packed ([`Doc`]). For Secrets, `data` and `stringData` values are replaced by `null`.
    pub value: Doc,
    /// Where it came from.
    pub source: Source,
    /// For Secrets: what was learned from the data, never the values.
    pub secret: Option<Box<SecretInfo>>,
}

impl Object {
    /// `apiVersion` as written.
    pub fn api_version(&self) -> &str {
        self.kind.api_version()
    }

    /// The reference to this object.
    pub fn to_ref(&self) -> ObjectRef {
        ObjectRef {
            api_version: Some(self.api_version().to_string()),
            kind: self.kind.kind.to_string(),
            namespace: self.namespace.as_deref().map(str::to_string),
            name: self.name.to_string(),
        }
    }

    /// True when the object is of kind `k`.
    pub fn is(&self, k: K) -> bool {
        self.kind.is(k)
    }

    /// The line of the field at `path` (see [`LineTable::hash_path`]), falling back to the object's
    /// start line when the field is not there or the object did not come from a file.
    pub fn line_at(&self, path: &str) -> Option<u32> {
        self.field_line(path).or(self.source.line())
    }

    /// The line of the field at `path`, if the field is there.
    pub fn field_line(&self, path: &str) -> Option<u32> {
        self.value.line_at(path)
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
        let pairs: Vec<(u64, u32)> = keys.iter().enumerate().map(|(i, k)| (*k, 1000 + i as u32)).collect();
        let t = table(&pairs);
        // 32-bit keys, 8-bit lines from 1000: 5 bytes a node and a 9-byte head, in one allocation.
        assert_eq!((t.key_width(), t.line_width(), t.bytes.len()), (4, 1, HEAD + 200 * 5));
        for (k, l) in &pairs {
            assert_eq!(t.get(*k), Some(*l));
        }
        assert_eq!(t.get(LineTable::key(LineTable::ROOT, "absent")), None);
        // A repeated path keeps its first line.
        let t = table(&[(keys[0], 7), (keys[0], 9)]);
        assert_eq!(t.get(keys[0]), Some(7));
        // Read back from its entries (the render cache), and remapped, it answers the same.
        let mut back = LineTable::from_entries(table(&pairs).entries());
        assert_eq!(back.key_width(), 4);
        assert_eq!(back.get(keys[5]), Some(1005));
        back.remap(|l| l * 1000);
        assert_eq!((back.line_width(), back.get(keys[5])), (4, Some(1_005_000)));
        // Spans past 8 bits take 16.
        let wide: Vec<(u64, u32)> = keys.iter().enumerate().map(|(i, k)| (*k, 1000 + i as u32 * 3)).collect();
        let t = table(&wide);
        assert_eq!((t.key_width(), t.line_width()), (4, 2));
        assert!(wide.iter().all(|(k, l)| t.get(*k) == Some(*l)));
    }

    #[test]
    fn hashes_that_fold_alike_are_kept_wider() {
        // Alike in 32 bits: whole hashes, and a span beyond 16 bits.
        let (a, b) = (0x0000_0001_0000_0000_u64, 0x0000_0000_0000_0001_u64);
        let t = table(&[(a, 3), (b, 70_000), (LineTable::ROOT, 1)]);
        assert_eq!((t.key_width(), t.line_width()), (8, 4), "{t:?}");
        assert_eq!((t.get(a), t.get(b), t.get(LineTable::ROOT)), (Some(3), Some(70_000), Some(1)));
        assert_eq!(t.get(0x0000_0002_0000_0003), None);
        let back = LineTable::from_entries(t.entries());
        assert_eq!((back.get(a), back.get(b)), (Some(3), Some(70_000)));
        assert_eq!(LineTable::default().get(LineTable::ROOT), None);
        assert_eq!(LineRecorder::default().finish().entries(), []);
    }

    #[test]
    fn random_tables_answer_every_recorded_path() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..300 {
            let n = (next() % 600) as usize;
            let spread = [10_u64, 1_000, 100_000][round % 3];
            let pairs: Vec<(u64, u32)> = (0..n).map(|_| (next(), 1 + (next() % spread) as u32)).collect();
            let t = table(&pairs);
            let mut first = std::collections::BTreeMap::new();
            for (k, l) in &pairs {
                first.entry(*k).or_insert(*l);
            }
            for (k, l) in &first {
                assert_eq!(t.get(*k), Some(*l), "round {round}");
            }
            // Paths that were not recorded are not found (a 32-bit fold makes a false hit one in 2^32 / n).
            let absent = (0..200).map(|_| next()).filter(|k| !first.contains_key(k));
            assert!(absent.into_iter().all(|k| t.get(k).is_none()), "round {round} absent");
            let back = LineTable::from_entries(t.entries());
            assert!(first.iter().all(|(k, l)| back.get(*k) == Some(*l)), "round {round} read back");
        }
    }

    #[test]
    fn a_source_sets_its_file_and_its_place_apart() {
        let mut s = Source::default();
        assert_eq!((s.file(), s.repo_path()), (None, None));
        s.set_repo_path(Some((2, "apps/a.yaml")));
        assert_eq!((s.file(), s.repo_path()), (None, Some((2, "apps/a.yaml"))));
        s.set_file(Some("./apps/a.yaml"));
        assert_eq!((s.file(), s.repo_path()), (Some("./apps/a.yaml"), Some((2, "apps/a.yaml"))));
        s.set_repo_path(None);
        assert_eq!((s.file(), s.repo_path()), (Some("./apps/a.yaml"), None));
        s.set_file(None);
        assert!(s.file_ref().is_none(), "nothing left to hold");
        // A placed file is a new shared file: the objects given it agree, the unplaced one is unchanged.
        let at = FileRef::new("x.yaml");
        let placed = at.placed(Some((0, "dir/x.yaml")));
        assert!(!placed.same(&at) && placed.same(&placed.clone()));
        s.set_file_ref(Some(placed.clone()));
        assert_eq!((s.file(), s.repo_path()), (Some("x.yaml"), Some((0, "dir/x.yaml"))));
        assert_eq!(at.name(), "x.yaml");
        // The path in the checkout is the name's tail, or not; either is given back whole.
        for (file, rel) in
            [("apps/x.yaml", "apps/x.yaml"), ("./apps/x.yaml", "apps/x.yaml"), ("../a/x.yaml", "b/x.yaml")]
        {
            let placed = FileRef::new(file).placed(Some((1, rel)));
            s.set_file_ref(Some(placed));
            assert_eq!((s.file(), s.repo_path()), (Some(file), Some((1, rel))));
        }
        s.set_file(Some(""));
        assert_eq!((s.file(), s.repo_path()), (Some(""), Some((1, "b/x.yaml"))));
    }

    #[test]
    fn display_names_objects_like_messages_do() {
        let r = ObjectRef::new(K::SECRET, Some("shop"), "web-tls");
        assert_eq!(r.to_string(), "Secret `shop/web-tls`");
        let c = ObjectRef::new(K::CLUSTER_ISSUER, Some("ignored"), "le");
        assert_eq!(c.to_string(), "ClusterIssuer `le`");
    }
}
