//! Label maps (a pod template's labels, a Service's selector, a selector's `matchLabels`), held compactly.
//!
//! A `BTreeMap<String, String>` spends a whole B-tree node (eleven slots, about 560 bytes) on a map of one
//! label, plus an allocation per key and value; a workload and its Service hold three such maps. Here a map
//! is a vector of `(key, value)` pairs sorted by key, with strings of up to 24 bytes stored inline (nearly
//! every label): one label takes 48 bytes. Lookups are binary searches. It reads from a mapping of strings
//! exactly as the `BTreeMap` did: a value that is not a string is an error with serde's message, and a
//! repeated key takes the last value.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::value::Str;

/// A map of label keys to values, sorted by key.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Labels {
    entries: Vec<(Str, Str)>,
}

impl Labels {
    /// An empty map.
    pub fn new() -> Labels {
        Labels::default()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.position(key).ok().map(|i| self.entries[i].1.as_str())
    }

    /// True when `key` is set.
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_ok()
    }

    /// Sets `key` to `value`, replacing its value when it is set.
    pub fn insert(&mut self, key: impl Into<Str>, value: impl Into<Str>) {
        let key = key.into();
        match self.position(&key) {
            Ok(i) => self.entries[i].1 = value.into(),
            Err(i) => self.entries.insert(i, (key, value.into())),
        }
    }

    /// Number of labels.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no labels.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The labels in key order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + '_ {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    /// True when every label of `other` is set here to the same value (an equality selector's match).
    pub fn contains_all(&self, other: &Labels) -> bool {
        other.iter().all(|(k, v)| self.get(k) == Some(v))
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    /// Sorts by key; of a repeated key the last value stays (what inserting in order would leave).
    fn from_unsorted(mut entries: Vec<(Str, Str)>) -> Labels {
        // Stable: equal keys keep their order, and the last of each run wins.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Str, Str)> = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1 = v,
                _ => out.push((k, v)),
            }
        }
        out.shrink_to_fit();
        Labels { entries: out }
    }
}

impl<K: Into<Str>, V: Into<Str>> FromIterator<(K, V)> for Labels {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Labels {
        Labels::from_unsorted(iter.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}

impl<'a> IntoIterator for &'a Labels {
    type Item = (&'a str, &'a str);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (Str, Str)>, fn(&'a (Str, Str)) -> (&'a str, &'a str)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

impl fmt::Debug for Labels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Labels {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Labels {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Labels, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Labels;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Labels, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
                // As `String`s, so that a value of another type fails with the message it always had.
                while let Some((k, v)) = map.next_entry::<String, String>()? {
                    entries.push((Str::from(k), Str::from(v)));
                }
                Ok(Labels::from_unsorted(entries))
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_mapping_sorted_and_the_last_of_a_repeated_key_wins() {
        let v = crate::json!({"tier": "web", "app": "shop", "z": "1"});
        let l = Labels::deserialize(&v).unwrap();
        assert_eq!(l.keys().collect::<Vec<_>>(), ["app", "tier", "z"]);
        assert_eq!(l.get("tier"), Some("web"));
        assert_eq!(l.get("missing"), None);
        let l: Labels = [("a", "1"), ("b", "2"), ("a", "3")].into_iter().collect();
        assert_eq!(l.iter().collect::<Vec<_>>(), [("a", "3"), ("b", "2")]);
    }

    #[test]
    fn a_value_of_another_type_fails_as_a_btreemap_of_strings_did() {
        let v = crate::json!({"version": 2});
        let ours = Labels::deserialize(&v).unwrap_err().to_string();
        let theirs = std::collections::BTreeMap::<String, String>::deserialize(&v).unwrap_err().to_string();
        assert_eq!(ours, theirs);
        let v = crate::json!(["a"]);
        let ours = Labels::deserialize(&v).unwrap_err().to_string();
        let theirs = std::collections::BTreeMap::<String, String>::deserialize(&v).unwrap_err().to_string();
        assert_eq!(ours, theirs);
    }

    #[test]
    fn insert_keeps_order_and_replaces() {
        let mut l = Labels::new();
        l.insert("b", "1");
        l.insert("a", "2");
        l.insert("b", "3");
        assert_eq!(l.iter().collect::<Vec<_>>(), [("a", "2"), ("b", "3")]);
        let sel: Labels = [("b", "3")].into_iter().collect();
        assert!(l.contains_all(&sel));
        assert!(!sel.contains_all(&l));
        assert!(l.contains_all(&Labels::new()));
    }
}
