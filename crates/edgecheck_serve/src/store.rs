//! The inventory `serve` keeps: the objects of every watched kind, as the watches report them
//! (ADDED/MODIFIED/DELETED applied, a relist replacing the kind), Secrets summarised (no value is
//! held: the watch summarised them before they got here), and the kinds that could not be read.

use std::collections::BTreeMap;

use edgecheck_core::{Inventory, LoadProblem, Object, Unchecked};
use edgecheck_kube::watch::WatchEvent;

/// One kind's state.
#[derive(Debug, Default)]
struct KindState {
    /// By (namespace, name).
    objects: BTreeMap<(Option<edgecheck_core::value::Str>, edgecheck_core::value::Str), Object>,
    /// What could not be read of the last list.
    problems: Vec<LoadProblem>,
    /// Listed in full at least once.
    synced: bool,
    /// Not readable now (403, an error, over a bound): not checked until a list succeeds.
    unchecked: Option<Unchecked>,
}

/// The objects of every watched kind.
#[derive(Debug)]
pub struct Store {
    kinds: BTreeMap<String, KindState>,
    /// Known kinds whose discovery failed: never read.
    undiscovered: Vec<Unchecked>,
    /// Objects of one kind at most; a kind over it is not checked.
    max_items: usize,
}

impl Store {
    /// A store expecting these kinds (each must be listed or reported unreadable before the store is synced).
    pub fn new(kinds: impl IntoIterator<Item = String>, undiscovered: Vec<Unchecked>, max_items: usize) -> Store {
        Store { kinds: kinds.into_iter().map(|k| (k, KindState::default())).collect(), undiscovered, max_items }
    }

    /// Applies one event; whether the inventory changed.
    pub fn apply(&mut self, ev: WatchEvent) -> bool {
        match ev {
            WatchEvent::Listed { kind, objects, problems } => {
                let max = self.max_items;
                let k = self.kinds.entry(kind).or_default();
                k.objects = objects.into_iter().map(|o| ((o.namespace.clone(), o.name.clone()), o)).collect();
                k.problems = problems;
                k.synced = true;
                k.unchecked = None;
                if k.objects.len() > max {
                    Self::over(k, max);
                }
                true
            }
            WatchEvent::Applied { kind, object } => {
                let max = self.max_items;
                let k = self.kinds.entry(kind).or_default();
                if k.unchecked.is_some() {
                    return false;
                }
                k.objects.insert((object.namespace.clone(), object.name.clone()), *object);
                if k.objects.len() > max {
                    Self::over(k, max);
                }
                true
            }
            WatchEvent::Deleted { kind, namespace, name } => self
                .kinds
                .get_mut(&kind)
                .is_some_and(|k| k.objects.remove(&(namespace.map(Into::into), name.into())).is_some()),
            WatchEvent::Unchecked { kind, unchecked } => {
                let k = self.kinds.entry(kind).or_default();
                // Unknown now: what was read before is no longer current.
                k.objects.clear();
                k.problems.clear();
                let changed = k.unchecked.as_ref().is_none_or(|u| u.reason != unchecked.reason);
                k.unchecked = Some(unchecked);
                changed
            }
            _ => false,
        }
    }

    /// A kind over the object bound: emptied and not checked until its next list fits.
    fn over(k: &mut KindState, max: usize) {
        let Some(o) = k.objects.values().next() else { return };
        k.unchecked = Some(Unchecked {
            api_version: o.api_version().to_string(),
            kind: o.kind.kind.to_string(),
            namespace: None,
            reason: format!("more than {max} objects (the limit per kind)"),
            cluster: o.source.cluster().map(str::to_string),
        });
        k.objects.clear();
    }

    /// Every kind listed once or known unreadable: the first full sync is done.
    pub fn synced(&self) -> bool {
        self.kinds.values().all(|k| k.synced || k.unchecked.is_some())
    }

    /// Objects per kind (every watched kind, 0 included).
    pub fn counts(&self) -> BTreeMap<String, usize> {
        self.kinds.iter().map(|(k, s)| (k.clone(), s.objects.len())).collect()
    }

    /// Objects in all.
    pub fn len(&self) -> usize {
        self.kinds.values().map(|k| k.objects.len()).sum()
    }

    /// Whether the store holds no object.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether every kind was read (in every namespace, when the watch is not limited to one).
    pub fn complete(&self) -> bool {
        self.undiscovered.is_empty() && self.kinds.values().all(|k| k.unchecked.is_none())
    }

    /// A copy of the inventory for one evaluation: the objects in kind order, then name order (stable
    /// output whatever the order of events), and the kinds not checked.
    pub fn inventory(&self) -> Inventory {
        let mut inv = Inventory::default();
        inv.objects.reserve(self.len());
        for k in self.kinds.values() {
            inv.objects.extend(k.objects.values().cloned());
            inv.problems.extend(k.problems.iter().cloned());
            inv.unchecked.extend(k.unchecked.iter().cloned());
        }
        inv.unchecked.extend(self.undiscovered.iter().cloned());
        inv
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(name: &str, host: &str) -> Object {
        let v = json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                       "metadata": {"name": name, "namespace": "shop"}, "spec": {"rules": [{"host": host}]}});
        edgecheck_load_free(v)
    }

    /// An object as the watch makes it (without a loader dependency here).
    fn edgecheck_load_free(v: serde_json::Value) -> Object {
        Object {
            kind: edgecheck_core::kind::ObjKind::new(
                v["apiVersion"].as_str().unwrap_or_default(),
                edgecheck_core::Kind::from_api_version(
                    v["apiVersion"].as_str().unwrap_or_default(),
                    v["kind"].as_str().unwrap_or_default(),
                ),
            ),
            namespace: v["metadata"]["namespace"].as_str().map(Into::into),
            name: v["metadata"]["name"].as_str().unwrap_or_default().into(),
            value: v.into(),
            source: edgecheck_core::Source::default(),
            secret: None,
        }
    }

    #[test]
    fn events_apply_in_order_and_a_relist_replaces_the_kind() {
        let mut s = Store::new(["Ingress.networking.k8s.io".to_string(), "Secret".to_string()], Vec::new(), 3);
        let k = || "Ingress.networking.k8s.io".to_string();
        assert!(!s.synced());
        assert!(s.apply(WatchEvent::Listed { kind: k(), objects: vec![obj("a", "a.example")], problems: vec![] }));
        assert!(!s.synced(), "Secrets not listed yet");
        let u = Unchecked {
            api_version: "v1".into(),
            kind: "Secret".into(),
            namespace: None,
            reason: "forbidden: no".into(),
            cluster: None,
        };
        assert!(s.apply(WatchEvent::Unchecked { kind: "Secret".into(), unchecked: u.clone() }));
        assert!(!s.apply(WatchEvent::Unchecked { kind: "Secret".into(), unchecked: u }), "the same reason again");
        assert!(s.synced());
        assert!(!s.complete());
        assert!(s.apply(WatchEvent::Applied { kind: k(), object: Box::new(obj("b", "b.example")) }));
        assert!(s.apply(WatchEvent::Applied { kind: k(), object: Box::new(obj("a", "a2.example")) }));
        assert_eq!(s.len(), 2);
        let inv = s.inventory();
        assert_eq!(
            inv.objects[0].value.pointer("/spec/rules/0/host").and_then(edgecheck_core::ValueRef::as_str),
            Some("a2.example")
        );
        assert_eq!(inv.unchecked.len(), 1);
        assert!(s.apply(WatchEvent::Deleted { kind: k(), namespace: Some("shop".into()), name: "b".into() }));
        assert!(!s.apply(WatchEvent::Deleted { kind: k(), namespace: Some("shop".into()), name: "b".into() }));
        assert_eq!(s.counts()["Ingress.networking.k8s.io"], 1);
        // Over the bound: the kind is not checked, never half-held.
        for n in ["c", "d", "e"] {
            s.apply(WatchEvent::Applied { kind: k(), object: Box::new(obj(n, "x.example")) });
        }
        assert_eq!(s.counts()["Ingress.networking.k8s.io"], 0);
        assert!(s.inventory().unchecked.iter().any(|u| u.reason.contains("more than 3 objects")));
        assert!(s.apply(WatchEvent::Listed { kind: k(), objects: vec![obj("a", "a.example")], problems: vec![] }));
        assert_eq!(s.len(), 1);
    }
}
