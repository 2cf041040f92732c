//! Paths as code scanning, GitHub annotations and GitLab Code Quality resolve them: relative to the top of
//! the git checkout that holds the file, whatever directory edgecheck ran in.

use std::path::Path;

/// `file` relative to the top of the git checkout that holds it, `/`-separated; as given when no checkout
/// holds it or it cannot be resolved (a file of a dump on stdin, a path that no longer exists).
pub fn repo_relative(file: &str) -> String {
    let Ok(abs) = Path::new(file).canonicalize() else { return file.to_string() };
    let Some(top) = abs.ancestors().skip(1).find(|a| a.join(".git").exists()) else { return file.to_string() };
    abs.strip_prefix(top).map_or_else(|_| file.to_string(), |r| r.to_string_lossy().replace('\\', "/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_checkout_top() {
        let d = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(d.path().join("repo/.git")).expect("git");
        std::fs::create_dir_all(d.path().join("repo/apps/web")).expect("dirs");
        let file = d.path().join("repo/apps/web/ingress.yaml");
        std::fs::write(&file, "kind: Ingress\n").expect("write");
        // However it was spelled (absolute, with `..`), the path from the checkout's top.
        assert_eq!(repo_relative(&file.to_string_lossy()), "apps/web/ingress.yaml");
        let odd = d.path().join("repo/apps/../apps/web/ingress.yaml");
        assert_eq!(repo_relative(&odd.to_string_lossy()), "apps/web/ingress.yaml");
        // Outside a checkout, or gone: as given.
        let loose = d.path().join("loose.yaml");
        std::fs::write(&loose, "kind: X\n").expect("write");
        assert_eq!(repo_relative(&loose.to_string_lossy()), loose.to_string_lossy());
        assert_eq!(repo_relative("no/such/file.yaml"), "no/such/file.yaml");
    }
}
