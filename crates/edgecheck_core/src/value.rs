//! Objects' contents, held compactly (#17).
//!
//! `serde_json::Value` with `preserve_order` spends about 150 bytes on every field of a manifest: each map
//! entry is a 104-byte bucket (the entry's hash, a `String` key and a 72-byte `Value`) plus an index slot
//! and a heap allocation for the key, and every map carries a hash table. A large repository's objects held
//! that way were half of a lint's memory. This `Value` has the same shape and the same method names, but a
//! map is a vector of `(key, value)` pairs in document order, looked up by scanning (a manifest's maps
//! have a handful of keys), and strings of up to 24 bytes (nearly every key and most scalars) are stored
//! inline. Arrays and maps are exact-size boxed slices (no capacity word, no slack), so a `Value` is 24
//! bytes (the string's spare last byte tells the variants apart), an entry 48, and short strings allocate
//! nothing. A change to a map or an array reallocates it (a manifest is changed rarely and a little: by a
//! patch or a redaction); building one goes through a `Vec` and is converted once.
//!
//! Keys are unique within a map, as in a YAML or JSON mapping read by Kubernetes: a repeated key keeps its
//! first position and takes the last value (`serde_json`'s rule). Building a large map removes repeats
//! through a hash set, so a hostile mapping of many keys is not quadratic.

use std::fmt;

use compact_str::CompactString;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use serde_json::Number;

/// A string held inline up to 24 bytes.
pub type Str = CompactString;

/// A JSON value: what a manifest's document holds.
#[derive(Clone, Default, PartialEq)]
pub enum Value {
    /// `null` (and YAML's `~` or an empty value).
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer or a float.
    Number(Number),
    /// A string.
    String(Str),
    /// A sequence (exact size: see the module's documentation).
    Array(Box<[Value]>),
    /// A mapping with string keys, in document order.
    Object(Map),
}

/// A mapping with unique string keys, in document order.
#[derive(Clone, Default)]
pub struct Map {
    entries: Box<[(Str, Value)]>,
}

/// Maps up to this size remove repeated keys by scanning; larger ones through a hash set.
const SCAN_LIMIT: usize = 16;

impl Map {
    /// An empty map.
    pub fn new() -> Map {
        Map::default()
    }

    /// An empty map. A map holds no spare room (see the module's documentation): `n` is only a hint, kept
    /// for callers written for `serde_json`'s map.
    pub fn with_capacity(_n: usize) -> Map {
        Map::default()
    }

    /// A map of `entries` in their order; a repeated key keeps its first position and its last value.
    pub fn from_entries(mut entries: Vec<(Str, Value)>) -> Map {
        dedup(&mut entries);
        Map { entries: entries.into_boxed_slice() }
    }

    /// Changes the entries as a `Vec`, then holds them exactly sized again.
    fn change<R>(&mut self, f: impl FnOnce(&mut Vec<(Str, Value)>) -> R) -> R {
        let mut v = std::mem::take(&mut self.entries).into_vec();
        let r = f(&mut v);
        self.entries = v.into_boxed_slice();
        r
    }

    /// Adds an entry last (the key is not there), growing by exactly one.
    fn push(&mut self, key: Str, value: Value) {
        self.change(|v| {
            v.reserve_exact(1);
            v.push((key, value));
        });
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| k == key)
    }

    /// The value at `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value at `key`, to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The key and value at `key`.
    pub fn get_key_value(&self, key: &str) -> Option<(&Str, &Value)> {
        self.entries.iter().find(|(k, _)| k == key).map(|(k, v)| (k, v))
    }

    /// True when the map has `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key` to `value`: in its place when the key is there (returning the old value), else last.
    pub fn insert(&mut self, key: Str, value: Value) -> Option<Value> {
        match self.position(&key) {
            Some(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            None => {
                self.push(key, value);
                None
            }
        }
    }

    /// Removes `key`, keeping the order of the others.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let i = self.position(key)?;
        Some(self.change(|v| v.remove(i)).1)
    }

    /// The value at `key`, inserted as `Null` when absent.
    pub fn entry_or_null(&mut self, key: &str) -> &mut Value {
        let i = match self.position(key) {
            Some(i) => i,
            None => {
                self.push(Str::from(key), Value::Null);
                self.entries.len() - 1
            }
        };
        &mut self.entries[i].1
    }

    /// Keeps the entries for which `f` is true.
    pub fn retain(&mut self, mut f: impl FnMut(&Str, &mut Value) -> bool) {
        self.change(|e| e.retain_mut(|(k, v)| f(k, v)));
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries = Box::default();
    }

    /// The entries in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.entries.iter())
    }

    /// The entries in order, values to change.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&Str, &mut Value)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Str> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values in order, to change.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Value> {
        self.entries.iter_mut().map(|(_, v)| v)
    }
}

/// Removes repeated keys: the first position, the last value.
fn dedup(entries: &mut Vec<(Str, Value)>) {
    if entries.len() < 2 {
        return;
    }
    let repeated = if entries.len() <= SCAN_LIMIT {
        entries.iter().enumerate().any(|(i, (k, _))| entries[..i].iter().any(|(p, _)| p == k))
    } else {
        let mut seen = std::collections::HashSet::with_capacity(entries.len());
        !entries.iter().all(|(k, _)| seen.insert(k.as_str()))
    };
    if !repeated {
        return;
    }
    let mut first: std::collections::HashMap<Str, usize> = std::collections::HashMap::new();
    let mut out: Vec<(Str, Value)> = Vec::with_capacity(entries.len());
    for (k, v) in entries.drain(..) {
        match first.get(&k) {
            Some(&i) => out[i].1 = v,
            None => {
                first.insert(k.clone(), out.len());
                out.push((k, v));
            }
        }
    }
    *entries = out;
}

/// Iterator over a map's entries.
#[derive(Clone)]
pub struct Iter<'a>(std::slice::Iter<'a, (Str, Value)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Str, &'a Value);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a Str, &'a Value);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl IntoIterator for Map {
    type Item = (Str, Value);
    type IntoIter = std::vec::IntoIter<(Str, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_vec().into_iter()
    }
}

impl<K: Into<Str>> FromIterator<(K, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Map {
        Map::from_entries(iter.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}

/// As [`Map::insert`] of each entry (a key already there takes the new value in its place), in linear time.
impl<K: Into<Str>> Extend<(K, Value)> for Map {
    fn extend<I: IntoIterator<Item = (K, Value)>>(&mut self, iter: I) {
        self.change(|e| {
            e.extend(iter.into_iter().map(|(k, v)| (k.into(), v)));
            dedup(e);
        });
    }
}

/// Maps are equal when they hold the same keys with equal values, in any order (as `serde_json`'s). Large
/// maps are compared through a hash index: two copies of a hostile mapping are not compared in quadratic time.
impl PartialEq for Map {
    fn eq(&self, other: &Map) -> bool {
        if self.len() != other.len() {
            return false;
        }
        if self.len() <= SCAN_LIMIT {
            return self.iter().all(|(k, v)| other.get(k) == Some(v));
        }
        let index: std::collections::HashMap<&str, &Value> = other.iter().map(|(k, v)| (k.as_str(), v)).collect();
        self.iter().all(|(k, v)| index.get(k.as_str()) == Some(&v))
    }
}

impl Eq for Value {}

impl std::ops::Index<&str> for Map {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

static NULL: Value = Value::Null;

/// What [`Value::get`] and indexing accept: a key of a map or the position in an array.
pub trait ValueIndex {
    /// The value this index selects in `v`.
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value>;
    /// The value this index selects in `v`, to change.
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value>;
    /// The value this index selects, inserted (as `Null`, in a map that `Null` becomes) when absent.
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value;
}

impl ValueIndex for str {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_object()?.get(self)
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        v.as_object_mut()?.get_mut(self)
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        if v.is_null() {
            *v = Value::Object(Map::new());
        }
        match v {
            Value::Object(m) => m.entry_or_null(self),
            // As serde_json panics: indexing a non-object by a key to assign is a programming error.
            other => panic!("cannot index a {} with a key", other.type_name()),
        }
    }
}

/// Owned strings index as the `str` they hold.
macro_rules! index_as_str {
    ($($t:ty),*) => {$(
        impl ValueIndex for $t {
            fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
                self.as_str().index_into(v)
            }
            fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
                self.as_str().index_into_mut(v)
            }
            fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
                self.as_str().index_or_insert(v)
            }
        }
    )*};
}
index_as_str!(String, Str);

impl ValueIndex for usize {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_array()?.get(*self)
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        v.as_array_mut()?.get_mut(*self)
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        let t = v.type_name();
        match v.as_array_mut().and_then(|a| a.get_mut(*self)) {
            Some(x) => x,
            None => panic!("cannot index a {t} at {self}"),
        }
    }
}

impl<T: ValueIndex + ?Sized> ValueIndex for &T {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        (**self).index_into(v)
    }
    fn index_into_mut<'v>(&self, v: &'v mut Value) -> Option<&'v mut Value> {
        (**self).index_into_mut(v)
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        (**self).index_or_insert(v)
    }
}

impl<I: ValueIndex> std::ops::Index<I> for Value {
    type Output = Value;
    /// `Null` where there is nothing at `index` (as `serde_json`).
    fn index(&self, index: I) -> &Value {
        index.index_into(self).unwrap_or(&NULL)
    }
}

impl<I: ValueIndex> std::ops::IndexMut<I> for Value {
    fn index_mut(&mut self, index: I) -> &mut Value {
        index.index_or_insert(self)
    }
}

impl Value {
    /// The value at a map key or array position.
    pub fn get<I: ValueIndex>(&self, index: I) -> Option<&Value> {
        index.index_into(self)
    }

    /// The value at a map key or array position, to change.
    pub fn get_mut<I: ValueIndex>(&mut self, index: I) -> Option<&mut Value> {
        index.index_into_mut(self)
    }

    /// The value at a JSON Pointer (RFC 6901: `/spec/tls/0/secretName`, `~1` for `/`, `~0` for `~`).
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        let mut v = self;
        for token in rest.split('/') {
            let token = unescape(token);
            v = match v {
                Value::Object(m) => m.get(&token)?,
                Value::Array(a) => a.get(array_index(&token)?)?,
                _ => return None,
            };
        }
        Some(v)
    }

    /// The value at a JSON Pointer, to change.
    pub fn pointer_mut(&mut self, pointer: &str) -> Option<&mut Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        let mut v = self;
        for token in rest.split('/') {
            let token = unescape(token);
            v = match v {
                Value::Object(m) => m.get_mut(&token)?,
                Value::Array(a) => a.get_mut(array_index(&token)?)?,
                _ => return None,
            };
        }
        Some(v)
    }

    /// Takes the value, leaving `Null`.
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The number as an `i64`, if it is an integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number()?.as_i64()
    }

    /// The number as a `u64`, if it is a non-negative integer.
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number()?.as_u64()
    }

    /// The number as an `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number()?.as_f64()
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The array's items, to change (not its length: see the module's documentation).
    pub fn as_array_mut(&mut self) -> Option<&mut [Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The map, if this is one.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The map, to change.
    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// True for `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// True for a string.
    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    /// True for a boolean.
    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    /// True for a number.
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    /// True for an integer that fits an `i64`.
    pub fn is_i64(&self) -> bool {
        self.as_number().is_some_and(Number::is_i64)
    }

    /// True for a non-negative integer.
    pub fn is_u64(&self) -> bool {
        self.as_number().is_some_and(Number::is_u64)
    }

    /// True for an array.
    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    /// True for a map.
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// The JSON type's name, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

pub(crate) fn unescape(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains('~') {
        token.replace("~1", "/").replace("~0", "~").into()
    } else {
        token.into()
    }
}

/// An RFC 6901 array index: digits, without a leading zero.
pub(crate) fn array_index(token: &str) -> Option<usize> {
    if token.is_empty() || (token.len() > 1 && token.starts_with('0')) || !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

/// Compact JSON, as `serde_json::Value` displays.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&s)
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("Null"),
            Value::Bool(b) => write!(f, "Bool({b})"),
            Value::Number(n) => write!(f, "Number({n})"),
            Value::String(s) => write!(f, "String({:?})", s.as_str()),
            Value::Array(a) => {
                f.write_str("Array ")?;
                f.debug_list().entries(a).finish()
            }
            Value::Object(m) => {
                f.write_str("Object ")?;
                fmt::Debug::fmt(m, f)
            }
        }
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter().map(|(k, v)| (k.as_str(), v))).finish()
    }
}

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<String> for Value {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == Some(other.as_str())
    }
}

impl PartialEq<bool> for Value {
    fn eq(&self, other: &bool) -> bool {
        self.as_bool() == Some(*other)
    }
}

impl PartialEq<i64> for Value {
    fn eq(&self, other: &i64) -> bool {
        self.as_i64() == Some(*other)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(Str::from(s))
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(Str::from(s))
    }
}

impl From<Str> for Value {
    fn from(s: Str) -> Value {
        Value::String(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

/// Numbers of every integer type the code base writes into values.
macro_rules! from_integer {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(n: $t) -> Value {
                Value::Number(n.into())
            }
        }
    )*};
}

from_integer!(i64, u64, i32, u32, usize);

impl From<Map> for Value {
    fn from(m: Map) -> Value {
        Value::Object(m)
    }
}

impl From<Vec<Value>> for Value {
    fn from(a: Vec<Value>) -> Value {
        Value::Array(a.into_boxed_slice())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(o: Option<T>) -> Value {
        o.map_or(Value::Null, Into::into)
    }
}

impl From<serde_json::Value> for Value {
    fn from(v: serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Number(n),
            serde_json::Value::String(s) => Value::String(Str::from(s)),
            serde_json::Value::Array(a) => Value::Array(a.into_iter().map(Value::from).collect()),
            serde_json::Value::Object(m) => {
                Value::Object(Map::from_entries(m.into_iter().map(|(k, v)| (Str::from(k), Value::from(v))).collect()))
            }
        }
    }
}

impl From<Value> for serde_json::Value {
    fn from(v: Value) -> serde_json::Value {
        match v {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(b),
            Value::Number(n) => serde_json::Value::Number(n),
            Value::String(s) => serde_json::Value::String(s.into_string()),
            Value::Array(a) => {
                serde_json::Value::Array(a.into_vec().into_iter().map(serde_json::Value::from).collect())
            }
            Value::Object(m) => {
                serde_json::Value::Object(m.into_iter().map(|(k, v)| (k.into_string(), v.into())).collect())
            }
        }
    }
}

impl From<&Value> for serde_json::Value {
    fn from(v: &Value) -> serde_json::Value {
        v.clone().into()
    }
}

/// A value of anything serializable (a view written back, a synthesized object).
pub fn to_value<T: Serialize + ?Sized>(t: &T) -> Result<Value, serde_json::Error> {
    serde_json::to_value(t).map(Value::from)
}

/// A typed value read from a value (a view, a spec).
pub fn from_value<'de, T: Deserialize<'de>>(v: &'de Value) -> Result<T, Error> {
    T::deserialize(v)
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => n.serialize(s),
            Value::String(v) => s.serialize_str(v),
            Value::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Value::Object(m) => m.serialize(s),
        }
    }
}

impl Serialize for Map {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            map.serialize_entry(k.as_str(), v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

impl<'de> Deserialize<'de> for Map {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Map, D::Error> {
        match Value::deserialize(d)? {
            Value::Object(m) => Ok(m),
            other => Err(de::Error::invalid_type(unexpected(&other), &"a map")),
        }
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(Str::from(s)))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(Str::from(s)))
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out.into_boxed_slice()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some((k, v)) = map.next_entry::<Str, Value>()? {
            out.push((k, v));
        }
        Ok(Value::Object(Map::from_entries(out)))
    }
}

/// Errors of reading a typed value from a [`Value`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error(msg.to_string())
    }
}

fn unexpected(v: &Value) -> de::Unexpected<'_> {
    match v {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => de::Unexpected::Unsigned(u),
            (None, Some(i)) => de::Unexpected::Signed(i),
            _ => de::Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

/// Typed views read straight from a held value, borrowing its strings (`&'de Value` as a deserializer,
/// as `serde_json`'s `&Value` is).
impl<'de> Deserializer<'de> for &'de Value {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(a) => visit_seq(visitor, a.iter()),
            Value::Object(m) => visit_map(visitor, m.iter().map(|(k, v)| (k.as_str(), v))),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Value::Null => visitor.visit_none(),
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
        match self {
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            Value::Object(m) if m.len() == 1 => {
                let (k, v) = m.iter().next().expect("one entry");
                visitor.visit_enum(EnumDeserializer { variant: k.as_str(), value: v })
            }
            other => Err(de::Error::invalid_type(unexpected(other), &"a string or a map of one entry")),
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

/// Visits a sequence of nodes (a `&Value`'s elements or a `ValueRef`'s), all of which must be read.
pub(crate) fn visit_seq<'de, V, N, I>(visitor: V, iter: I) -> Result<V::Value, Error>
where
    V: Visitor<'de>,
    N: Deserializer<'de, Error = Error>,
    I: ExactSizeIterator<Item = N>,
{
    let n = iter.len();
    let mut seq = SeqDeserializer { iter };
    let v = visitor.visit_seq(&mut seq)?;
    match seq.iter.len() {
        0 => Ok(v),
        _ => Err(de::Error::invalid_length(n, &"fewer elements in array")),
    }
}

/// Visits a map of nodes, all of which must be read.
pub(crate) fn visit_map<'de, V, N, I>(visitor: V, iter: I) -> Result<V::Value, Error>
where
    V: Visitor<'de>,
    N: Deserializer<'de, Error = Error>,
    I: ExactSizeIterator<Item = (&'de str, N)>,
{
    let n = iter.len();
    let mut map = MapDeserializer { iter, value: None };
    let v = visitor.visit_map(&mut map)?;
    match map.iter.len() {
        0 => Ok(v),
        _ => Err(de::Error::invalid_length(n, &"fewer elements in map")),
    }
}

struct SeqDeserializer<I> {
    iter: I,
}

impl<'de, N, I> SeqAccess<'de> for SeqDeserializer<I>
where
    N: Deserializer<'de, Error = Error>,
    I: ExactSizeIterator<Item = N>,
{
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        self.iter.next().map(|v| seed.deserialize(v)).transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct MapDeserializer<I, N> {
    iter: I,
    value: Option<N>,
}

impl<'de, N, I> MapAccess<'de> for MapDeserializer<I, N>
where
    N: Deserializer<'de, Error = Error>,
    I: ExactSizeIterator<Item = (&'de str, N)>,
{
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        match self.iter.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(de::value::BorrowedStrDeserializer::new(k)).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some(v) => seed.deserialize(v),
            None => Err(de::Error::custom("value is missing")),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An enum written as a map of one entry: the variant and its content.
pub(crate) struct EnumDeserializer<'de, N> {
    pub(crate) variant: &'de str,
    pub(crate) value: N,
}

impl<'de, N: de::VariantAccess<'de, Error = Error>> de::EnumAccess<'de> for EnumDeserializer<'de, N> {
    type Error = Error;
    type Variant = N;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, N), Error> {
        let variant = seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(self.variant))?;
        Ok((variant, self.value))
    }
}

impl<'de> de::VariantAccess<'de> for &'de Value {
    type Error = Error;
    fn unit_variant(self) -> Result<(), Error> {
        match self {
            Value::Null => Ok(()),
            other => Err(de::Error::invalid_type(unexpected(other), &"a unit variant")),
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

    fn v(j: serde_json::Value) -> Value {
        Value::from(j)
    }

    #[test]
    fn entries_are_small() {
        assert_eq!(std::mem::size_of::<Value>(), 24);
        assert_eq!(std::mem::size_of::<(Str, Value)>(), 48);
    }

    #[test]
    fn lookups_pointers_and_indexing_follow_serde_json() {
        let j = serde_json::json!({"metadata": {"name": "web", "annotations": {"a/b": "c", "x~y": 1}},
            "spec": {"tls": [{"secretName": "t"}], "n": -3, "f": 1.5, "b": true, "z": null}});
        let x = v(j.clone());
        for p in [
            "",
            "/metadata/name",
            "/metadata/annotations/a~1b",
            "/metadata/annotations/x~0y",
            "/spec/tls/0",
            "/spec/tls/0/secretName",
            "/spec/tls/1",
            "/spec/tls/01",
            "/spec/n",
            "/spec/z",
            "/nope",
            "spec",
        ] {
            assert_eq!(x.pointer(p).map(|v| serde_json::Value::from(v.clone())).as_ref(), j.pointer(p), "{p}");
        }
        assert_eq!(x["spec"]["tls"][0]["secretName"], "t");
        assert!(x["spec"]["missing"]["deeper"].is_null());
        assert_eq!(x["spec"]["n"].as_i64(), Some(-3));
        assert_eq!(x["spec"]["n"].as_u64(), None);
        assert_eq!(x["spec"]["f"].as_f64(), Some(1.5));
        assert_eq!(x["spec"]["b"], true);
        assert_eq!(x.to_string(), j.to_string());
        assert_eq!(serde_json::Value::from(x), j);
    }

    #[test]
    fn repeated_keys_keep_the_first_place_and_the_last_value() {
        for n in [3usize, 40] {
            let mut entries: Vec<(Str, Value)> = (0..n).map(|i| (Str::from(format!("k{i}")), Value::from(i))).collect();
            entries.push((Str::from("k1"), Value::from("last")));
            let m = Map::from_entries(entries);
            assert_eq!(m.len(), n);
            assert_eq!(m.keys().nth(1).map(Str::as_str), Some("k1"));
            assert_eq!(m.get("k1"), Some(&Value::from("last")));
        }
        let parsed: Value = serde_json::from_str(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
        assert_eq!(parsed.to_string(), r#"{"a":3,"b":2}"#);
    }

    #[test]
    fn extend_replaces_in_place_and_large_maps_compare_in_any_order() {
        let mut m: Map = [("a", Value::from(1)), ("b", Value::from(2))].into_iter().collect();
        m.extend([("b", Value::from("new")), ("c", Value::Null)]);
        assert_eq!(Value::Object(m).to_string(), r#"{"a":1,"b":"new","c":null}"#);
        for n in [3usize, 100] {
            let forward: Map = (0..n).map(|i| (format!("k{i}"), Value::from(i))).collect();
            let backward: Map = (0..n).rev().map(|i| (format!("k{i}"), Value::from(i))).collect();
            assert_eq!(forward, backward, "{n} keys in another order");
            let mut other = backward.clone();
            other.insert("k0".into(), Value::from("x"));
            assert_ne!(forward, other, "{n} keys, one value differs");
            let mut renamed = backward;
            renamed.remove("k0");
            renamed.insert("z".into(), Value::from(0));
            assert_ne!(forward, renamed, "{n} keys, one key differs");
        }
    }

    #[test]
    fn insert_remove_and_index_mut() {
        let mut x = Value::Null;
        x["metadata"]["namespace"] = Value::from("shop");
        x["metadata"]["name"] = Value::from("web");
        x["metadata"]["namespace"] = Value::from("other");
        assert_eq!(x.to_string(), r#"{"metadata":{"namespace":"other","name":"web"}}"#);
        let m = x["metadata"].as_object_mut().unwrap();
        assert_eq!(m.remove("namespace"), Some(Value::from("other")));
        assert_eq!(m.insert("a".into(), Value::Null), None);
        assert_eq!(x.to_string(), r#"{"metadata":{"name":"web","a":null}}"#);
    }

    #[test]
    fn typed_views_deserialize_from_a_held_value_with_serde_s_messages() {
        #[derive(Deserialize, Debug, PartialEq)]
        #[serde(rename_all = "camelCase")]
        struct Port {
            port: u16,
            name: Option<String>,
            #[serde(default)]
            app_protocol: Option<String>,
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
        let ok = v(serde_json::json!({"port": 443, "name": null, "kind": "Tcp", "extra": [1]}));
        assert_eq!(
            from_value::<Port>(&ok).unwrap(),
            Port { port: 443, name: None, app_protocol: None, kind: Kind::Tcp }
        );
        let other = v(serde_json::json!({"port": 1, "kind": {"Other": "x"}}));
        assert_eq!(from_value::<Port>(&other).unwrap().kind, Kind::Other("x".into()));
        assert_eq!(from_value::<IntOrString>(&v(serde_json::json!("http"))).unwrap(), IntOrString::Str("http".into()));
        assert_eq!(from_value::<IntOrString>(&v(serde_json::json!(8080))).unwrap(), IntOrString::Int(8080));
        let bad = v(serde_json::json!({"port": "https", "kind": "Tcp"}));
        let theirs = serde_json::from_value::<Port>(serde_json::json!({"port": "https", "kind": "Tcp"})).unwrap_err();
        assert_eq!(from_value::<Port>(&bad).unwrap_err().to_string(), theirs.to_string());
        let big = v(serde_json::json!({"port": 70000, "kind": "Tcp"}));
        assert!(from_value::<Port>(&big).unwrap_err().to_string().contains("70000"));
        let path = serde_path_to_error::deserialize::<_, Port>(&bad).unwrap_err();
        assert_eq!(path.path().to_string(), "port");
    }
}
