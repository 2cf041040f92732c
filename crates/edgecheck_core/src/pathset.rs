//! A sorted set of paths held in one buffer.
//!
//! A checkout's every file and directory were a `BTreeSet<String>`: a string allocation and a tree slot for
//! each of a large repository's tens of thousands of paths, about three times their text (#17). A
//! [`PathSet`] is the paths, sorted and without repeats, written one after another into one string, with
//! the offset where each ends: a lookup is a binary search, and iteration is in the order the set had.

/// A sorted set of paths (see the module's documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathSet {
    text: String,
    ends: Vec<u32>,
}

impl PathSet {
    /// How many paths.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `i`th path in order.
    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    /// Where `path` is, or would be.
    fn search(&self, path: &str) -> Result<usize, usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.get(mid).cmp(path) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    /// Whether `path` is in the set.
    pub fn contains(&self, path: &str) -> bool {
        self.search(path).is_ok()
    }

    /// The paths, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The paths from `start` on (`start` itself included), in order: `BTreeSet::range(start..)`.
    pub fn from(&self, start: &str) -> impl Iterator<Item = &str> + '_ {
        let first = self.search(start).unwrap_or_else(|i| i);
        (first..self.len()).map(|i| self.get(i))
    }

    /// Adds `path`; false when it was there. Rewrites the set: for building small sets (tests) one path at
    /// a time, not for a checkout's tree ([`PathSet::from_iter`]).
    pub fn insert(&mut self, path: &str) -> bool {
        if self.contains(path) {
            return false;
        }
        *self = self.iter().chain(std::iter::once(path)).collect();
        true
    }
}

impl<S: AsRef<str>> FromIterator<S> for PathSet {
    fn from_iter<I: IntoIterator<Item = S>>(paths: I) -> PathSet {
        let mut all: Vec<S> = paths.into_iter().collect();
        all.sort_unstable_by(|a, b| a.as_ref().cmp(b.as_ref()));
        all.dedup_by(|a, b| a.as_ref() == b.as_ref());
        let mut set = PathSet {
            text: String::with_capacity(all.iter().map(|p| p.as_ref().len()).sum()),
            ends: Vec::with_capacity(all.len()),
        };
        for p in &all {
            // Offsets are 32-bit: a set whose text would pass 4 GiB ends there, as the walk of a checkout
            // stops at 200,000 paths (never reached: that is 20 KiB a path).
            let Ok(end) = u32::try_from(set.text.len() + p.as_ref().len()) else { break };
            set.text.push_str(p.as_ref());
            set.ends.push(end);
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn answers_as_a_btree_set_does() {
        let paths =
            ["apps/shop", "apps", "", "apps/shop-old/x.yaml", "apps/shop/x.yaml", "apps", "b", "apps/shop/", "ä/ö"];
        let set: PathSet = paths.iter().collect();
        let tree: BTreeSet<&str> = paths.iter().copied().collect();
        assert_eq!(set.len(), tree.len());
        assert!(set.iter().eq(tree.iter().copied()));
        assert!(set.iter().rev().eq(tree.iter().rev().copied()));
        for probe in paths.iter().copied().chain(["ap", "apps/sho", "c", "apps/shop/x.yam", "z", "ä"]) {
            assert_eq!(set.contains(probe), tree.contains(probe), "{probe:?}");
            assert!(set.from(probe).eq(tree.range(probe..).copied()), "{probe:?}");
        }
        let mut grown = PathSet::default();
        assert!(grown.is_empty() && !grown.contains(""));
        for p in paths {
            let had = grown.contains(p);
            assert_eq!(grown.insert(p), !had, "{p:?}");
            assert!(grown.contains(p));
        }
        assert_eq!(grown, set);
        assert!(grown.insert("apps/a") && grown.contains("apps/a") && grown.len() == set.len() + 1);
    }
}
