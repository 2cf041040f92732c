use edgecheck_core::graph::{normalize_rel_path, repo_for_source};
use edgecheck_core::views::Application;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An Argo CD `Application` whose `spec.source.path` (or a `spec.sources[].path`) names a directory
    /// that does not exist in the repository it points at, when that repository is the linted checkout
    /// (one of its git remotes equals the source's `repoURL`, ignoring scheme, user, `.git` and a
    /// trailing `/`). Helm chart sources (`chart:`) and sources of other repositories are not judged. With a
    /// `targetRevision` other than `HEAD`/`main`/`master`/`trunk` the finding is a warning: that revision's
    /// tree may differ from the checkout's.
    ///
    /// ## Why it matters
    /// Argo CD cannot generate manifests (`ComparisonError: app path does not exist`) and the
    /// Application deploys nothing. For the root Application of an app-of-apps every child
    /// Application, and so everything they manage, is missing, although repository credentials work.
    ///
    /// ## Example
    /// The root Application points at `cluster/apps` while the child Applications live in
    /// `clusters/apps`.
    ///
    /// ## How to fix
    /// Correct `path` to the directory that holds the manifests (relative to the repository root, no
    /// leading `/`), or create that directory.
    pub(crate) struct ApplicationSourcePathMissing {
        code: "GIT001", name: "application-source-path-missing", layer: Layer::Gitops, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl ApplicationSourcePathMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        if cx.graph.repos.is_empty() {
            return;
        }
        for (_, obj, app) in cx.graph.each::<Application>() {
            for (field, src) in app.spec.all_sources() {
                let Some(path) = src.path.as_deref() else { continue };
                if src.chart.is_some() || src.repo_url.is_empty() {
                    continue;
                }
                // A directory that is not a git checkout answers only for the paths it has: never missing.
                let Some(repo) =
                    repo_for_source(&cx.graph.repos, &src.repo_url, Some(path)).map(|i| &cx.graph.repos[i])
                else {
                    continue;
                };
                let rel = normalize_rel_path(path);
                // An empty listing means the tree was not read: nothing to judge by.
                if rel.is_empty() || repo.dirs.is_empty() || repo.dirs.contains(&rel) {
                    continue;
                }
                let last = rel.rsplit('/').next().unwrap_or(&rel);
                let mut near: Vec<(usize, &str)> = repo
                    .dirs
                    .iter()
                    .map(|d| (distance(d, &rel), d))
                    .filter(|(n, d)| *n <= 2 || d.rsplit('/').next() == Some(last) || parent(d) == parent(&rel))
                    .collect();
                near.sort_unstable();
                let near: Vec<&str> = near.into_iter().map(|(_, d)| d).take(3).collect();
                let mut f = out
                    .at(obj, &format!("{field}.path"))
                    .message(format!(
                        "{} points at path `{path}`, which does not exist in {}; Argo CD generates nothing for it",
                        obj.to_ref(),
                        src.repo_url
                    ))
                    .evidence(format!("{field}.path: {path}"))
                    .evidence(format!("{field}.repoURL: {} (the linted checkout)", src.repo_url));
                // A pinned branch, tag or commit may hold a tree other than the checkout's: less sure.
                let rev = src.target_revision.as_deref().map(str::trim).unwrap_or("");
                if !matches!(rev, "" | "HEAD" | "main" | "master" | "trunk") {
                    f = f
                        .severity(Severity::Warning)
                        .evidence(format!("targetRevision {rev}: only the linted checkout was looked at"));
                }
                if rel.starts_with("..") || path.starts_with('/') {
                    f = f.evidence("the path must be relative to the repository root");
                }
                f = if near.is_empty() {
                    f.evidence("no similar directory in the checkout")
                } else {
                    f.evidence(format!("similar directories in the checkout: {}", near.join(", ")))
                };
                let fix = match near.first() {
                    Some(d) => format!("set {field}.path to `{d}` (or create `{rel}`)"),
                    None => format!("set {field}.path to the directory that holds the manifests, or create `{rel}`"),
                };
                f.fix(fix).emit();
            }
        }
    }
}

/// The parent directory of a repository path (`""` at the root).
fn parent(p: &str) -> &str {
    p.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Edit distance (Levenshtein) between two short paths.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    #[test]
    fn distance_counts_edits() {
        assert_eq!(super::distance("cluster/apps", "clusters/apps"), 1);
        assert_eq!(super::distance("apps", "apps"), 0);
    }
}
