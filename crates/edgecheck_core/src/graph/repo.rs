//! Where Argo CD Applications point in a linted checkout: repository URLs and paths compared as Argo CD
//! compares them.

use super::*;

/// An Application source resolved to a directory of a linted checkout.
#[derive(Debug, Clone)]
pub(super) struct AppDir {
    pub(super) id: ObjId,
    pub(super) repo: usize,
    pub(super) dir: String,
    pub(super) field: crate::value::Str,
    pub(super) namespace: Option<String>,
}

/// Normalises a git URL for comparison: no scheme, no user, no trailing `.git` or `/`, `host/path`
/// for scp-like `git@host:path`.
pub fn normalize_repo_url(url: &str) -> String {
    let mut u = url.trim().to_ascii_lowercase();
    if let Some(i) = u.find("://") {
        u = u[i + 3..].to_string();
    } else if let Some((userhost, path)) = u.split_once(':') {
        if !userhost.contains('/') {
            u = format!("{userhost}/{path}");
        }
    }
    if let Some(i) = u.find('@') {
        if u[..i].find('/').is_none() {
            u = u[i + 1..].to_string();
        }
    }
    // host:port → host
    if let Some((host, rest)) = u.split_once('/') {
        if let Some((h, port)) = host.split_once(':') {
            if port.bytes().all(|b| b.is_ascii_digit()) {
                u = format!("{h}/{rest}");
            }
        }
    }
    let u = u.trim_end_matches('/');
    u.strip_suffix(".git").unwrap_or(u).trim_end_matches('/').to_string()
}

/// Normalises a repository-relative path: no leading `./` or `/`, no trailing `/`; `.` is the root.
pub fn normalize_rel_path(p: &str) -> String {
    let p = p.trim().trim_start_matches("./").trim_start_matches('/').trim_end_matches('/');
    if p == "." {
        String::new()
    } else {
        p.to_string()
    }
}

/// The linted checkout a source of `url` (and, for a directory source, `path`) is read from: the one whose
/// remotes include `url`; else a directory that is not a git checkout (`RepoInfo::assumed`) where `path`
/// is a directory other than its root. An assumed checkout never answers for a source without a path, nor
/// for a path it does not have: another repository is never judged by this one.
pub fn repo_for_source(repos: &[RepoInfo], url: &str, path: Option<&str>) -> Option<usize> {
    let u = normalize_repo_url(url);
    if let Some(i) = repos.iter().position(|r| r.remotes.iter().any(|rem| normalize_repo_url(rem) == u)) {
        return Some(i);
    }
    let rel = normalize_rel_path(path?);
    if rel.is_empty() {
        return None;
    }
    repos.iter().position(|r| r.assumed && r.dirs.contains(&rel))
}

/// Applications by (repository, path); of several with one path, the last.
pub(super) fn apps_by_dir(apps: &[AppDir]) -> HashMap<(usize, &str), &AppDir> {
    apps.iter().map(|a| ((a.repo, a.dir.as_str()), a)).collect()
}

/// The Application whose path holds `path` most closely: of the file's directories (the deepest first, the
/// repository's root last), the first that is an Application's path. The same as the longest `dir` with
/// [`under`]`(path, dir)`, in one lookup per directory: comparing every object with every Application was
/// O(objects × Applications).
pub(super) fn deepest_app<'a>(
    by_dir: &HashMap<(usize, &str), &'a AppDir>,
    repo: usize,
    path: &str,
) -> Option<&'a AppDir> {
    path.rmatch_indices('/').map(|(i, _)| &path[..i]).chain([""]).find_map(|d| by_dir.get(&(repo, d)).copied())
}

pub(crate) fn under(path: &str, dir: &str) -> bool {
    dir.is_empty() || (path.starts_with(dir) && path.as_bytes().get(dir.len()) == Some(&b'/'))
}

pub(super) fn application_dirs(objects: &[Object], views: &[View], repos: &[RepoInfo]) -> Vec<AppDir> {
    let mut out = Vec::new();
    if repos.is_empty() {
        return out;
    }
    for (i, (o, v)) in objects.iter().zip(views).enumerate() {
        let Some(app) = views::Application::pick(v) else {
            continue;
        };
        for (field, s) in app.spec.all_sources() {
            let Some(path) = &s.path else { continue };
            let url = normalize_repo_url(&s.repo_url);
            let matched =
                repos.iter().enumerate().filter(|(_, r)| r.remotes.iter().any(|rem| normalize_repo_url(rem) == url));
            let repos: Vec<usize> = match matched.map(|(ri, _)| ri).collect::<Vec<_>>() {
                v if v.is_empty() => repo_for_source(repos, &s.repo_url, Some(path)).into_iter().collect(),
                v => v,
            };
            for ri in repos {
                out.push(AppDir {
                    id: ObjId(i),
                    repo: ri,
                    dir: normalize_rel_path(path),
                    field: format!("{field}.path").into(),
                    namespace: app.spec.destination.namespace.as_deref().map(str::to_string),
                });
            }
            let _ = o;
        }
    }
    out
}
