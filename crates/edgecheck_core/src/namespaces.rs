//! The namespace a build gives an object: kustomize's `namespace:` (the outermost kustomization that
//! sets one wins, as overlays override their bases) and Flux's `spec.targetNamespace` over everything a
//! Flux `Kustomization` builds from its `spec.path`. Both override `metadata.namespace` and rename a
//! `Namespace` object, as `kustomize build` does. A base two overlays put in different namespaces is
//! rendered twice in a cluster; the inventory holds it once, so such a base keeps its own namespace.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::Value;

use crate::graph::under;
use crate::inventory::Build;
use crate::Object;

/// `rel` resolved against `dir`, both `/`-separated: `.` and empty segments dropped, `..` applied.
/// An absolute `rel` stands alone.
pub fn join_path(dir: &str, rel: &str) -> String {
    let (absolute, base) = if rel.starts_with('/') { (true, "") } else { (dir.starts_with('/'), dir) };
    let mut parts: Vec<&str> = Vec::new();
    for seg in base.split('/').chain(rel.split('/')) {
        match seg {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

fn parent_dir(file: &str) -> &str {
    file.rsplit_once('/').map_or("", |(d, _)| d)
}

/// What a build says of one object's namespace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BuildNamespace {
    /// A namespace the object's build forces on it (and on a `Namespace` object, its name).
    pub forced: Option<String>,
    /// The namespace of the kustomization in the object's directory when it does not list the object's
    /// file: a default for an object without one, as before kustomize decides.
    pub dir_default: Option<String>,
}

/// One value over several ways of reaching an object: the same from all, or none when they differ.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Up {
    None,
    Ns(String),
    Ambiguous,
}

impl Up {
    fn join(self, other: Up) -> Up {
        match (self, other) {
            (Up::None, o) | (o, Up::None) => o,
            (Up::Ns(a), Up::Ns(b)) if a == b => Up::Ns(a),
            _ => Up::Ambiguous,
        }
    }
    fn ns(self) -> Option<String> {
        match self {
            Up::Ns(n) => Some(n),
            _ => None,
        }
    }
}

struct Kustomizations<'a> {
    builds: Vec<&'a Build>,
    by_dir: HashMap<&'a str, usize>,
    parents: HashMap<usize, Vec<usize>>,
    file_owners: HashMap<&'a str, Vec<usize>>,
    memo: HashMap<usize, Up>,
}

impl<'a> Kustomizations<'a> {
    fn new(builds: &'a [Build]) -> Self {
        let builds: Vec<&Build> = builds.iter().filter(|b| !b.flux).collect();
        let mut by_dir = HashMap::new();
        for (i, b) in builds.iter().enumerate() {
            by_dir.entry(b.dir.as_str()).or_insert(i);
        }
        let mut parents: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut file_owners: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, b) in builds.iter().enumerate() {
            for d in &b.dirs {
                if let Some(&c) = by_dir.get(d.as_str()) {
                    if c != i {
                        parents.entry(c).or_default().push(i);
                    }
                }
            }
            for f in &b.files {
                file_owners.entry(f.as_str()).or_default().push(i);
            }
        }
        Kustomizations { builds, by_dir, parents, file_owners, memo: HashMap::new() }
    }

    /// The namespace set above kustomization `k` by the overlays that include it.
    fn set_above(&mut self, k: usize, visiting: &mut HashSet<usize>) -> Up {
        if let Some(u) = self.memo.get(&k) {
            return u.clone();
        }
        if !visiting.insert(k) {
            return Up::None;
        }
        let mut up = Up::None;
        for p in self.parents.get(&k).cloned().unwrap_or_default() {
            let above = match self.set_above(p, visiting) {
                Up::None => self.builds[p].namespace.clone().map_or(Up::None, Up::Ns),
                u => u,
            };
            up = up.join(above);
        }
        visiting.remove(&k);
        self.memo.insert(k, up.clone());
        up
    }

    /// The namespace the objects kustomization `k` includes end up in.
    fn effective(&mut self, k: usize) -> Option<String> {
        match self.set_above(k, &mut HashSet::new()) {
            Up::Ns(n) => Some(n),
            Up::Ambiguous | Up::None => self.builds[k].namespace.clone(),
        }
    }

    /// Every kustomization reachable from `k` (itself included).
    fn reach(&self, k: usize) -> BTreeSet<usize> {
        let mut seen = BTreeSet::from([k]);
        let mut stack = vec![k];
        while let Some(i) = stack.pop() {
            for d in &self.builds[i].dirs {
                if let Some(&c) = self.by_dir.get(d.as_str()) {
                    if seen.insert(c) {
                        stack.push(c);
                    }
                }
            }
        }
        seen
    }
}

/// A Flux `Kustomization` object's `spec.path` and `spec.targetNamespace`.
fn flux_target(o: &Object) -> Option<(&str, &str)> {
    if o.kind.group != "kustomize.toolkit.fluxcd.io" || o.kind.kind != "Kustomization" {
        return None;
    }
    let spec = o.value.get("spec")?;
    let ns = spec.get("targetNamespace").and_then(Value::as_str).filter(|s| !s.is_empty())?;
    let path = spec.get("path").and_then(Value::as_str).unwrap_or("./");
    Some((path, ns))
}

/// Where a Flux Kustomization's `spec.path` is in the loaded files: relative to the root of the checkout
/// its file is in when that is known, else to the nearest ancestor directory of its file under which
/// manifests were loaded.
fn flux_dir(o: &Object, path: &str, known: &HashSet<String>) -> Option<String> {
    let file = o.source.file.as_deref()?;
    let mut roots: Vec<String> = Vec::new();
    if let Some((_, rel)) = &o.source.repo_path {
        if let Some(root) = file.strip_suffix(rel.as_str()) {
            roots.push(root.trim_end_matches('/').to_string());
        }
    }
    let mut d = parent_dir(file);
    loop {
        roots.push(d.to_string());
        if d.is_empty() || d == "/" {
            break;
        }
        d = parent_dir(d);
    }
    roots.into_iter().map(|r| join_path(&r, path)).find(|c| known.contains(c))
}

/// The namespace builds give each object of `objects` (same order).
pub fn resolve(objects: &[Object], builds: &[Build]) -> Vec<BuildNamespace> {
    let mut out = vec![BuildNamespace::default(); objects.len()];
    if builds.is_empty() && !objects.iter().any(|o| flux_target(o).is_some()) {
        return out;
    }
    let mut k = Kustomizations::new(builds);
    for (o, r) in objects.iter().zip(out.iter_mut()) {
        let Some(file) = o.source.file.as_deref() else { continue };
        if let Some(owners) = k.file_owners.get(file).cloned() {
            let up = owners.into_iter().fold(Up::None, |acc, i| acc.join(k.effective(i).map_or(Up::None, Up::Ns)));
            r.forced = up.ns();
        } else if let Some(&i) = k.by_dir.get(parent_dir(file)) {
            r.dir_default = k.effective(i);
        }
    }

    // Flux: every directory manifests were loaded from, and their ancestors, as candidates for paths.
    let mut known: HashSet<String> = HashSet::new();
    for f in objects.iter().filter_map(|o| o.source.file.as_deref()) {
        let mut d = parent_dir(f);
        while known.insert(d.to_string()) && !d.is_empty() && d != "/" {
            d = parent_dir(d);
        }
    }
    known.extend(builds.iter().map(|b| b.dir.clone()));
    // Per Flux Kustomization: its directory, the files and kustomization directories its build reaches
    // (a kustomization there may include bases elsewhere), and the namespace.
    let mut flux: Vec<(String, HashSet<&str>, HashSet<&str>, &str)> = Vec::new();
    for o in objects {
        let Some((path, ns)) = flux_target(o) else { continue };
        let Some(dir) = flux_dir(o, path, &known) else { continue };
        let (mut files, mut dirs) = (HashSet::new(), HashSet::new());
        if let Some(&i) = k.by_dir.get(dir.as_str()) {
            for j in k.reach(i) {
                files.extend(k.builds[j].files.iter().map(String::as_str));
                dirs.insert(k.builds[j].dir.as_str());
            }
        }
        flux.push((dir, files, dirs, ns));
    }
    if flux.is_empty() {
        return out;
    }
    for (o, r) in objects.iter().zip(out.iter_mut()) {
        let Some(file) = o.source.file.as_deref() else { continue };
        let fdir = parent_dir(file);
        let up = flux
            .iter()
            .filter(|(dir, files, dirs, _)| under(file, dir) || files.contains(file) || dirs.contains(fdir))
            .fold(Up::None, |acc, (_, _, _, ns)| acc.join(Up::Ns((*ns).to_string())));
        if let Some(ns) = up.ns() {
            r.forced = Some(ns);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_paths() {
        assert_eq!(join_path("repo/apps/x", "./app"), "repo/apps/x/app");
        assert_eq!(join_path("repo/apps/x", "../../base"), "repo/base");
        assert_eq!(join_path("", "./kubernetes/apps/"), "kubernetes/apps");
        assert_eq!(join_path("/tmp/r", "a/../b"), "/tmp/r/b");
        assert_eq!(join_path("a", "../../b"), "../b");
        assert_eq!(join_path("a", "/abs/x"), "/abs/x");
    }
}
