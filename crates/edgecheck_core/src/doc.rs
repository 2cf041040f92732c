//! Objects' documents, held packed (#17).
//!
//! A held object's document was a tree of [`Value`]s: 48 bytes a map entry, 24 an array element and an
//! allocation for every map and array, about 1.7 times the YAML on disk and the largest part of a large
//! lint's memory. A [`Doc`] is the same document written once into one exact-size byte buffer and read in
//! place: [`ValueRef`] (a node), [`MapRef`] and [`SeqRef`] have `Value`'s reading methods (`get`,
//! `pointer`, `as_str`, `as_array`, `as_object`, ...) and lend their strings from the buffer, and a
//! `ValueRef` is a serde `Deserializer`, so typed views read straight from it as they did from `&Value`.
//! A document is written once, when its object is made; the rare change (a status a file should not
//! carry) reads it back into a `Value` and writes it again.
//!
//! The encoding, node by node in document order: a tag byte, then
//! - `null`, `false`, `true`: nothing;
//! - an unsigned integer, or a negative one as `!i`: a LEB128 varint; a float: 8 bytes little-endian;
//! - a string: shorter than [`SHORT_LIMIT`] bytes, the tag is [`SHORT`] plus its length; else a varint
//!   length; then the UTF-8 bytes;
//! - an array or a map: a varint count word (the count shifted left one bit, the low bit set when a lines
//!   block follows the body) and a varint byte length of the body (so a lookup steps over a sibling without
//!   reading it), then the body: the elements, or each key then its value; then, if flagged, the lines
//!   block's byte length and the block ([`LineCodes`]). A key is a varint: below `KEYS.len()` an index into
//!   [`KEYS`] (the field names manifests repeat on every object), else its length plus `KEYS.len()`
//!   followed by its bytes.
//!
//! A document read from a file carries the line of each field ([`Doc::with_lines`], [`Doc::line_at`]): each
//! container's block holds its children's lines, two bits for most (#17: a separate table of path hashes and
//! lines was 5 bytes a field, 12 MB of a 100k-object lint). The lines are written against a base, the
//! object's first line, which follows the root node when the document has lines.
//!
//! Only [`Doc::new`] and [`Doc::with_lines`] write a buffer, and reading trusts what they wrote.

use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::object::{LineTable, PathStep};
use crate::value::{Error, Map, Number, Value};

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const UINT: u8 = 3;
const NEG: u8 = 4;
const FLOAT: u8 = 5;
const STR: u8 = 6;
const ARRAY: u8 = 7;
const OBJECT: u8 = 8;
/// A string of fewer than [`SHORT_LIMIT`] bytes has the tag `SHORT + length`.
const SHORT: u8 = 0x40;
const SHORT_LIMIT: usize = (u8::MAX - SHORT) as usize + 1;

/// Field names written as one byte: those of the kinds edgecheck reads, and of metadata, pod templates and
/// status. Sorted; at most 255 (an index is a byte in [`interned`]'s table) and 127 (one byte as a varint).
const KEYS: &[&str] = &[
    "addresses",
    "allowedRoutes",
    "annotations",
    "apiGroup",
    "apiVersion",
    "appProtocol",
    "args",
    "attachedRoutes",
    "automated",
    "backend",
    "backendRefs",
    "caBundle",
    "certificateRefs",
    "chart",
    "command",
    "conditions",
    "configMap",
    "containerPort",
    "containers",
    "controllerName",
    "cpu",
    "creationTimestamp",
    "data",
    "dependsOn",
    "destination",
    "dnsNames",
    "endpoints",
    "entryPoints",
    "env",
    "filters",
    "from",
    "gatewayClassName",
    "generation",
    "group",
    "headers",
    "health",
    "helm",
    "host",
    "hostname",
    "hostnames",
    "hosts",
    "http",
    "httpGet",
    "image",
    "imagePullPolicy",
    "ingress",
    "ingressClassName",
    "initialDelaySeconds",
    "interval",
    "issuerRef",
    "items",
    "key",
    "kind",
    "labels",
    "lastTransitionTime",
    "limits",
    "listeners",
    "livenessProbe",
    "loadBalancer",
    "match",
    "matchLabels",
    "matches",
    "memory",
    "message",
    "metadata",
    "middlewares",
    "mode",
    "mountPath",
    "name",
    "namespace",
    "nodeSelector",
    "observedGeneration",
    "ownerReferences",
    "parentRefs",
    "parents",
    "path",
    "pathType",
    "paths",
    "periodSeconds",
    "port",
    "ports",
    "project",
    "protocol",
    "prune",
    "readinessProbe",
    "ready",
    "reason",
    "release",
    "replicas",
    "repoURL",
    "requests",
    "resourceVersion",
    "resources",
    "rules",
    "secretKeyRef",
    "secretName",
    "secretRef",
    "sectionName",
    "securityContext",
    "selector",
    "selfHeal",
    "server",
    "service",
    "serviceAccountName",
    "services",
    "source",
    "sourceRef",
    "spec",
    "status",
    "stringData",
    "syncOptions",
    "syncPolicy",
    "targetPort",
    "targetRevision",
    "template",
    "tls",
    "type",
    "uid",
    "value",
    "valueFrom",
    "values",
    "version",
    "volumeMounts",
    "volumes",
];

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Reads a varint at `*at`, moving past it.
fn varint(b: &[u8], at: &mut usize) -> u64 {
    let mut n = 0u64;
    let mut shift = 0;
    loop {
        let x = b[*at];
        *at += 1;
        n |= u64::from(x & 0x7f) << shift;
        if x < 0x80 {
            return n;
        }
        shift += 7;
    }
}

fn varsize(b: &[u8], at: &mut usize) -> usize {
    usize::try_from(varint(b, at)).unwrap_or(usize::MAX)
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    if s.len() < SHORT_LIMIT {
        out.push(SHORT + s.len() as u8);
    } else {
        out.push(STR);
        put_varint(out, s.len() as u64);
    }
    out.extend_from_slice(s.as_bytes());
}

/// Slots of the table [`interned`] looks keys up in: a power of two, four times the keys.
const SLOTS: usize = 512;
const EMPTY: u8 = u8::MAX;

/// Where a key's search starts: from its length and three of its bytes (cheaper than hashing it all, and
/// the table's keys differ there).
fn slot(k: &[u8]) -> usize {
    let n = k.len();
    if n == 0 {
        return 0;
    }
    (n * 31 + usize::from(k[0]) * 7 + usize::from(k[n / 2]) * 17 + usize::from(k[n - 1]) * 131) & (SLOTS - 1)
}

/// The index of `k` in [`KEYS`]: one comparison of text for a key of the table, usually none for another (a
/// binary search spent a tenth of a lint's time in `memcmp`).
fn interned(k: &str) -> Option<usize> {
    static TABLE: std::sync::OnceLock<[u8; SLOTS]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [EMPTY; SLOTS];
        for (i, key) in KEYS.iter().enumerate() {
            let mut at = slot(key.as_bytes());
            while t[at] != EMPTY {
                at = (at + 1) & (SLOTS - 1);
            }
            t[at] = i as u8;
        }
        t
    });
    let mut at = slot(k.as_bytes());
    loop {
        match table[at] {
            EMPTY => return None,
            i if KEYS[usize::from(i)] == k => return Some(usize::from(i)),
            _ => at = (at + 1) & (SLOTS - 1),
        }
    }
}

fn put_key(out: &mut Vec<u8>, k: &str) {
    match interned(k) {
        Some(i) => put_varint(out, i as u64),
        None => {
            put_varint(out, (KEYS.len() + k.len()) as u64);
            out.extend_from_slice(k.as_bytes());
        }
    }
}

/// Writes the byte length of the body that starts at `at` (and runs to the end) before it.
fn put_body_len(out: &mut Vec<u8>, at: usize) {
    let mut len = Vec::with_capacity(10);
    put_varint(&mut len, (out.len() - at) as u64);
    out.splice(at..at, len);
}

/// Writes documents: the nodes, and, when a [`LineTable`] is given, each container's lines block.
struct Writer<'t> {
    out: Vec<u8>,
    lines: Option<&'t LineTable>,
    /// The (path hash, line) of the children of the containers being written, innermost last.
    kids: Vec<(u64, Option<u32>)>,
    /// A lines block was written.
    lined: bool,
}

impl Writer<'_> {
    /// Writes `v`, found at the hashed `path`; `base` is the line its children's are written against.
    fn node(&mut self, v: &Value, path: u64, base: u32) {
        let out = &mut self.out;
        match v {
            Value::Null => out.push(NULL),
            Value::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    out.push(UINT);
                    put_varint(out, u);
                } else if let Some(i) = n.as_i64() {
                    out.push(NEG);
                    put_varint(out, !i as u64);
                } else {
                    out.push(FLOAT);
                    out.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_le_bytes());
                }
            }
            Value::String(s) => put_str(out, s),
            Value::Array(a) => {
                let kids = (0..a.len()).map(|i| LineTable::index(path, i));
                self.container(ARRAY, kids, base, |w, i, path, base| w.node(&a[i], path, base));
            }
            Value::Object(m) => {
                let kids = m.keys().map(|k| LineTable::key(path, k));
                // Children are written in order, one call each.
                let mut entries = m.iter();
                self.container(OBJECT, kids, base, |w, _, path, base| {
                    if let Some((k, x)) = entries.next() {
                        put_key(&mut w.out, k);
                        w.node(x, path, base);
                    }
                });
            }
        }
    }

    /// Writes a container of `kids` (their path hashes, in order): its tag, its count word (the count shifted
    /// left, its low bit set when a lines block follows the body), the body's length, the body (`child`
    /// writes the child at an index), then the lines block ([`LineCodes`]).
    fn container(
        &mut self,
        tag: u8,
        kids: impl ExactSizeIterator<Item = u64>,
        base: u32,
        mut child: impl FnMut(&mut Self, usize, u64, u32),
    ) {
        let n = kids.len();
        let mark = self.kids.len();
        match self.lines {
            Some(table) => self.kids.extend(kids.map(|h| (h, table.get(h)))),
            None => self.kids.extend(std::iter::repeat_n((0, None), n)),
        }
        let lined = self.kids[mark..].iter().any(|k| k.1.is_some());
        self.out.push(tag);
        put_varint(&mut self.out, ((n as u64) << 1) | u64::from(lined));
        let at = self.out.len();
        for i in 0..n {
            let (path, line) = self.kids[mark + i];
            child(self, i, path, line.unwrap_or(base));
        }
        put_body_len(&mut self.out, at);
        if lined {
            self.lined = true;
            let block = LineCodes::write(self.kids[mark..].iter().map(|k| k.1), base);
            put_varint(&mut self.out, block.len() as u64);
            self.out.extend_from_slice(&block);
        }
        self.kids.truncate(mark);
    }
}

/// A container's lines block: two bits a child, four to a byte, then the varints the codes call for. Each
/// child's line is read against the line before it (the last child's whose line is known, at first the
/// container's base): code 0, not known; 1, the next line (a block mapping's keys); 2, the same line (a flow
/// mapping's); 3, a zigzagged difference follows.
struct LineCodes;

impl LineCodes {
    fn write(lines: impl ExactSizeIterator<Item = Option<u32>>, base: u32) -> Vec<u8> {
        let mut codes = vec![0u8; lines.len().div_ceil(4)];
        let mut rest = Vec::new();
        let mut prev = i64::from(base);
        for (i, line) in lines.enumerate() {
            let code = match line.map(|l| i64::from(l) - prev) {
                None => 0,
                Some(1) => 1,
                Some(0) => 2,
                Some(d) => {
                    put_varint(&mut rest, zigzag(d));
                    3
                }
            };
            if let Some(l) = line {
                prev = i64::from(l);
            }
            codes[i / 4] |= code << ((i % 4) * 2);
        }
        codes.extend_from_slice(&rest);
        codes
    }

    /// The lines of the `n` children, in order, from `block` (one pass: reading every child's line is
    /// linear in the children, not quadratic).
    fn iter(block: &[u8], n: usize, base: u32) -> impl Iterator<Item = Option<u32>> + '_ {
        let mut at = n.div_ceil(4);
        let mut prev = i64::from(base);
        (0..n).map(move |j| {
            let line = match (block[j / 4] >> ((j % 4) * 2)) & 3 {
                0 => None,
                1 => Some(prev + 1),
                2 => Some(prev),
                _ => Some(prev + unzigzag(varint(block, &mut at))),
            };
            prev = line.unwrap_or(prev);
            line.and_then(|l| u32::try_from(l).ok())
        })
    }

    /// The line of the child at `i` of `n`, from `block`.
    fn read(block: &[u8], n: usize, i: usize, base: u32) -> Option<u32> {
        LineCodes::iter(block, n, base).nth(i).flatten()
    }
}

fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(z: u64) -> i64 {
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

/// An object's document, packed (see the module's documentation).
#[derive(Clone)]
pub struct Doc(Box<[u8]>);

impl Default for Doc {
    /// `null`.
    fn default() -> Doc {
        Doc(Box::new([NULL]))
    }
}

thread_local! {
    /// Where documents are written before being copied to their exact size.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Doc {
    /// `v`, packed.
    pub fn new(v: &Value) -> Doc {
        Doc::write(v, None, LineTable::ROOT, 0)
    }

    /// `v`, packed with the lines `lines` records for its fields: `v` sits at the hashed path `root` of the
    /// document the table was made for (the root, or a `List`'s `items[i]`) and starts at line `base`.
    pub fn with_lines(v: &Value, lines: &LineTable, root: u64, base: u32) -> Doc {
        Doc::write(v, Some(lines), root, base)
    }

    fn write(v: &Value, lines: Option<&LineTable>, root: u64, base: u32) -> Doc {
        SCRATCH.with(|s| {
            let mut w = Writer { out: s.take(), lines, kids: Vec::new(), lined: false };
            w.out.clear();
            w.node(v, root, base);
            // The base the root's children are written against follows the root, when any line was written.
            if w.lined {
                put_varint(&mut w.out, u64::from(base));
            }
            let doc = Doc(Box::from(&w.out[..]));
            // A very large document's room is not kept for the thread's life.
            if w.out.capacity() <= 1 << 20 {
                s.replace(w.out);
            }
            doc
        })
    }

    /// The line of the field at `path` (`spec.tls[0].secretName`,
    /// `metadata.annotations["alb.ingress.kubernetes.io/listen-ports"]`; see [`LineTable::hash_path`]): `None`
    /// when the field is not there, its line is not known, or `path` is empty.
    pub fn line_at(&self, path: &str) -> Option<u32> {
        let mut base = self.line_base()?;
        let (mut node, mut line) = (self.root(), None);
        for step in PathStep::parse(path) {
            let (i, child) = match step {
                PathStep::Key(k) => node.as_object()?.position(k)?,
                PathStep::Index(i) => (i, node.as_array()?.get(i)?),
            };
            line = node.child_line(i, base);
            base = line.unwrap_or(base);
            node = child;
        }
        line
    }

    /// The (path hash, line) of every field whose line is known, paths hashed from [`LineTable::ROOT`] (to
    /// write the document again with its lines: [`Doc::with_lines`] with these and [`Doc::line_base`]).
    pub fn line_entries(&self) -> Vec<(u64, u32)> {
        fn walk(node: ValueRef<'_>, path: u64, base: u32, out: &mut Vec<(u64, u32)>) {
            let kids: Vec<(u64, ValueRef<'_>)> = if let Some(m) = node.as_object() {
                m.iter().map(|(k, v)| (LineTable::key(path, k), v)).collect()
            } else if let Some(a) = node.as_array() {
                a.iter().enumerate().map(|(i, v)| (LineTable::index(path, i), v)).collect()
            } else {
                return;
            };
            let lines = node.child_lines(kids.len(), base);
            for ((h, v), line) in kids.into_iter().zip(lines) {
                if let Some(l) = line {
                    out.push((h, l));
                }
                walk(v, h, line.unwrap_or(base), out);
            }
        }
        let mut out = Vec::new();
        if let Some(base) = self.line_base() {
            walk(self.root(), LineTable::ROOT, base, &mut out);
        }
        out
    }

    /// The line the document's lines are written against ([`Doc::with_lines`]'s `base`; it follows the root
    /// node), if it has lines.
    pub fn line_base(&self) -> Option<u32> {
        let mut at = node_len(&self.0);
        (at < self.0.len()).then(|| u32::try_from(varint(&self.0, &mut at)).unwrap_or(u32::MAX))
    }

    /// `v` written with the lines `from` holds for the same paths.
    fn with_lines_of(v: &Value, from: &Doc) -> Doc {
        match from.line_base() {
            Some(base) => Doc::with_lines(v, &LineTable::from_entries(from.line_entries()), LineTable::ROOT, base),
            None => Doc::new(v),
        }
    }

    /// This document with the lines of `from`'s fields at the same paths (a rendered object shown at the
    /// object of its source it was made from).
    pub fn relined(&self, from: &Doc) -> Doc {
        Doc::with_lines_of(&self.to_value(), from)
    }

    /// This document without its lines.
    pub fn without_lines(&self) -> Doc {
        if self.line_base().is_none() {
            self.clone()
        } else {
            Doc::new(&self.to_value())
        }
    }

    /// This document without the root's entry `key`, its other lines kept.
    pub fn without(&self, key: &str) -> Doc {
        let mut v = self.to_value();
        if let Some(m) = v.as_object_mut() {
            m.remove(key);
        }
        Doc::with_lines_of(&v, self)
    }

    /// The document's root.
    pub fn root(&self) -> ValueRef<'_> {
        ValueRef(&self.0)
    }

    /// The document as a `Value` (to change it, or for code that builds values).
    pub fn to_value(&self) -> Value {
        self.root().to_value()
    }

    /// Bytes held.
    pub fn size(&self) -> usize {
        self.0.len()
    }

    /// The value at a map key or array position of the root.
    pub fn get<I: RefIndex>(&self, index: I) -> Option<ValueRef<'_>> {
        self.root().get(index)
    }

    /// The value at a JSON Pointer (see [`ValueRef::pointer`]).
    pub fn pointer(&self, pointer: &str) -> Option<ValueRef<'_>> {
        self.root().pointer(pointer)
    }

    /// The root's entries, if it is a map.
    pub fn as_object(&self) -> Option<MapRef<'_>> {
        self.root().as_object()
    }

    /// True when the root is a map.
    pub fn is_object(&self) -> bool {
        self.root().is_object()
    }

    /// True when the document is `null`.
    pub fn is_null(&self) -> bool {
        self.root().is_null()
    }
}

impl From<Value> for Doc {
    fn from(v: Value) -> Doc {
        Doc::new(&v)
    }
}

impl From<serde_json::Value> for Doc {
    fn from(v: serde_json::Value) -> Doc {
        Doc::new(&Value::from(v))
    }
}

impl From<&Value> for Doc {
    fn from(v: &Value) -> Doc {
        Doc::new(v)
    }
}

impl PartialEq for Doc {
    fn eq(&self, other: &Doc) -> bool {
        self.0 == other.0 || self.root() == other.root()
    }
}

impl Eq for Doc {}

impl fmt::Debug for Doc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.root(), f)
    }
}

impl fmt::Display for Doc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.root(), f)
    }
}

impl Serialize for Doc {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.root().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Doc, D::Error> {
        Value::deserialize(d).map(|v| Doc::new(&v))
    }
}

/// One node of a [`Doc`]: its bytes start at the node's tag (and may run past its end).
#[derive(Clone, Copy)]
pub struct ValueRef<'a>(&'a [u8]);

impl<'a> From<&ValueRef<'a>> for ValueRef<'a> {
    fn from(v: &ValueRef<'a>) -> ValueRef<'a> {
        *v
    }
}

/// What selects a node in a map (a key) or an array (a position).
pub trait RefIndex {
    /// The node this index selects in `v`.
    fn index_into<'a>(&self, v: ValueRef<'a>) -> Option<ValueRef<'a>>;
}

impl RefIndex for str {
    fn index_into<'a>(&self, v: ValueRef<'a>) -> Option<ValueRef<'a>> {
        v.as_object()?.get(self)
    }
}

impl RefIndex for String {
    fn index_into<'a>(&self, v: ValueRef<'a>) -> Option<ValueRef<'a>> {
        self.as_str().index_into(v)
    }
}

impl RefIndex for usize {
    fn index_into<'a>(&self, v: ValueRef<'a>) -> Option<ValueRef<'a>> {
        v.as_array()?.get(*self)
    }
}

impl<T: RefIndex + ?Sized> RefIndex for &T {
    fn index_into<'a>(&self, v: ValueRef<'a>) -> Option<ValueRef<'a>> {
        (**self).index_into(v)
    }
}

/// The byte length of the node at the start of `b`.
fn node_len(b: &[u8]) -> usize {
    let mut at = 1;
    match b[0] {
        NULL | FALSE | TRUE => 1,
        UINT | NEG => {
            varint(b, &mut at);
            at
        }
        FLOAT => 9,
        STR => {
            let n = varsize(b, &mut at);
            at + n
        }
        ARRAY | OBJECT => {
            let word = varint(b, &mut at);
            at += varsize(b, &mut at);
            if word & 1 == 1 {
                at += varsize(b, &mut at);
            }
            at
        }
        t => 1 + usize::from(t - SHORT),
    }
}

/// A key at the start of `b`, and its byte length.
fn key_at(b: &[u8]) -> (&str, usize) {
    let mut at = 0;
    let k = varsize(b, &mut at);
    match KEYS.get(k) {
        Some(name) => (name, at),
        None => {
            let n = k - KEYS.len();
            (std::str::from_utf8(&b[at..at + n]).unwrap_or_default(), at + n)
        }
    }
}

impl<'a> ValueRef<'a> {
    fn tag(self) -> u8 {
        self.0[0]
    }

    /// A container's count and body.
    fn container(self, tag: u8) -> Option<(usize, &'a [u8])> {
        if self.tag() != tag {
            return None;
        }
        let mut at = 1;
        let n = varsize(self.0, &mut at) >> 1;
        let len = varsize(self.0, &mut at);
        Some((n, &self.0[at..at + len]))
    }

    /// A container's lines block and child count, if it has one.
    fn lines_block(self) -> Option<(&'a [u8], usize)> {
        if !matches!(self.tag(), ARRAY | OBJECT) {
            return None;
        }
        let mut at = 1;
        let word = varint(self.0, &mut at);
        at += varsize(self.0, &mut at);
        if word & 1 == 0 {
            return None;
        }
        let len = varsize(self.0, &mut at);
        Some((&self.0[at..at + len], usize::try_from(word >> 1).unwrap_or(usize::MAX)))
    }

    /// The line of a container's child at `i`, its lines written against `base` (see [`Writer::container`]).
    fn child_line(self, i: usize, base: u32) -> Option<u32> {
        let (block, n) = self.lines_block()?;
        (i < n).then(|| LineCodes::read(block, n, i, base)).flatten()
    }

    /// The lines of a container's `n` children in order, `None` for each when it has no lines block.
    fn child_lines(self, n: usize, base: u32) -> impl Iterator<Item = Option<u32>> + 'a {
        let block = self.lines_block();
        let known = block.map(|(b, m)| LineCodes::iter(b, m, base));
        let none = block.is_none().then(|| std::iter::repeat_n(None, n));
        known.into_iter().flatten().chain(none.into_iter().flatten())
    }

    /// The value at a map key or array position.
    pub fn get<I: RefIndex>(self, index: I) -> Option<ValueRef<'a>> {
        index.index_into(self)
    }

    /// The value at a JSON Pointer (RFC 6901: `/spec/tls/0/secretName`, `~1` for `/`, `~0` for `~`).
    pub fn pointer(self, pointer: &str) -> Option<ValueRef<'a>> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        let mut v = self;
        for token in rest.split('/') {
            let token = crate::value::unescape(token);
            v = match v.tag() {
                OBJECT => v.as_object()?.get(&token)?,
                ARRAY => v.as_array()?.get(crate::value::array_index(&token)?)?,
                _ => return None,
            };
        }
        Some(v)
    }

    /// The string, if this is one.
    pub fn as_str(self) -> Option<&'a str> {
        let (start, n) = match self.tag() {
            STR => {
                let mut at = 1;
                let n = varsize(self.0, &mut at);
                (at, n)
            }
            t if t >= SHORT => (1, usize::from(t - SHORT)),
            _ => return None,
        };
        std::str::from_utf8(&self.0[start..start + n]).ok()
    }

    /// The boolean, if this is one.
    pub fn as_bool(self) -> Option<bool> {
        match self.tag() {
            TRUE => Some(true),
            FALSE => Some(false),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(self) -> Option<Number> {
        let mut at = 1;
        match self.tag() {
            UINT => Some(Number::from(varint(self.0, &mut at))),
            NEG => Some(Number::from(!(varint(self.0, &mut at) as i64))),
            FLOAT => {
                let bytes: [u8; 8] = self.0[1..9].try_into().ok()?;
                Number::from_f64(f64::from_le_bytes(bytes))
            }
            _ => None,
        }
    }

    /// The number as an `i64`, if it is an integer that fits.
    pub fn as_i64(self) -> Option<i64> {
        self.as_number()?.as_i64()
    }

    /// The number as a `u64`, if it is a non-negative integer.
    pub fn as_u64(self) -> Option<u64> {
        self.as_number()?.as_u64()
    }

    /// The number as an `f64`.
    pub fn as_f64(self) -> Option<f64> {
        self.as_number()?.as_f64()
    }

    /// The elements, if this is an array.
    pub fn as_array(self) -> Option<SeqRef<'a>> {
        self.container(ARRAY).map(|(n, body)| SeqRef { n, body })
    }

    /// The entries, if this is a map.
    pub fn as_object(self) -> Option<MapRef<'a>> {
        self.container(OBJECT).map(|(n, body)| MapRef { n, body })
    }

    /// True for `null`.
    pub fn is_null(self) -> bool {
        self.tag() == NULL
    }

    /// True for a string.
    pub fn is_string(self) -> bool {
        self.tag() == STR || self.tag() >= SHORT
    }

    /// True for `true` or `false`.
    pub fn is_boolean(self) -> bool {
        matches!(self.tag(), TRUE | FALSE)
    }

    /// True for a number.
    pub fn is_number(self) -> bool {
        matches!(self.tag(), UINT | NEG | FLOAT)
    }

    /// True for an array.
    pub fn is_array(self) -> bool {
        self.tag() == ARRAY
    }

    /// True for a map.
    pub fn is_object(self) -> bool {
        self.tag() == OBJECT
    }

    /// `null`, `boolean`, `number`, `string`, `array` or `object`.
    pub fn type_name(self) -> &'static str {
        match self.tag() {
            NULL => "null",
            TRUE | FALSE => "boolean",
            UINT | NEG | FLOAT => "number",
            ARRAY => "array",
            OBJECT => "object",
            _ => "string",
        }
    }

    /// The node as a `Value`.
    pub fn to_value(self) -> Value {
        match self.tag() {
            NULL => Value::Null,
            TRUE => Value::Bool(true),
            FALSE => Value::Bool(false),
            UINT | NEG | FLOAT => self.as_number().map_or(Value::Null, Value::Number),
            ARRAY => Value::Array(self.as_array().into_iter().flatten().map(ValueRef::to_value).collect()),
            OBJECT => Value::Object(self.as_object().map(MapRef::to_map).unwrap_or_default()),
            _ => Value::String(self.as_str().unwrap_or_default().into()),
        }
    }

    /// The node's own bytes.
    fn bytes(self) -> &'a [u8] {
        &self.0[..node_len(self.0)]
    }
}

/// The elements of an array node.
#[derive(Clone, Copy, Default)]
pub struct SeqRef<'a> {
    n: usize,
    body: &'a [u8],
}

impl<'a> SeqRef<'a> {
    /// Number of elements.
    pub fn len(self) -> usize {
        self.n
    }

    /// True when there are none.
    pub fn is_empty(self) -> bool {
        self.n == 0
    }

    /// The elements in order.
    pub fn iter(self) -> SeqIter<'a> {
        SeqIter { rest: self.body, left: self.n }
    }

    /// The element at `i`.
    pub fn get(self, i: usize) -> Option<ValueRef<'a>> {
        self.iter().nth(i)
    }

    /// The first element.
    pub fn first(self) -> Option<ValueRef<'a>> {
        self.iter().next()
    }

    /// The last element.
    pub fn last(self) -> Option<ValueRef<'a>> {
        self.iter().last()
    }

    /// The elements as `Value`s.
    pub fn to_vec(self) -> Vec<Value> {
        self.iter().map(ValueRef::to_value).collect()
    }
}

impl<'a> IntoIterator for SeqRef<'a> {
    type Item = ValueRef<'a>;
    type IntoIter = SeqIter<'a>;
    fn into_iter(self) -> SeqIter<'a> {
        self.iter()
    }
}

/// The elements of an array node, in order.
#[derive(Clone, Default)]
pub struct SeqIter<'a> {
    rest: &'a [u8],
    left: usize,
}

impl<'a> Iterator for SeqIter<'a> {
    type Item = ValueRef<'a>;
    fn next(&mut self) -> Option<ValueRef<'a>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let v = ValueRef(self.rest);
        self.rest = &self.rest[node_len(self.rest)..];
        Some(v)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for SeqIter<'_> {}

/// The entries of a map node.
#[derive(Clone, Copy, Default)]
pub struct MapRef<'a> {
    n: usize,
    body: &'a [u8],
}

impl<'a> MapRef<'a> {
    /// Number of entries.
    pub fn len(self) -> usize {
        self.n
    }

    /// True when there are none.
    pub fn is_empty(self) -> bool {
        self.n == 0
    }

    /// The entries in order.
    pub fn iter(self) -> MapIter<'a> {
        MapIter { rest: self.body, left: self.n }
    }

    /// The value at `key`.
    pub fn get(self, key: &str) -> Option<ValueRef<'a>> {
        self.position(key).map(|(_, v)| v)
    }

    /// The place of `key` among the entries, and its value.
    fn position(self, key: &str) -> Option<(usize, ValueRef<'a>)> {
        // A key of the table is written as its index: compare indexes, not text.
        let interned = interned(key);
        let mut rest = self.body;
        for i in 0..self.n {
            let mut at = 0;
            let k = varsize(rest, &mut at);
            let found = match interned {
                Some(i) => k == i,
                None => k >= KEYS.len() && rest.get(at..at + (k - KEYS.len())) == Some(key.as_bytes()),
            };
            if k >= KEYS.len() {
                at += k - KEYS.len();
            }
            if found {
                return Some((i, ValueRef(&rest[at..])));
            }
            rest = &rest[at + node_len(&rest[at..])..];
        }
        None
    }

    /// True when the map has `key`.
    pub fn contains_key(self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The keys in order.
    pub fn keys(self) -> impl Iterator<Item = &'a str> {
        self.iter().map(|(k, _)| k)
    }

    /// The values in order.
    pub fn values(self) -> impl Iterator<Item = ValueRef<'a>> {
        self.iter().map(|(_, v)| v)
    }

    /// The entries as a `Map`.
    pub fn to_map(self) -> Map {
        Map::from_entries(self.iter().map(|(k, v)| (k.into(), v.to_value())).collect())
    }
}

impl<'a> IntoIterator for MapRef<'a> {
    type Item = (&'a str, ValueRef<'a>);
    type IntoIter = MapIter<'a>;
    fn into_iter(self) -> MapIter<'a> {
        self.iter()
    }
}

/// The entries of a map node, in order.
#[derive(Clone, Default)]
pub struct MapIter<'a> {
    rest: &'a [u8],
    left: usize,
}

impl<'a> Iterator for MapIter<'a> {
    type Item = (&'a str, ValueRef<'a>);
    fn next(&mut self) -> Option<(&'a str, ValueRef<'a>)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let (k, at) = key_at(self.rest);
        let v = ValueRef(&self.rest[at..]);
        self.rest = &self.rest[at + node_len(v.0)..];
        Some((k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for MapIter<'_> {}

/// Maps up to this size are compared by looking each key up; larger ones through a hash map.
const SCAN_LIMIT: usize = 16;

/// Equal as `Value`s are: maps in any order, numbers by kind and value.
impl PartialEq for ValueRef<'_> {
    fn eq(&self, other: &ValueRef<'_>) -> bool {
        match (self.tag(), other.tag()) {
            (ARRAY, ARRAY) => {
                let (a, b) = (self.as_array(), other.as_array());
                a.zip(b).is_some_and(|(a, b)| a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x == y))
            }
            (OBJECT, OBJECT) => {
                let (Some(a), Some(b)) = (self.as_object(), other.as_object()) else { return false };
                if a.len() != b.len() {
                    return false;
                }
                if a.len() <= SCAN_LIMIT {
                    a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v == w))
                } else {
                    let theirs: std::collections::HashMap<&str, ValueRef<'_>> = b.iter().collect();
                    theirs.len() == a.len() && a.iter().all(|(k, v)| theirs.get(k).is_some_and(|w| v == *w))
                }
            }
            (ARRAY | OBJECT, _) | (_, ARRAY | OBJECT) => false,
            _ if self.is_string() => other.as_str().is_some() && self.as_str() == other.as_str(),
            _ if self.is_number() => self.as_number() == other.as_number(),
            _ => self.bytes() == other.bytes(),
        }
    }
}

impl PartialEq<str> for ValueRef<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for ValueRef<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<Value> for ValueRef<'_> {
    fn eq(&self, other: &Value) -> bool {
        self.to_value() == *other
    }
}

/// Compact JSON, as `Value` displays.
impl fmt::Display for ValueRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&s)
    }
}

impl fmt::Debug for ValueRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_value(), f)
    }
}

impl Serialize for ValueRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.tag() {
            NULL => s.serialize_unit(),
            TRUE | FALSE => s.serialize_bool(self.tag() == TRUE),
            UINT | NEG | FLOAT => self.as_number().serialize(s),
            ARRAY => {
                let a = self.as_array().map(SeqRef::iter).unwrap_or_default();
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for x in a {
                    seq.serialize_element(&x)?;
                }
                seq.end()
            }
            OBJECT => {
                let m = self.as_object().map(MapRef::iter).unwrap_or_default();
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, &v)?;
                }
                map.end()
            }
            _ => s.serialize_str(self.as_str().unwrap_or_default()),
        }
    }
}

/// A typed value read from a document's node, borrowing its strings.
pub fn from_ref<'de, T: Deserialize<'de>>(v: ValueRef<'de>) -> Result<T, Error> {
    T::deserialize(v)
}

fn unexpected(v: ValueRef<'_>) -> de::Unexpected<'_> {
    match v.tag() {
        NULL => de::Unexpected::Unit,
        TRUE | FALSE => de::Unexpected::Bool(v.tag() == TRUE),
        UINT | NEG | FLOAT => match v.as_number() {
            Some(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => de::Unexpected::Unsigned(u),
                (None, Some(i)) => de::Unexpected::Signed(i),
                _ => de::Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            None => de::Unexpected::Other("a number"),
        },
        ARRAY => de::Unexpected::Seq,
        OBJECT => de::Unexpected::Map,
        _ => de::Unexpected::Str(v.as_str().unwrap_or_default()),
    }
}

/// Typed views read straight from a document, borrowing its strings (as from a `&Value`).
impl<'de> Deserializer<'de> for ValueRef<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.tag() {
            NULL => visitor.visit_unit(),
            TRUE | FALSE => visitor.visit_bool(self.tag() == TRUE),
            UINT => visitor.visit_u64(self.as_u64().unwrap_or_default()),
            NEG => visitor.visit_i64(self.as_i64().unwrap_or_default()),
            FLOAT => visitor.visit_f64(self.as_f64().unwrap_or(f64::NAN)),
            ARRAY => crate::value::visit_seq(visitor, self.as_array().map(SeqRef::iter).unwrap_or_default()),
            OBJECT => crate::value::visit_map(visitor, self.as_object().map(MapRef::iter).unwrap_or_default()),
            _ => visitor.visit_borrowed_str(self.as_str().unwrap_or_default()),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.tag() {
            NULL => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if let Some(s) = self.as_str() {
            return visitor.visit_enum(s.into_deserializer());
        }
        match self.as_object() {
            Some(m) if m.len() == 1 => {
                let (variant, value) = m.iter().next().ok_or_else(|| de::Error::custom("a map of one entry"))?;
                visitor.visit_enum(crate::value::EnumDeserializer { variant, value })
            }
            _ => Err(de::Error::invalid_type(unexpected(self), &"a string or a map of one entry")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit unit_struct seq
        tuple tuple_struct map struct identifier
    }
}

impl<'de> de::VariantAccess<'de> for ValueRef<'de> {
    type Error = Error;
    fn unit_variant(self) -> Result<(), Error> {
        match self.tag() {
            NULL => Ok(()),
            _ => Err(de::Error::invalid_type(unexpected(self), &"a unit variant")),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }
    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(j: serde_json::Value) -> Doc {
        Doc::new(&Value::from(j))
    }

    #[test]
    fn the_key_table_is_sorted_and_fits_one_byte() {
        assert!(KEYS.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
        assert!(KEYS.len() < 0x80);
        for (i, k) in KEYS.iter().enumerate() {
            assert_eq!(interned(k), Some(i), "{k}");
            assert_eq!(interned(&format!("{k}x")), None);
        }
        assert_eq!(interned(""), None);
    }

    #[test]
    fn a_document_reads_back_as_the_value_it_was() {
        let long = "x".repeat(300);
        let j = serde_json::json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "web", "annotations": {"a/b": "c", "x~y": 1, "": "empty key"}},
            "spec": {"ports": [{"port": 443, "name": null}], "n": -3, "min": i64::MIN, "max": u64::MAX, "f": 1.5,
                     "b": true, "no": false, "long": long, "short": "é", "empty": {}, "none": [],
                     "nested": [[1, [2, {"k": [3]}]]], "unusualKeyThatIsNotInTheTable": "v"}
        });
        let d = doc(j.clone());
        assert_eq!(serde_json::Value::from(d.to_value()), j);
        assert_eq!(d.to_string(), j.to_string());
        assert_eq!(serde_json::to_value(&d).unwrap(), j);
        for p in [
            "",
            "/metadata/name",
            "/metadata/annotations/a~1b",
            "/metadata/annotations/x~0y",
            "/metadata/annotations/",
            "/spec/ports/0",
            "/spec/ports/0/port",
            "/spec/ports/1",
            "/spec/ports/01",
            "/spec/n",
            "/spec/min",
            "/spec/max",
            "/spec/f",
            "/spec/long",
            "/spec/nested/0/1/1/k/0",
            "/spec/unusualKeyThatIsNotInTheTable",
            "/nope",
            "spec",
        ] {
            assert_eq!(d.pointer(p).map(|v| serde_json::Value::from(v.to_value())).as_ref(), j.pointer(p), "{p}");
        }
        let spec = d.get("spec").unwrap();
        assert_eq!(spec.get("n").and_then(ValueRef::as_i64), Some(-3));
        assert_eq!(spec.get("n").and_then(ValueRef::as_u64), None);
        assert_eq!(spec.get("max").and_then(ValueRef::as_u64), Some(u64::MAX));
        assert_eq!(spec.get("f").and_then(ValueRef::as_f64), Some(1.5));
        assert_eq!(spec.get("b").and_then(ValueRef::as_bool), Some(true));
        assert_eq!(spec.get("long").and_then(ValueRef::as_str).map(str::len), Some(300));
        assert!(spec.get("empty").and_then(ValueRef::as_object).is_some_and(MapRef::is_empty));
        assert_eq!(spec.get("ports").and_then(ValueRef::as_array).map(SeqRef::len), Some(1));
        let keys: Vec<&str> = d.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["apiVersion", "kind", "metadata", "spec"]);
        assert_eq!(d.root().get("kind").unwrap(), "Service");
    }

    #[test]
    fn equality_is_the_value_s_maps_in_any_order_numbers_by_kind() {
        assert_eq!(doc(serde_json::json!({"a": 1, "b": [1, 2]})), doc(serde_json::json!({"b": [1, 2], "a": 1})));
        assert_ne!(doc(serde_json::json!({"a": 1})), doc(serde_json::json!({"a": 1.0})));
        assert_ne!(doc(serde_json::json!({"a": [1, 2]})), doc(serde_json::json!({"a": [2, 1]})));
        assert_ne!(doc(serde_json::json!({"a": "1"})), doc(serde_json::json!({"a": 1})));
        for n in [3usize, 100] {
            let forward: serde_json::Map<String, serde_json::Value> =
                (0..n).map(|i| (format!("k{i}"), i.into())).collect();
            let mut backward: serde_json::Map<String, serde_json::Value> =
                (0..n).rev().map(|i| (format!("k{i}"), i.into())).collect();
            assert_eq!(doc(forward.clone().into()), doc(backward.clone().into()), "{n} keys in another order");
            backward.insert("k0".into(), "x".into());
            assert_ne!(doc(forward.into()), doc(backward.into()), "{n} keys, one value differs");
        }
    }

    #[test]
    fn a_document_is_smaller_than_its_value_tree() {
        let j = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web",
                "image": "ghcr.io/acme/web:1.0", "ports": [{"name": "http", "containerPort": 8080}]}]}}}});
        // 22 entries and 4 elements as a tree: at least 48 bytes an entry, 24 an element.
        assert!(doc(j).size() < 200);
    }

    #[test]
    fn typed_views_deserialize_from_a_node_with_serde_s_messages() {
        #[derive(Deserialize, Debug, PartialEq)]
        #[serde(rename_all = "camelCase")]
        struct Port<'a> {
            port: u16,
            name: Option<String>,
            #[serde(default)]
            app_protocol: Option<String>,
            #[serde(borrow)]
            protocol: Option<&'a str>,
            kind: Kind,
        }
        #[derive(Deserialize, Debug, PartialEq)]
        enum Kind {
            Tcp,
            Other(String),
        }
        #[derive(Deserialize, Debug, PartialEq)]
        #[serde(untagged)]
        enum IntOrString {
            Int(i64),
            Str(String),
        }
        let ok = doc(serde_json::json!({"port": 443, "name": null, "protocol": "TCP", "kind": "Tcp", "extra": [1]}));
        assert_eq!(
            from_ref::<Port>(ok.root()).unwrap(),
            Port { port: 443, name: None, app_protocol: None, protocol: Some("TCP"), kind: Kind::Tcp }
        );
        let other = doc(serde_json::json!({"port": 1, "kind": {"Other": "x"}}));
        assert_eq!(from_ref::<Port>(other.root()).unwrap().kind, Kind::Other("x".into()));
        assert_eq!(
            from_ref::<IntOrString>(doc(serde_json::json!("http")).root()).unwrap(),
            IntOrString::Str("http".into())
        );
        assert_eq!(from_ref::<IntOrString>(doc(serde_json::json!(-80)).root()).unwrap(), IntOrString::Int(-80));
        let bad = doc(serde_json::json!({"port": "https", "kind": "Tcp"}));
        let theirs = serde_json::from_str::<Port>(r#"{"port": "https", "kind": "Tcp"}"#).unwrap_err();
        let ours = from_ref::<Port>(bad.root()).unwrap_err().to_string();
        assert!(theirs.to_string().starts_with(&ours) && ours.contains("\"https\""), "{ours} / {theirs}");
        let path = serde_path_to_error::deserialize::<_, Port>(bad.root()).unwrap_err();
        assert_eq!(path.path().to_string(), "port");
        let back: Doc = serde_json::from_str(&bad.to_string()).unwrap();
        assert_eq!(back, bad);
    }

    /// A value of random shape: keys of the table and others, strings around the short/long boundary,
    /// numbers at the edges of each encoding, nesting.
    fn random(seed: &mut u64, depth: u32) -> Value {
        let mut next = || {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed
        };
        let pick = next() % if depth == 0 { 6 } else { 8 };
        let n = next();
        match pick {
            0 => Value::Null,
            1 => Value::Bool(n % 2 == 0),
            2 => Value::from([0, 1, 127, 128, 16383, 16384, u64::MAX, n][(n % 8) as usize]),
            3 => Value::from([-1_i64, -128, -129, i64::MIN, -(n as i64 >> 1)][(n % 5) as usize]),
            4 => Value::Number(Number::from_f64([0.5, -2.25, 1e300, f64::MIN_POSITIVE][(n % 4) as usize]).unwrap()),
            5 => Value::from("é".repeat([0, 1, 95, 96, 97, 200][(n % 6) as usize])),
            6 => Value::Array((0..n % 5).map(|_| random(seed, depth - 1)).collect()),
            _ => {
                let mut m = Map::new();
                for i in 0..n % 6 {
                    let key = match i % 3 {
                        0 => KEYS[(n as usize + i as usize) % KEYS.len()].to_string(),
                        1 => format!("k{}", "x".repeat((n % 300) as usize)),
                        _ => format!("spec{i}"),
                    };
                    let v = random(seed, depth - 1);
                    m.insert(key.into(), v);
                }
                Value::Object(m)
            }
        }
    }

    /// Every path of `v`, as a JSON Pointer.
    fn pointers(v: &Value, at: &str, out: &mut Vec<String>) {
        out.push(at.to_string());
        match v {
            Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| pointers(x, &format!("{at}/{i}"), out)),
            Value::Object(m) => m
                .iter()
                .for_each(|(k, x)| pointers(x, &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out)),
            _ => {}
        }
    }

    #[test]
    fn random_documents_read_back_node_by_node() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..500 {
            let v = random(&mut seed, 5);
            let d = Doc::new(&v);
            assert_eq!(d.to_value(), v);
            assert_eq!(d.to_string(), v.to_string());
            assert_eq!(d, Doc::new(&d.to_value()));
            let mut paths = Vec::new();
            pointers(&v, "", &mut paths);
            for p in paths {
                let (ours, theirs) = (d.pointer(&p), v.pointer(&p));
                assert_eq!(ours.map(ValueRef::to_value).as_ref(), theirs, "{p}");
                let ours = ours.expect("found");
                assert_eq!(ours.as_str(), theirs.and_then(Value::as_str), "{p}");
                assert_eq!(ours.as_i64(), theirs.and_then(Value::as_i64), "{p}");
                assert_eq!(ours.as_u64(), theirs.and_then(Value::as_u64), "{p}");
                assert_eq!(ours.as_f64(), theirs.and_then(Value::as_f64), "{p}");
                assert_eq!(ours.as_array().map(SeqRef::len), theirs.and_then(Value::as_array).map(<[_]>::len));
                assert_eq!(ours.as_object().map(MapRef::len), theirs.and_then(Value::as_object).map(Map::len));
            }
        }
    }

    /// A table for `fields`: (textual path below `root`, line).
    fn table(root: u64, fields: &[(&str, u32)]) -> LineTable {
        let mut r = crate::object::LineRecorder::default();
        for (p, l) in fields {
            r.insert(LineTable::hash_path(root, p), *l);
        }
        r.finish()
    }

    #[test]
    fn a_document_with_lines_answers_each_fields_line_and_reads_the_same() {
        let j = serde_json::json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "web", "annotations": {"a.b/c": "x"}},
            "data": {"tls.crt": null, "k": "v"},
            "spec": {"tls": [{"hosts": ["a", "b"], "secretName": "s"}], "flow": {"x": 1, "y": 2}, "late": 7}
        });
        // Block keys on following lines, a flow mapping on one line, a jump, a field whose line is not known
        // (`spec.tls[0].hosts[0]`), and lines going back (a rendered document mapped to its template).
        let fields = [
            ("apiVersion", 10),
            ("kind", 11),
            ("metadata", 12),
            ("metadata.name", 13),
            ("metadata.annotations", 14),
            ("metadata.annotations[\"a.b/c\"]", 15),
            ("data", 16),
            ("data[\"tls.crt\"]", 17),
            ("data.k", 18),
            ("spec", 19),
            ("spec.tls", 20),
            ("spec.tls[0]", 21),
            ("spec.tls[0].hosts", 21),
            ("spec.tls[0].hosts[1]", 400),
            ("spec.tls[0].secretName", 22),
            ("spec.flow", 3),
            ("spec.flow.x", 3),
            ("spec.flow.y", 3),
            ("spec.late", 1),
        ];
        for root in [LineTable::ROOT, LineTable::index(LineTable::key(LineTable::ROOT, "items"), 3)] {
            let v = Value::from(j.clone());
            let d = Doc::with_lines(&v, &table(root, &fields), root, 10);
            assert_eq!(d.root(), Doc::new(&v).root(), "the lines change no value");
            assert_eq!(serde_json::Value::from(d.to_value()), j);
            for (p, l) in fields {
                assert_eq!(d.line_at(p), Some(l), "{p}");
            }
            for p in ["", "spec.tls[0].hosts[0]", "spec.tls[1]", "spec.nope", "metadata.name.x", "spec.tls[x]"] {
                assert_eq!(d.line_at(p), None, "{p}");
            }
            // Read back from its entries (the render cache), it answers the same.
            let back = Doc::with_lines(&v, &LineTable::from_entries(d.line_entries()), LineTable::ROOT, 10);
            assert_eq!(back.line_base(), Some(10));
            for (p, l) in fields {
                assert_eq!(back.line_at(p), Some(l), "{p}");
            }
            // Without `spec`, the rest keeps its lines; without lines, none is known.
            let less = d.without("spec");
            assert_eq!(less.get("spec"), None);
            assert_eq!((less.line_at("data.k"), less.line_at("spec.late")), (Some(18), None));
            assert_eq!(d.without_lines().line_at("kind"), None);
            assert_eq!(d.without_lines().root(), d.root());
            // A rendered copy, changed, takes the lines of the fields it shares.
            let mut changed = j.clone();
            changed["metadata"]["name"] = serde_json::json!("prefix-web");
            changed["metadata"]["labels"] = serde_json::json!({"new": "x"});
            let relined = Doc::new(&Value::from(changed)).relined(&d);
            assert_eq!(relined.line_at("metadata.name"), Some(13));
            assert_eq!(relined.line_at("spec.tls[0].secretName"), Some(22));
            assert_eq!(relined.line_at("metadata.labels"), None);
        }
        assert_eq!(Doc::new(&Value::from(j)).line_at("kind"), None, "a document written without lines has none");
    }

    #[test]
    fn a_document_whose_fields_have_no_lines_is_written_as_without() {
        let v = Value::from(serde_json::json!({"a": {"b": [1, 2]}}));
        let d = Doc::with_lines(&v, &table(LineTable::ROOT, &[("x", 3)]), LineTable::ROOT, 1);
        assert_eq!(d.size(), Doc::new(&v).size());
        assert_eq!(d.line_base(), None);
        assert!(d.line_entries().is_empty());
    }

    #[test]
    fn line_codes_read_back_for_every_child_and_every_shape() {
        let shapes: [&[Option<u32>]; 6] = [
            &[Some(2), Some(3), Some(4), Some(5), Some(6)],
            &[Some(1), Some(1), Some(1)],
            &[None, Some(9), None, Some(8), Some(u32::MAX), Some(0)],
            &[Some(100_000), Some(3), Some(3), Some(4), None, None, None, None, Some(5)],
            &[None],
            &[],
        ];
        for lines in shapes {
            let block = LineCodes::write(lines.iter().copied(), 1);
            for (i, l) in lines.iter().enumerate() {
                assert_eq!(LineCodes::read(&block, lines.len(), i, 1), *l, "{lines:?} at {i}");
            }
        }
        // Consecutive keys take two bits each: five children in two bytes.
        assert_eq!(LineCodes::write([2, 3, 4, 5, 6].into_iter().map(Some), 1).len(), 2);
    }

    #[test]
    fn every_line_of_a_long_array_is_read_in_one_pass() {
        // A file's object with a status is written again without it, reading every field's line: a hostile
        // file's long array must cost its length, not its square (100,000 items took 12 s read one by one).
        let n = 100_000;
        let items: Vec<serde_json::Value> = (0..n).map(|i| serde_json::json!(i)).collect();
        let v = Value::from(serde_json::json!({"data": {"list": items}, "status": {"x": 1}}));
        let mut fields = vec![("data".to_string(), 2), ("data.list".to_string(), 3), ("status".to_string(), 5)];
        fields.extend((0..n).map(|i| (format!("data.list[{i}]"), 10 + i as u32)));
        let pairs: Vec<(&str, u32)> = fields.iter().map(|(p, l)| (p.as_str(), *l)).collect();
        let d = Doc::with_lines(&v, &table(LineTable::ROOT, &pairs), LineTable::ROOT, 1);
        assert_eq!(d.line_entries().len(), n + 3);
        let without = d.without("status");
        assert_eq!(without.line_at(&format!("data.list[{}]", n - 1)), Some(10 + n as u32 - 1));
        assert_eq!(without.line_at("status"), None);
    }
}
