//! The namespace a build gives an object: kustomize's `namespace:` (the outermost kustomization that
//! sets one wins, as overlays override their bases) and Flux's `spec.targetNamespace` over everything a
//! Flux `Kustomization` builds from its `spec.path`. Both override `metadata.namespace` and rename a
//! `Namespace` object, as `kustomize build` does. A base two overlays put in different namespaces is
//! rendered twice in a cluster; the inventory holds it once, so such a base keeps its own namespace.

use crate::doc::ValueRef;
use std::collections::{BTreeSet, HashMap, HashSet};

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
    /// The outermost builds that include the object (kustomizations no other includes, Flux
    /// Kustomizations), as ids: objects no build shares are alternatives (overlays, clusters), not
    /// duplicates.
    pub tops: Vec<usize>,
    /// A build outside example directories includes the object (a kustomization that lists its file, or
    /// a Flux Kustomization whose path holds it): it is applied even from an example directory.
    pub applied: bool,
    /// The object's directory has a kustomization that does not list its file (commented out of
    /// `resources`, or never listed): the file is not part of that build.
    pub unlisted: bool,
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

    /// The outermost kustomizations that include `k` (itself when none does).
    fn tops(&self, k: usize) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        let (mut seen, mut stack) = (BTreeSet::from([k]), vec![k]);
        while let Some(i) = stack.pop() {
            match self.parents.get(&i) {
                Some(ps) if !ps.is_empty() => {
                    for &p in ps {
                        if seen.insert(p) {
                            stack.push(p);
                        }
                    }
                }
                _ => {
                    out.insert(i);
                }
            }
        }
        out
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

/// A Flux Kustomization's build: its directory, the files and kustomization directories it reaches, and
/// its target namespace.
type FluxBuild<'a> = (String, HashSet<&'a str>, HashSet<&'a str>, Option<&'a str>);

/// A Flux `Kustomization` object's `spec.path`, `spec.targetNamespace` (if it sets one), and whether its
/// source is a git repository (its path is then relative to that checkout's root).
fn flux_target(o: &Object) -> Option<(&str, Option<&str>, bool)> {
    if o.kind.group != "kustomize.toolkit.fluxcd.io" || o.kind.kind != "Kustomization" {
        return None;
    }
    let spec = o.value.get("spec")?;
    let git = spec.pointer("/sourceRef/kind").and_then(ValueRef::as_str).is_none_or(|k| k == "GitRepository");
    let ns = spec.get("targetNamespace").and_then(ValueRef::as_str).filter(|s| !s.is_empty());
    let path = spec.get("path").and_then(ValueRef::as_str).unwrap_or("./");
    // Another source (an ExternalArtifact, an OCIRepository, a Bucket) packs directories of this checkout, or
    // of none: its path is one of them only when found below the Kustomization's own directories, never the
    // artifact's root (Flux's own manifests come from an OCIRepository at `path: ./`).
    if !git && join_path("", path).is_empty() {
        return None;
    }
    Some((path, ns, git))
}

/// Whether a kustomization sits in a directory strictly between `dir` (an ancestor) and `d`: it decides what
/// of `d` is built, so `d` is not simply part of a build of `dir`.
fn narrowed(k: &Kustomizations<'_>, d: &str, dir: &str) -> bool {
    let mut cur = parent_dir(d);
    while cur != dir && under(cur, dir) && cur.len() > dir.len() {
        if k.by_dir.contains_key(cur) {
            return true;
        }
        cur = parent_dir(cur);
    }
    false
}

/// `(namespace, name)` of the GitRepository a Flux Kustomization builds from.
fn source_key(o: &Object) -> (Option<String>, String) {
    let r = o.value.pointer("/spec/sourceRef");
    let name = r.and_then(|r| r.get("name")).and_then(ValueRef::as_str).unwrap_or("").to_string();
    let ns = r
        .and_then(|r| r.get("namespace"))
        .and_then(ValueRef::as_str)
        .map(str::to_string)
        .or_else(|| o.namespace.as_deref().map(str::to_string));
    (ns, name)
}

/// GitRepositories in the inputs whose `url` is none of the linted checkouts' remotes (when those are known):
/// another repository, whose paths are not this checkout's.
fn foreign_sources(objects: &[Object], repos: &[crate::RepoInfo]) -> HashSet<(Option<String>, String)> {
    let remotes: Vec<String> =
        repos.iter().flat_map(|r| r.remotes.iter().map(|u| crate::graph::normalize_repo_url(u))).collect();
    if remotes.is_empty() {
        return HashSet::new();
    }
    objects
        .iter()
        .filter(|o| o.kind.group == "source.toolkit.fluxcd.io" && o.kind.kind == "GitRepository")
        .filter(|o| {
            o.value
                .pointer("/spec/url")
                .and_then(ValueRef::as_str)
                .is_some_and(|u| !remotes.contains(&crate::graph::normalize_repo_url(u)))
        })
        .map(|o| (o.namespace.as_deref().map(str::to_string), o.name.to_string()))
        .collect()
}

/// Where a Flux Kustomization's `spec.path` is in the loaded files: for a git source, relative to the root of
/// the checkout its file is in when that is known; else (and for other sources) relative to the nearest
/// ancestor directory of its file under which the path names loaded manifests.
fn flux_dir(o: &Object, path: &str, git: bool, known: &HashSet<String>) -> Option<String> {
    let file = o.source.file()?;
    // As discovery reads it: `/apps/x`, `./apps/x/` and `apps/x` are one path of the source.
    let path = crate::graph::normalize_rel_path(path);
    let path = path.as_str();
    let mut roots: Vec<String> = Vec::new();
    let checkout = o.source.repo_path().and_then(|(_, rel)| file.strip_suffix(rel));
    if let (Some(root), true) = (checkout, git) {
        roots.push(root.trim_end_matches('/').to_string());
    }
    // The root itself (`./`): the checkout's root, else the outermost directory manifests came from.
    if join_path("", path).is_empty() {
        if let Some(root) = checkout {
            return Some(root.trim_end_matches('/').to_string());
        }
        let mut d = parent_dir(file);
        let mut outermost = None;
        loop {
            if known.contains(d) {
                outermost = Some(d.to_string());
            }
            if d.is_empty() || d == "/" {
                return outermost;
            }
            d = parent_dir(d);
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
pub fn resolve(objects: &[Object], builds: &[Build], repos: &[crate::RepoInfo]) -> Vec<BuildNamespace> {
    let mut out = vec![BuildNamespace::default(); objects.len()];
    if builds.is_empty() && !objects.iter().any(|o| flux_target(o).is_some()) {
        return out;
    }
    let foreign = foreign_sources(objects, repos);
    let mut k = Kustomizations::new(builds);
    for (o, r) in objects.iter().zip(out.iter_mut()) {
        let Some(file) = o.source.file() else { continue };
        if let Some(owners) = k.file_owners.get(file).cloned() {
            let mut tops = BTreeSet::new();
            let mut up = Up::None;
            for i in owners {
                up = up.join(k.effective(i).map_or(Up::None, Up::Ns));
                tops.extend(k.tops(i));
            }
            r.forced = up.ns();
            r.applied = tops.iter().any(|&t| !k.builds[t].example);
            r.tops = tops.into_iter().collect();
        } else if let Some(&i) = k.by_dir.get(parent_dir(file)) {
            r.dir_default = k.effective(i);
            r.tops = k.tops(i).into_iter().collect();
            r.unlisted = true;
        }
    }

    if !objects.iter().any(|o| flux_target(o).is_some()) {
        return out;
    }
    // Flux: every directory manifests were loaded from, and their ancestors, as candidates for paths.
    let mut known: HashSet<String> = HashSet::new();
    for f in objects.iter().filter_map(|o| o.source.file()) {
        let mut d = parent_dir(f);
        while known.insert(d.to_string()) && !d.is_empty() && d != "/" {
            d = parent_dir(d);
        }
    }
    known.extend(builds.iter().map(|b| b.dir.clone()));
    // Per Flux Kustomization: its directory, the files and kustomization directories its build reaches
    // (a kustomization there may include bases elsewhere), and the namespace.
    let mut flux: Vec<FluxBuild<'_>> = Vec::new();
    let mut flux_example: Vec<bool> = Vec::new();
    // Kustomization directories in order: those below a Flux path are one run of it (a scan of every
    // kustomization per Flux Kustomization was O(Flux × kustomizations)).
    let mut kdirs: Vec<(&str, usize)> = k.by_dir.iter().map(|(d, &i)| (*d, i)).collect();
    kdirs.sort_unstable();
    for o in objects {
        let Some((path, ns, git)) = flux_target(o) else { continue };
        // A Kustomization of another repository's GitRepository builds nothing of this checkout.
        if git && foreign.contains(&source_key(o)) {
            continue;
        }
        let Some(dir) = flux_dir(o, path, git, &known) else { continue };
        let (mut files, mut dirs) = (HashSet::new(), HashSet::new());
        // With a kustomization, what it reaches; without, the one Flux generates, which lists the manifests
        // of the directory tree and the nearest kustomizations below it (each reaching its own).
        let starts: Vec<usize> = match k.by_dir.get(dir.as_str()) {
            Some(&i) => vec![i],
            None => {
                let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
                let start = kdirs.partition_point(|(d, _)| *d < prefix.as_str());
                kdirs[start..]
                    .iter()
                    .take_while(|(d, _)| d.starts_with(prefix.as_str()))
                    .filter(|(d, _)| *d != dir.as_str() && under(d, &dir) && !narrowed(&k, d, &dir))
                    .map(|&(_, i)| i)
                    .collect()
            }
        };
        for i in starts {
            for j in k.reach(i) {
                files.extend(k.builds[j].files.iter().map(String::as_str));
                dirs.insert(k.builds[j].dir.as_str());
            }
        }
        flux.push((dir, files, dirs, ns));
        flux_example.push(o.source.example);
    }
    if flux.is_empty() {
        return out;
    }
    let first_flux = k.builds.len();
    // Each object's Flux builds are looked up (by its file, its directory, the directories above it), not
    // found by testing every build against every object: that was O(objects × Kustomizations), 0.5 s for
    // 8,000 objects of 2,000 Flux Kustomizations.
    let mut by_path: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_file: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_kdir: HashMap<&str, Vec<usize>> = HashMap::new();
    for (fi, (dir, files, dirs, _)) in flux.iter().enumerate() {
        by_path.entry(dir.as_str()).or_default().push(fi);
        files.iter().for_each(|f| by_file.entry(*f).or_default().push(fi));
        dirs.iter().for_each(|d| by_kdir.entry(*d).or_default().push(fi));
    }
    let mut hits: Vec<usize> = Vec::new();
    for (o, r) in objects.iter().zip(out.iter_mut()) {
        let Some(file) = o.source.file() else { continue };
        let fdir = parent_dir(file);
        hits.clear();
        hits.extend(by_file.get(file).into_iter().flatten());
        hits.extend(by_kdir.get(fdir).into_iter().flatten());
        // Under its path, unless a kustomization on the way narrows what is built there.
        if !k.by_dir.contains_key(fdir) {
            for d in file.rmatch_indices('/').map(|(i, _)| &file[..i]).chain([""]) {
                let builds = by_path.get(d).into_iter().flatten();
                hits.extend(builds.filter(|&&fi| !narrowed(&k, fdir, &flux[fi].0)));
            }
        }
        // In the builds' order, each once.
        hits.sort_unstable();
        hits.dedup();
        let mut up = Up::None;
        for &fi in &hits {
            up = up.join(flux[fi].3.map_or(Up::None, |n| Up::Ns(n.to_string())));
            r.tops.push(first_flux + fi);
            r.applied |= !flux_example[fi];
        }
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
