//! Git checkouts the linted files belong to: root, remotes, and the tree's directories, so that an
//! Argo CD Application's `repoURL`/`path` can be resolved inside the linted checkout.

use edgecheck_core::pathset::PathSet;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use edgecheck_core::{Inventory, LoadProblem, LoadProblemKind, RepoInfo};

use crate::read::{read_regular_text, ReadError};
use crate::LoadOptions;

/// The checkouts of a lint and where its files sit in them: what [`checkouts`] finds from the paths alone,
/// while the files are parsed, and [`attach`] gives the inventory.
#[derive(Default)]
pub struct Checkouts {
    repos: Vec<RepoInfo>,
    problems: Vec<LoadProblem>,
    /// Each file (as objects name it) with its checkout and its path there.
    placed: HashMap<String, Option<(usize, std::sync::Arc<str>)>>,
    /// Directories resolved so far (for files found after parsing).
    dirs: HashMap<PathBuf, Option<PathBuf>>,
}

/// Fills `inv.repos` and each object's `repo_path` from what [`checkouts`] found.
pub fn attach(inv: &mut Inventory, found: Checkouts) {
    let Checkouts { repos, problems, mut placed, mut dirs } = found;
    inv.problems.extend(problems);
    if repos.is_empty() {
        return;
    }
    // The objects of a file are side by side and share it: placed once, the place shared.
    let mut last: Option<(edgecheck_core::FileRef, edgecheck_core::FileRef)> = None;
    for o in &mut inv.objects {
        let Some(at) = o.source.file_ref().cloned() else {
            continue;
        };
        if let Some((_, new)) = last.as_ref().filter(|(old, _)| old.same(&at)) {
            o.source.set_file_ref(Some(new.clone()));
            continue;
        }
        let f = at.name();
        let p = match placed.get(f) {
            Some(p) => p.clone(),
            None => {
                let p = place(Path::new(f), &repos, &mut dirs);
                placed.insert(f.to_string(), p.clone());
                p
            }
        };
        let new = match &p {
            Some((r, rel)) => at.placed(Some((*r, rel))),
            None => at.clone(),
        };
        o.source.set_file_ref(Some(new.clone()));
        last = Some((at, new));
    }
    inv.repos = repos;
}

/// The checkout of `f` and its path there.
fn place(
    f: &Path,
    repos: &[RepoInfo],
    dirs: &mut HashMap<PathBuf, Option<PathBuf>>,
) -> Option<(usize, std::sync::Arc<str>)> {
    let abs = resolve(f, dirs)?;
    repos.iter().enumerate().find_map(|(i, r)| {
        abs.strip_prefix(&r.root).ok().map(|rel| (i, std::sync::Arc::from(rel.to_string_lossy().replace('\\', "/"))))
    })
}

/// Finds the checkouts of the linted `roots` (and of those named in `options.repo_urls`) and places `files`
/// (each as objects name it, and its path) in them. It reads only paths, so it runs while the files parse.
pub fn checkouts(files: &[(String, PathBuf)], roots: &[PathBuf], options: &LoadOptions) -> Checkouts {
    let mut out = Checkouts::default();
    let mut repos: Vec<RepoInfo> = Vec::new();
    // `checkout_urls` (a configuration named from elsewhere) name the linted checkouts only when the
    // configuration is in none of them: one inside a linted checkout names that checkout, as `repo_urls`.
    let config_dirs: Vec<PathBuf> = options.repo_urls.iter().filter_map(|(p, _)| p.canonicalize().ok()).collect();
    let in_a_checkout =
        roots.iter().filter(|r| r.as_os_str() != "-").filter_map(|r| r.canonicalize().ok()).any(|abs| {
            let base = if abs.is_dir() { abs.clone() } else { abs.parent().map(Path::to_path_buf).unwrap_or_default() };
            let top = find_git_root(&base).unwrap_or(base);
            config_dirs.iter().any(|c| c.starts_with(&top))
        });
    let checkout_urls: &[String] = if in_a_checkout { &[] } else { &options.checkout_urls };
    for root in roots.iter().filter(|r| r.as_os_str() != "-") {
        let Ok(abs) = root.canonicalize() else {
            continue;
        };
        let base = if abs.is_dir() { abs.clone() } else { abs.parent().map(Path::to_path_buf).unwrap_or_default() };
        // `repo-urls` in a config file: the config's directory is the checkout those URLs name (it may
        // sit inside another git repository, as bundled examples do), unless it is above the enclosing
        // checkout (a config in `/tmp` is not `/tmp`'s). Otherwise the enclosing checkout.
        let git = find_git_root(&base);
        let configured: Option<(PathBuf, Vec<String>)> = options
            .repo_urls
            .iter()
            .filter_map(|(p, u)| {
                p.canonicalize()
                    .ok()
                    .filter(|p| base.starts_with(p) && git.as_ref().is_none_or(|g| p.starts_with(g)))
                    .map(|p| (p, u.clone()))
            })
            .fold(None, |acc: Option<(PathBuf, Vec<String>)>, (p, u)| match acc {
                Some((ap, mut us)) if ap == p => {
                    us.push(u);
                    Some((ap, us))
                }
                Some(a) if a.0.components().count() > p.components().count() => Some(a),
                _ => Some((p, vec![u])),
            });
        let (top, remotes, assumed) = match (configured, git) {
            (Some((root, urls)), _) => (root, urls, false),
            (None, Some(g)) => {
                let mut r = remotes_of(&g, options.max_file_size, &mut out.problems);
                r.extend(checkout_urls.iter().filter(|u| !r.contains(u)).cloned().collect::<Vec<_>>());
                (g, r, false)
            }
            // Not a checkout, but `--config` says which repository it is.
            (None, None) if abs.is_dir() && !checkout_urls.is_empty() => (base.clone(), checkout_urls.to_vec(), false),
            // Not a checkout (a tarball, a CI artifact, a copy): the linted directory stands in for the
            // repository of the Argo CD sources whose paths it has (`RepoInfo::assumed`; LOD012 says so).
            (None, None) if abs.is_dir() => (base.clone(), Vec::new(), true),
            (None, None) => continue,
        };
        if let Some(r) = repos.iter_mut().find(|r| r.root == top) {
            for u in remotes {
                if !r.remotes.contains(&u) {
                    r.remotes.push(u);
                }
            }
            continue;
        }
        let (dirs, tree_files) = tree(&top);
        repos.push(RepoInfo { root: top, remotes, dirs, files: tree_files, assumed });
    }
    if repos.is_empty() {
        return out;
    }
    // Each file is placed once (a file holds several objects), and each directory is resolved once: a file
    // that is not a link is its resolved directory joined with its name (resolving every file's path again
    // cost a look at each of its components).
    for (name, path) in files {
        if !out.placed.contains_key(name) {
            let p = place(path, &repos, &mut out.dirs);
            out.placed.insert(name.clone(), p);
        }
    }
    out.repos = repos;
    out
}

/// The file's absolute path with links resolved, as `canonicalize` gives it, with its directory's resolution
/// remembered in `dirs`.
fn resolve(f: &Path, dirs: &mut HashMap<PathBuf, Option<PathBuf>>) -> Option<PathBuf> {
    let (Some(dir), Some(name)) = (f.parent(), f.file_name()) else { return f.canonicalize().ok() };
    if std::fs::symlink_metadata(f).ok()?.file_type().is_symlink() {
        return f.canonicalize().ok();
    }
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let resolved = dirs.entry(dir.to_path_buf()).or_insert_with(|| dir.canonicalize().ok());
    resolved.as_ref().map(|d| d.join(name))
}

fn find_git_root(start: &Path) -> Option<PathBuf> {
    let mut cur = Some(start);
    while let Some(d) = cur {
        if d.join(".git").exists() {
            return Some(d.to_path_buf());
        }
        cur = d.parent();
    }
    None
}

/// Remote URLs from `.git/config` (or the config of the directory a `.git` file points at). Git's own
/// files are read as bounded regular files too: one that is a FIFO or a device is an `Unreadable` problem.
fn remotes_of(root: &Path, limit: u64, problems: &mut Vec<LoadProblem>) -> Vec<String> {
    let mut read = |p: &Path| match read_regular_text(p, limit) {
        Ok(t) => Some(t),
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            let message = format!("cannot read: {e}; the checkout's remotes are not known");
            problems.push(crate::problem(LoadProblemKind::Unreadable, &crate::display(p), None, message));
            None
        }
    };
    let git = root.join(".git");
    let dir = if git.exists() && !git.is_dir() {
        read(&git)
            .and_then(|s| s.lines().find_map(|l| l.strip_prefix("gitdir:").map(|p| root.join(p.trim()))))
            .unwrap_or(git)
    } else {
        git
    };
    let mut config = read(&dir.join("config")).unwrap_or_default();
    // A worktree's config lives in the main repository (`commondir`).
    if let Some(common) = read(&dir.join("commondir")) {
        config.push_str(&read(&dir.join(common.trim()).join("config")).unwrap_or_default());
    }
    let mut out = Vec::new();
    let mut in_remote = false;
    for line in config.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_remote = l.starts_with("[remote ");
            continue;
        }
        if in_remote {
            if let Some((k, v)) = l.split_once('=') {
                if k.trim() == "url" {
                    out.push(v.trim().to_string());
                }
            }
        }
    }
    out
}

/// Directories and files of a working tree, relative to its root (`.git` and other dot-dirs skipped),
/// bounded so that a huge tree cannot stall a lint.
fn tree(root: &Path) -> (PathSet, PathSet) {
    let mut dirs = vec![String::new()];
    let mut files = Vec::new();
    for e in walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !e.file_name().to_str().is_some_and(|n| n.starts_with('.') || n == "node_modules" || n == "target")
        })
        .flatten()
        .take(200_000)
    {
        let Ok(rel) = e.path().strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel.is_empty() {
            continue;
        }
        if e.file_type().is_dir() {
            dirs.push(rel);
        } else {
            files.push(rel);
        }
    }
    (dirs.into_iter().collect(), files.into_iter().collect())
}
