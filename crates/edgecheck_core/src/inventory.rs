//! The inventory: every object as loaded, plus what could not be loaded.

use crate::object::Object;

/// Why some input could not be (fully) loaded. Each becomes an `input` finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum LoadProblemKind {
    /// YAML that does not parse.
    YamlSyntax,
    /// JSON that does not parse.
    JsonSyntax,
    /// A file that could not be read.
    Unreadable,
    /// A file that holds binary data or is not UTF-8.
    Binary,
    /// A PEM block in a Secret that does not decode (truncated, bad base64, not a certificate/key).
    BadPem,
    /// A Secret `data` value that is not valid base64.
    BadBase64,
    /// The same kind, namespace and name twice.
    Duplicate,
    /// A directory of objects that no build applies, in a repository that has builds (docs/design.md
    /// "Builds"): the file is a `/`-separated directory, the message counts them.
    NotApplied,
    /// A document with apiVersion and kind but no usable metadata.name.
    NoName,
}

/// One problem met while loading.
#[derive(Debug, Clone)]
pub struct LoadProblem {
    /// What went wrong.
    pub kind: LoadProblemKind,
    /// The file (or `-`).
    pub file: String,
    /// The 1-based line where it went wrong, when known.
    pub line: Option<u32>,
    /// What the parser said, or what was seen.
    pub message: String,
    /// The object involved, when there is one.
    pub object: Option<crate::object::ObjectRef>,
    /// Another place involved (the first occurrence of a duplicate).
    pub other: Option<(String, Option<u32>)>,
    /// The file sits in an example directory (see [`crate::Source::example`]): the problem is dropped
    /// unless a build names the file.
    pub example: bool,
    /// A syntax error in a document that names no `apiVersion` and no `kind`: it may not be a Kubernetes
    /// manifest at all (a translations file, an application's config), so it is a warning.
    pub not_manifest: bool,
}

/// A git checkout that was linted (its root and its remotes' URLs).
#[derive(Debug, Clone, Default)]
pub struct RepoInfo {
    /// The working tree root as given or found.
    pub root: std::path::PathBuf,
    /// URLs of the checkout's remotes.
    pub remotes: Vec<String>,
    /// Every directory of the working tree, relative to its root, `/`-separated, no leading `./`.
    pub dirs: crate::pathset::PathSet,
    /// Every file of the working tree, relative to its root.
    pub files: crate::pathset::PathSet,
    /// Not a git checkout, and no `repo-urls` names it: the linted directory stands in for the repository
    /// of every Argo CD source whose path it has (docs/design.md, "The repository an Application points
    /// at"). `remotes` is empty.
    pub assumed: bool,
}

/// A document that is not a Kubernetes object but configures the cluster's tools: a k3s/RKE2 config file
/// (`/etc/rancher/k3s/config.yaml`: `kubelet-arg`, `resolv-conf`, `cluster-dns`, ...), or the values of
/// Argo CD's Helm chart (`configs.params`, `configs.cm`: what ends in `argocd-cmd-params-cm` and
/// `argocd-cm`). Kept so that checks can read how nodes and controllers are set up; not counted as an object.
#[derive(Debug, Clone)]
pub struct NodeConfig {
    /// The file it came from.
    pub file: String,
    /// The line the document starts on.
    pub line: u32,
    /// The document.
    pub value: crate::value::Value,
}

impl NodeConfig {
    /// Whether this configures a node (k3s/RKE2), not a controller (chart values).
    pub fn is_node(&self) -> bool {
        Self::looks_like_node(&self.file, &self.value)
    }

    /// True when a document without `apiVersion`/`kind` looks like a k3s/RKE2 config file: it sits at
    /// a `rancher/k3s|rke2/config.yaml(.d)` path, or it is a mapping holding k3s-only keys.
    pub fn looks_like(file: &str, value: &crate::value::Value) -> bool {
        Self::looks_like_node(file, value) || Self::argocd_chart_values(value).is_some()
    }

    /// The `configs` of a document that looks like Argo CD chart values: a mapping without
    /// `apiVersion`/`kind` whose `configs` holds `params` or `cm` mappings.
    pub fn argocd_chart_values(value: &crate::value::Value) -> Option<&crate::value::Map> {
        let m = value.as_object()?;
        if m.contains_key("apiVersion") || m.contains_key("kind") {
            return None;
        }
        let configs = m.get("configs")?.as_object()?;
        (configs.get("params").is_some_and(crate::value::Value::is_object)
            || configs.get("cm").is_some_and(crate::value::Value::is_object))
        .then_some(configs)
    }

    fn looks_like_node(file: &str, value: &crate::value::Value) -> bool {
        let Some(m) = value.as_object() else { return false };
        if m.contains_key("apiVersion") || m.contains_key("kind") {
            return false;
        }
        let f = file.replace('\\', "/");
        if f.contains("rancher/k3s/config.yaml") || f.contains("rancher/rke2/config.yaml") {
            return true;
        }
        const KEYS: &[&str] = &[
            "kubelet-arg",
            "kube-apiserver-arg",
            "kube-proxy-arg",
            "write-kubeconfig-mode",
            "flannel-backend",
            "resolv-conf",
            "cluster-dns",
            "cluster-init",
            "disable-network-policy",
            "tls-san",
        ];
        m.keys().any(|k| KEYS.contains(&k.as_str()))
            && m.keys().all(|k| k.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '+'))
    }
}

/// Everything loaded.
#[derive(Debug, Default)]
pub struct Inventory {
    /// The objects, in load order (file order, then document order).
    pub objects: Vec<Object>,
    /// What could not be loaded.
    pub problems: Vec<LoadProblem>,
    /// Documents skipped because they are not Kubernetes objects (no apiVersion/kind).
    pub skipped_documents: usize,
    /// Files skipped because they are Helm chart templates, and documents that do not parse because
    /// they hold template directives (Helm, Go, Jinja).
    pub skipped_templates: usize,
    /// Files read.
    pub files: usize,
    /// The git checkouts the linted paths belong to.
    pub repos: Vec<RepoInfo>,
    /// The builds that set namespaces: kustomization files and Flux `Kustomization` paths.
    pub builds: Vec<Build>,
    /// Node configuration documents (k3s config files) found among the inputs.
    pub node_configs: Vec<NodeConfig>,
    /// Kinds that could not be read from a cluster (403, timeout): never treated as absent.
    pub unchecked: Vec<Unchecked>,
    /// The builds found in the inputs (docs/design.md "Builds"), rendered or not; empty when rendering was
    /// not asked for.
    pub rendered: Vec<BuildRecord>,
    /// Objects no build applies, in a repository that has builds.
    pub loose: usize,
    /// The clusters the builds target (Argo CD destinations, Flux cluster trees), as the render stage found
    /// them; what `--cluster` may name.
    pub clusters: Vec<String>,
}

/// One place a Helm build's values come from (a values file, an object's inline values, `--set`
/// parameters), with the keys it sets: dotted paths (`ingress.host`) and their lines in `file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueSource {
    /// How findings name it: the file, or the object and field that holds inline values.
    pub label: String,
    /// Its file, when it is one.
    pub file: Option<String>,
    /// The keys it sets, with their lines when it is a file.
    pub keys: std::collections::BTreeMap<String, Option<u32>>,
}

/// One build found in the inputs and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildRecord {
    /// Its name: the controller object (`Application argocd/shop`, `Kustomization flux-system/apps`,
    /// `HelmRelease web/podinfo`) or the kustomization directory of a plain kustomize root.
    pub name: String,
    /// `helm`, `kustomize`, `directory` (files as they are), `flux` (Flux's generated kustomization).
    pub kind: &'static str,
    /// The directory (as objects' files are named) or the chart it builds.
    pub path: String,
    /// The object that declares it, when one does.
    pub origin: Option<crate::ObjectRef>,
    /// Its file and line.
    pub file: Option<String>,
    /// Line of `file`.
    pub line: Option<u32>,
    /// The tool and its version (`helm v3.17.1`), when a tool ran.
    pub tool: Option<String>,
    /// The cluster it targets (Argo CD destination), when known.
    pub cluster: Option<String>,
    /// The namespace its objects default to.
    pub namespace: Option<String>,
    /// What happened.
    pub state: BuildState,
    /// Objects it rendered.
    pub objects: usize,
    /// A local chart's directory, when the build renders one.
    pub chart: Option<String>,
    /// Where the chart's values come from, lowest precedence first (the chart's `values.yaml`, value files,
    /// inline values, parameters): findings at a template line name the one that sets a value.
    pub values: Vec<ValueSource>,
    /// The kustomize patch files its kustomizations apply: findings at a field a patch sets name the patch.
    pub patches: Vec<String>,
}

/// What became of a build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildState {
    /// Rendered now.
    Rendered,
    /// Its objects came from the render cache.
    Cached,
    /// Not rendered: the reason, the tool's own message when it ran.
    NotRendered(NotRendered),
}

/// Why a build was not rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotRendered {
    /// `--render never` (or the config).
    Disabled,
    /// The tool is not installed (its name).
    ToolMissing(String),
    /// The chart (or a chart dependency, or a kustomize resource) is remote and was not fetched.
    Remote(String),
    /// The tool ran and failed: its message (credentials masked, bounded).
    Failed(String),
    /// Something else stops it (a source in another repository, a Secret's values, a depth limit).
    Other(String),
}

impl NotRendered {
    /// The reason in words.
    pub fn reason(&self) -> String {
        match self {
            NotRendered::Disabled => "rendering is off (--render never)".into(),
            NotRendered::ToolMissing(t) => format!("`{t}` is not installed (or give its path)"),
            NotRendered::Remote(what) => format!("remote: {what}"),
            NotRendered::Failed(m) => format!("render failed: {m}"),
            NotRendered::Other(m) => m.clone(),
        }
    }
}

/// A build that sets the namespace of what it includes: a kustomization file (its `namespace:` overrides
/// every namespaced object it includes, bases too, and renames a `Namespace` object), or a Flux
/// `Kustomization` (`spec.targetNamespace` over everything built from `spec.path`). Paths are in the
/// space of `Source::file`, `/`-separated, normalised.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Build {
    /// The directory of the kustomization file, or the Flux Kustomization's resolved `spec.path`.
    pub dir: String,
    /// The namespace it sets (`namespace:`, `spec.targetNamespace`).
    pub namespace: Option<String>,
    /// Directories it includes (`resources`, `components`, `bases` entries that are directories).
    pub dirs: Vec<String>,
    /// Files it includes (`resources` entries that are files).
    pub files: Vec<String>,
    /// Patch files (`patches[].path`, `patchesStrategicMerge`, `patchesJson6902[].path`): partial
    /// objects merged into others, not objects of their own.
    pub patches: Vec<String>,
    /// A Flux Kustomization: it builds the whole tree under `dir` (Flux generates a kustomization of every
    /// manifest there when the directory has none).
    pub flux: bool,
    /// The kustomization file sits in an example directory ([`crate::placement::EXAMPLE_DIRS`]): what it
    /// includes is not applied unless a build outside example directories includes it too.
    pub example: bool,
    /// Entries it names that are not in the checkout (URLs, `github.com/...`, `git@...`): `kustomize build`
    /// would fetch them.
    pub remote: Vec<String>,
    /// It inflates Helm charts (`helmCharts:`), which `kustomize build` does only with `--enable-helm`.
    pub helm_charts: bool,
    /// A kustomize `Component` (`kind: Component`): included by others, never built alone.
    pub component: bool,
    /// The kustomization holds template directives or placeholders (`namespace: {{ .app_namespace }}`, a
    /// scaffold): it is a template of a build, not one.
    pub template: bool,
    /// It rewrites fields of what it includes (`replacements`, `vars`): its files hold placeholders that
    /// only its build fills in.
    pub rewrites: bool,
}

/// A kind a live scan could not list: its objects are unknown, not missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unchecked {
    /// The kind's `apiVersion` (the version that was asked for).
    pub api_version: String,
    /// The kind.
    pub kind: String,
    /// The namespace that was listed, or `None` for all namespaces (or a cluster-scoped kind).
    pub namespace: Option<String>,
    /// Why: what the API server answered (`forbidden: ...`, a timeout).
    pub reason: String,
    /// The cluster or context name.
    pub cluster: Option<String>,
}

impl Inventory {
    /// Counts every Kubernetes object loaded (docs/design.md `summary.objects`).
    pub fn object_count(&self) -> usize {
        self.objects.len()
    }
}

#[cfg(test)]
mod tests {
    use super::NodeConfig;

    #[test]
    fn k3s_configs_are_recognised() {
        let k3s = crate::json!({"write-kubeconfig-mode": "0644", "kubelet-arg": ["max-pods=200"]});
        assert!(NodeConfig::looks_like("infra/k3s.yaml", &k3s));
        assert!(NodeConfig::looks_like("etc/rancher/k3s/config.yaml", &crate::json!({"token": "x"})));
        let values = crate::json!({"replicaCount": 2, "tls-san": "x"});
        assert!(!NodeConfig::looks_like("values.yaml", &values));
        assert!(!NodeConfig::looks_like("a.yaml", &crate::json!({"apiVersion": "v1", "kind": "ConfigMap"})));
        assert!(!NodeConfig::looks_like("a.yaml", &crate::json!(["kubelet-arg"])));
    }
}
