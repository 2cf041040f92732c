//! What a cluster runs and what it does not: directories that hold examples, tests, archives and
//! vendored code (docs/design.md, "What is applied together"). The one list; the loader marks files under
//! them and the graph keeps their objects apart unless a build names them.

/// Directory names whose contents are not what a cluster runs unless a build (a kustomization, a Flux
/// Kustomization path, an Argo CD Application path) names them: examples, test data and golden outputs,
/// archives, vendored and generated code (CUE's `cue.mod`).
pub const EXAMPLE_DIRS: &[&str] = &[
    "testdata",
    "test",
    "tests",
    "e2e",
    "examples",
    "example",
    "fixtures",
    "cue.mod",
    "vendor",
    // Kept, not deployed: the spellings archives take in GitOps repositories.
    "archive",
    "_archive",
    ".archive",
    "archived",
    "deprecated",
    "disabled",
    "_disabled",
    "unused",
    "old",
    "_old",
];

/// Whether the file at `rel` (relative to the linted root, `/`-separated) sits in one of
/// [`EXAMPLE_DIRS`]: any directory segment counts, the file's own name does not.
pub fn in_example_dir(rel: &str) -> bool {
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    dir.split('/').any(|seg| EXAMPLE_DIRS.contains(&seg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_directories_are_segments() {
        assert!(in_example_dir("test/helm/gateway-helm/default.out.yaml"));
        assert!(in_example_dir("internal/cmd/egctl/testdata/translate/in/x.yaml"));
        assert!(in_example_dir("docs/examples/tls/ingress.yaml"));
        assert!(in_example_dir("cue.mod/gen/k8s.io/api/x.yaml"));
        assert!(in_example_dir("_archive/cluster-0/matrix/pantalaimon/patches/postgres.yaml"));
        assert!(in_example_dir("kubernetes/apps/disabled/web/helmrelease.yaml"));
        // Near misses: a file named like a directory, a directory whose name only contains one.
        assert!(!in_example_dir("apps/test.yaml"));
        assert!(!in_example_dir("apps/latest/ingress.yaml"));
        assert!(!in_example_dir("apps/old-school/ingress.yaml"));
        assert!(!in_example_dir("apps/testing-tools/ingress.yaml"));
        assert!(!in_example_dir("ingress.yaml"));
    }
}
