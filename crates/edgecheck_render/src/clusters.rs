//! Which cluster a file belongs to. A repository that drives several clusters lays each one's tree out
//! under its own directory: `clusters/<name>/` (Flux's documented layout), or any other place the trees'
//! Flux roots sit (`kubernetes/cluster-0/flux/…` beside `kubernetes/nas-1/flux/…`). A root is a Flux
//! `Kustomization` read from a file whose `spec.path` holds that file: bootstrap applied it, and it applies
//! itself. With two roots or more, each root's tree is the directory down to the first segment where the
//! roots' paths differ, named by that segment.

use edgecheck_core::namespaces::join_path;
use edgecheck_core::Object;
use edgecheck_core::ValueRef;

/// The cluster trees of a repository: (name, directory as files are spelled).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trees {
    trees: Vec<(String, String)>,
}

impl Trees {
    /// The trees of the self-applying Flux roots among `files`; none for fewer than two roots.
    pub fn find(files: &[Object]) -> Trees {
        // Every Flux Kustomization of this checkout read from a file: its file, the directory its path names,
        // and whether that directory holds the file (it applies itself).
        let mut all: Vec<(String, String, bool)> = Vec::new();
        for o in files.iter().filter(|o| o.source.build().is_none() && !o.source.example) {
            if o.kind.group != "kustomize.toolkit.fluxcd.io" || o.kind.kind != "Kustomization" {
                continue;
            }
            let (Some(file), Some((_, rel))) = (o.source.file(), o.source.repo_path()) else { continue };
            // Only a Kustomization that applies this checkout (a GitRepository source), not Flux's own
            // manifests from an OCIRepository.
            if o.value.pointer("/spec/sourceRef/kind").and_then(ValueRef::as_str).is_some_and(|k| k != "GitRepository")
            {
                continue;
            }
            let Some(path) = o.value.pointer("/spec/path").and_then(ValueRef::as_str) else { continue };
            let path = edgecheck_core::graph::normalize_rel_path(path);
            // The directory as files are spelled: the file's prefix before its repository path, then the path.
            let prefix = file.strip_suffix(rel).unwrap_or("").trim_end_matches('/');
            let dir = join_path(prefix, &path);
            let own = edgecheck_core::graph::under_dir(rel, &path);
            all.push((file.to_string(), dir, own));
        }
        // A root applies itself and is applied by bootstrap, not by another Kustomization: an app's `ks.yaml`
        // pointing at its own directory, under another Kustomization's path, is no root.
        // The Kustomizations by the directory their path names: another one's path above a file is found by
        // looking up the file's ancestors (testing every pair was quadratic in a repository's Kustomizations).
        let mut by_dir: std::collections::HashMap<&str, Vec<&str>> = std::collections::HashMap::new();
        for (file, dir, _) in &all {
            by_dir.entry(dir.as_str()).or_default().push(file.as_str());
        }
        let applied_by_another = |file: &str, dir: &str| {
            file.rmatch_indices('/')
                .map(|(i, _)| &file[..i])
                .chain([""])
                .any(|d2| d2 != dir && by_dir.get(d2).is_some_and(|files| files.iter().any(|f2| *f2 != file)))
        };
        let mut roots: Vec<String> = Vec::new();
        for (file, dir, own) in &all {
            if *own && !roots.contains(dir) && !applied_by_another(file, dir) {
                roots.push(dir.clone());
            }
        }
        // A root whose tree holds another root's (the repository's root) names no cluster.
        let all = roots.clone();
        roots.retain(|r| !all.iter().any(|o| o != r && edgecheck_core::graph::under_dir(o, r)));
        if roots.len() < 2 {
            return Trees::default();
        }
        let split: Vec<Vec<&str>> = roots.iter().map(|r| r.split('/').collect()).collect();
        let common = (0..).take_while(|&i| split.iter().all(|s| s.len() > i && s[i] == split[0][i])).count();
        let mut trees: Vec<(String, String)> = Vec::new();
        for s in &split {
            // A root that is an ancestor of the others names no tree of its own.
            let Some(name) = s.get(common) else { continue };
            let dir = s[..=common].join("/");
            if !trees.iter().any(|(_, d)| *d == dir) {
                trees.push(((*name).to_string(), dir));
            }
        }
        if trees.len() < 2 {
            return Trees::default();
        }
        Trees { trees }
    }

    /// The cluster of a file: the tree it is in, else the `clusters/<name>` directory it is in.
    pub fn of<'a>(&'a self, file: &'a str) -> Option<&'a str> {
        self.trees
            .iter()
            .find(|(_, d)| edgecheck_core::graph::under_dir(file, d))
            .map(|(n, _)| n.as_str())
            .or_else(|| crate::discover::cluster_of_path(file))
    }

    /// The names of the trees found.
    #[cfg(test)]
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.trees.iter().map(|(n, _)| n.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(file: &str, rel: &str, path: &str) -> Object {
        let text = format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec: {{path: {path}}}\n"
        );
        let mut o = edgecheck_load::load_text(file, &text).objects.remove(0);
        o.source.set_repo_path(Some((0, rel)));
        o
    }

    #[test]
    fn trees_are_where_the_self_applying_roots_differ() {
        let files = vec![
            root(
                "repo/kubernetes/cluster-0/flux/config/flux.yaml",
                "kubernetes/cluster-0/flux/config/flux.yaml",
                "./kubernetes/cluster-0/flux",
            ),
            root(
                "repo/kubernetes/nas-1/flux/config/flux.yaml",
                "kubernetes/nas-1/flux/config/flux.yaml",
                "./kubernetes/nas-1/flux",
            ),
        ];
        let t = Trees::find(&files);
        assert_eq!(t.names().collect::<Vec<_>>(), ["cluster-0", "nas-1"]);
        assert_eq!(t.of("repo/kubernetes/nas-1/apps/web/ks.yaml"), Some("nas-1"));
        assert_eq!(t.of("repo/kubernetes/components/common/x.yaml"), None, "shared by both");
        assert_eq!(t.of("repo/clusters/prod/x.yaml"), Some("prod"), "the documented layout still counts");
        // Apps' Kustomizations pointing at their own directories, under a root's path, are no roots.
        let mut with_apps = files.clone();
        with_apps.push(root(
            "repo/kubernetes/nas-1/apps/web/ks.yaml",
            "kubernetes/nas-1/apps/web/ks.yaml",
            "./kubernetes/nas-1/apps/web",
        ));
        with_apps.push(root(
            "repo/kubernetes/nas-1/apps/db/ks.yaml",
            "kubernetes/nas-1/apps/db/ks.yaml",
            "./kubernetes/nas-1/apps/db",
        ));
        assert_eq!(Trees::find(&with_apps).names().collect::<Vec<_>>(), ["cluster-0", "nas-1"]);
        // One cluster whose apps' Kustomizations point at their own directories, under the apps
        // Kustomization's path: one root, no trees.
        let single = vec![
            root("repo/kubernetes/flux/config/flux.yaml", "kubernetes/flux/config/flux.yaml", "./kubernetes/flux"),
            root("repo/kubernetes/flux/apps.yaml", "kubernetes/flux/apps.yaml", "./kubernetes/apps"),
            root("repo/kubernetes/apps/a/ks.yaml", "kubernetes/apps/a/ks.yaml", "./kubernetes/apps/a"),
            root("repo/kubernetes/apps/b/ks.yaml", "kubernetes/apps/b/ks.yaml", "./kubernetes/apps/b"),
        ];
        assert_eq!(Trees::find(&single), Trees::default());
        // One root: one cluster, no trees.
        assert_eq!(Trees::find(&files[..1]), Trees::default());
        // A Kustomization whose path does not hold its own file is no root.
        let other = root("repo/kubernetes/apps/ks.yaml", "kubernetes/apps/ks.yaml", "./kubernetes/apps/web");
        assert_eq!(Trees::find(&[files[0].clone(), other]), Trees::default());
    }
}
