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

/// The names a file takes when it is a template someone fills in or copies before applying it (`sed` over
/// `template.yaml`, `cp issuer.template.yaml env/issuer.yaml`): the stem is `template`, `example` or
/// `sample`, or one of [`TEMPLATE_MARKS`] is the last dotted part of the name before its extension.
pub const TEMPLATE_STEMS: &[&str] = &["template", "example", "sample"];

/// Dotted parts of a file name that mark a template or sample (`issuer.template.yaml`, `values.tpl.yaml`), or
/// the template language a tool renders the file with first (`issuer.ftl.yaml`: FreeMarker, as
/// gitops-playground writes them; `.j2`, `.jinja`, `.gotmpl`, `.tftpl`, `.erb`, `.mustache`).
pub const TEMPLATE_MARKS: &[&str] = &[
    "template", "tmpl", "tpl", "example", "sample", "dist", "ftl", "j2", "jinja", "jinja2", "gotmpl", "tftpl", "erb",
    "mustache",
];

/// Whether the file at `rel` is named as a template or a sample (see [`TEMPLATE_STEMS`]). Only the name
/// counts, and only a whole dotted part of it: `workflow-template.yaml` (an Argo WorkflowTemplate),
/// `templates.yaml` and `whoami.example.com.yaml` are manifests.
pub fn template_file_name(rel: &str) -> bool {
    let name = rel.rsplit_once('/').map_or(rel, |(_, n)| n).to_ascii_lowercase();
    let Some((stem, _ext)) = name.rsplit_once('.') else { return false };
    if TEMPLATE_STEMS.contains(&stem) {
        return true;
    }
    // The last dotted part before the extension: `issuer.template` → `template`. Only the last: a file named
    // for a host (`whoami.example.com.yaml`) is a manifest.
    stem.rsplit_once('.').is_some_and(|(_, mark)| TEMPLATE_MARKS.contains(&mark))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_names_are_whole_dotted_parts() {
        assert!(template_file_name("ingress/external-services/template.yaml"));
        assert!(template_file_name("a/Template.yml"));
        assert!(template_file_name("trust-manager/bundle.template.yaml"));
        assert!(template_file_name("issuer.tmpl.yaml"));
        assert!(template_file_name("x/secret.sample.yaml"));
        assert!(template_file_name("x/example.json"));
        assert!(template_file_name("config.dist.yaml"));
        assert!(template_file_name("cert-manager/cluster-issuers.ftl.yaml"));
        assert!(template_file_name("values.j2.yaml"));
        // Near misses: a kind named like a template, a plural, a word that only contains one.
        assert!(!template_file_name("argo/workflow-template.yaml"));
        assert!(!template_file_name("argo/workflowtemplate.yaml"));
        assert!(!template_file_name("templates.yaml"));
        assert!(!template_file_name("apps/examples-app/ingress.yaml"));
        assert!(!template_file_name("template/ingress.yaml"));
        assert!(!template_file_name("pod-template.yaml"));
        assert!(!template_file_name("template"));
        assert!(!template_file_name("sample-app.ingress.yaml"));
        assert!(!template_file_name("apps/whoami.example.com.yaml"));
        assert!(!template_file_name("ingress.sample.example.org.yml"));
    }

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
