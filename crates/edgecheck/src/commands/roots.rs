//! Which paths are linted together. A directory that is its own repository — it holds `.git`, or an
//! `.edgecheck.toml`/`edgecheck.toml` saying `root = true` — is a root of its own: its own configuration, its
//! own inventory, its own part of the report. Paths inside one repository (`lint apps/ infra/`) stay one
//! inventory, since their objects refer to each other; a nested configuration without `root = true` is only a
//! configuration, as in a monorepo. `--merge` puts everything in one inventory.

use std::path::{Path, PathBuf};

/// How deep below a path argument roots are looked for.
const MAX_DEPTH: usize = 6;

/// The groups of paths to lint, each one inventory: the path arguments that are not roots together (first),
/// then each root found, in path order.
pub fn split(paths: &[PathBuf]) -> Vec<Vec<PathBuf>> {
    let mut together: Vec<PathBuf> = Vec::new();
    let mut roots: Vec<PathBuf> = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" || !p.is_dir() {
            together.push(p.clone());
        } else if is_root(p) {
            roots.push(p.clone());
        } else {
            collect(p, 0, &mut together, &mut roots);
        }
    }
    let mut groups = Vec::new();
    if !together.is_empty() {
        groups.push(together);
    }
    groups.extend(roots.into_iter().map(|r| vec![r]));
    groups
}

/// Whether `dir` is a repository of its own.
pub fn is_root(dir: &Path) -> bool {
    dir.join(".git").exists()
        || [".edgecheck.toml", "edgecheck.toml"].iter().any(|name| {
            std::fs::read_to_string(dir.join(name))
                .ok()
                .and_then(|t| t.parse::<toml::Table>().ok())
                .is_some_and(|t| t.get("root").and_then(toml::Value::as_bool) == Some(true))
        })
}

/// Splits `dir` (not a root) into roots below it and what lies outside them.
fn collect(dir: &Path, depth: usize, together: &mut Vec<PathBuf>, roots: &mut Vec<PathBuf>) {
    if depth >= MAX_DEPTH || !has_root_below(dir, depth) {
        together.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        together.push(dir.to_path_buf());
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for e in entries {
        let name = e.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if e.is_dir() {
            if name.starts_with('.') {
                continue;
            }
            if is_root(&e) {
                roots.push(e);
            } else {
                collect(&e, depth + 1, together, roots);
            }
        } else if [".yaml", ".yml", ".json"].iter().any(|x| name.ends_with(x)) {
            together.push(e);
        }
    }
}

/// Whether some directory below `dir` (within the depth limit) is a root.
fn has_root_below(dir: &Path, depth: usize) -> bool {
    if depth >= MAX_DEPTH {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    entries.flatten().filter(is_dir).any(|e| !hidden(&e) && root_or_below(&e.path(), depth + 1))
}

/// Whether `dir` is a root ([`is_root`]) or has one below it, from one listing of each directory: a repository
/// of thousands of directories was asked three times per directory whether a marker file exists.
fn root_or_below(dir: &Path, depth: usize) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    let entries: Vec<std::fs::DirEntry> = entries.flatten().collect();
    let named = |n: &str| entries.iter().any(|e| e.file_name() == n);
    if named(".git") || ([".edgecheck.toml", "edgecheck.toml"].iter().any(|n| named(n)) && is_root(dir)) {
        return true;
    }
    depth < MAX_DEPTH && entries.iter().filter(|e| is_dir(e)).any(|e| !hidden(e) && root_or_below(&e.path(), depth + 1))
}

fn hidden(e: &std::fs::DirEntry) -> bool {
    e.file_name().to_str().is_some_and(|n| n.starts_with('.'))
}

/// Whether an entry is a directory (links followed), from the directory listing's own type where it has one:
/// a `stat` of every file of a large repository was an eighth of its lint.
fn is_dir(e: &std::fs::DirEntry) -> bool {
    match e.file_type() {
        Ok(t) if t.is_dir() => true,
        Ok(t) if t.is_symlink() => e.path().is_dir(),
        Ok(_) => false,
        Err(_) => e.path().is_dir(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repositories_below_a_path_are_roots_of_their_own() {
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path();
        for dir in ["a/apps", "b/.git", "c", "shared"] {
            std::fs::create_dir_all(p.join(dir)).expect("mkdir");
        }
        std::fs::write(p.join("a/.edgecheck.toml"), "root = true\n").expect("write");
        std::fs::write(p.join("c/.edgecheck.toml"), "fail-on = \"warning\"\n").expect("write");
        std::fs::write(p.join("top.yaml"), "").expect("write");
        let groups = split(&[p.to_path_buf()]);
        assert_eq!(
            groups,
            vec![vec![p.join("c"), p.join("shared"), p.join("top.yaml")], vec![p.join("a")], vec![p.join("b")],],
            "a (root = true) and b (.git) are roots; c's config is only a config"
        );
        // Paths inside one repository stay one inventory.
        assert_eq!(split(&[p.join("c"), p.join("shared")]), vec![vec![p.join("c"), p.join("shared")]]);
    }
}
