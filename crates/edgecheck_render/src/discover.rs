//! Finding the builds, the way the controllers do: Argo CD Applications (and each of `spec.sources`) whose
//! `repoURL` is a linted checkout, Flux `Kustomization`s and `HelmRelease`s whose source is one, and plain
//! kustomize roots no other build includes. Paths are in the space of `Source::file` (as the user sees
//! them); the tools are run on those paths.

use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};

use edgecheck_core::graph::{normalize_rel_path, normalize_repo_url, repo_for_source};
use edgecheck_core::inventory::NotRendered;
use edgecheck_core::namespaces::join_path;
use edgecheck_core::{Object, ObjectRef, RepoInfo};
use edgecheck_core::{Value, ValueRef};

use crate::envsubst::Vars;

/// One build to render.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// As `--show-builds` names it.
    pub name: String,
    /// The object that declares it.
    pub origin: Option<ObjectRef>,
    /// Where that object is.
    pub file: Option<String>,
    /// Its line.
    pub line: Option<u32>,
    /// The cluster it targets (Argo CD `destination.name`/`server`), when it says.
    pub cluster: Option<String>,
    /// The namespace its namespaced objects get when they name none.
    pub namespace: Option<String>,
    /// What to run (several for a multi-source Application).
    pub parts: Vec<How>,
    /// Flux `postBuild` substitution over the output.
    pub substitute: Option<Vars>,
    /// Directories it applies that cannot be rendered here (a Flux path in an ExternalArtifact or OCI
    /// source, found below the object's own directories): never plain roots, never loose.
    pub claims: Vec<String>,
    /// The build that rendered the declaring object, when one did.
    pub from: Option<String>,
    /// [`Spec::key`], made once by [`Spec::seal`] when discovery is done (formatting it per lookup was 4% of
    /// a lint of 2,500 Applications).
    pub(crate) key: String,
}

impl Spec {
    /// The key two discoveries of one build share: everything that decides its output. Empty before
    /// [`Spec::seal`].
    pub fn key(&self) -> &str {
        debug_assert!(!self.key.is_empty(), "Spec::key before Spec::seal: {}", self.name);
        &self.key
    }

    /// Fixes the key once what decides the output is set.
    pub fn seal(&mut self) {
        self.key = self.make_key();
    }

    fn make_key(&self) -> String {
        // Not the name: a name made unique from other builds' names would feed back into the key.
        format!(
            "{:?}|{:?}|{:?}|{:?}|{:?}",
            self.parts,
            self.namespace,
            self.substitute.as_ref().map(|v| (&v.values, v.incomplete)),
            self.origin,
            self.file
        )
    }
}

/// How one part of a build is made.
#[derive(Debug, Clone, PartialEq)]
pub enum How {
    /// `kustomize build` of a directory with a kustomization, with the controller's own settings on top.
    Kustomize { dir: String, overlay: Overlay },
    /// A directory without a kustomization that Flux builds: the kustomization Flux generates.
    FluxGenerated { dir: String, overlay: Overlay },
    /// `helm template` of a chart directory.
    Helm(Box<HelmSpec>),
    /// The files of a directory as they are (Argo CD's directory source).
    Directory { dir: String, recurse: bool, include: Vec<String>, exclude: Vec<String> },
    /// Argo CD Applications an ApplicationSet generates (made here, no tool runs).
    Generate { apps: Vec<Value> },
    /// Cannot be rendered.
    No { what: String, why: NotRendered },
}

/// What a controller sets on top of a kustomization (Argo CD `source.kustomize`, Flux `Kustomization`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlay {
    pub name_prefix: Option<String>,
    pub name_suffix: Option<String>,
    pub namespace: Option<String>,
    pub images: Vec<Value>,
    pub common_labels: Option<Value>,
    pub common_annotations: Option<Value>,
    pub patches: Vec<Value>,
    pub components: Vec<String>,
}

impl Overlay {
    /// Whether nothing is set: the directory is built as it is.
    pub fn is_empty(&self) -> bool {
        *self == Overlay::default()
    }
}

/// A `--set` parameter: name, value, `--set-string`.
pub type SetParam = (String, String, bool);

/// A `helm template` run.
#[derive(Debug, Clone, PartialEq)]
pub struct HelmSpec {
    /// A chart of a Helm or OCI repository, pulled by helm under `--fetch`: what to ask for.
    pub remote: Option<RemoteChart>,
    pub chart: String,
    pub release: String,
    pub namespace: Option<String>,
    /// Values files, in order (paths as the user sees them).
    pub value_files: Vec<String>,
    /// Inline values, in order after the files (Argo CD `values`/`valuesObject`, Flux `valuesFrom` and
    /// `values`).
    pub values: Vec<Value>,
    /// `--set`/`--set-string` (`true`) parameters.
    pub set: Vec<(String, String, bool)>,
    /// `--set-file` parameters.
    pub set_file: Vec<(String, String)>,
    pub skip_crds: bool,
    /// Value files that do not exist are left out (Argo CD `ignoreMissingValueFiles`).
    pub ignore_missing: bool,
}

/// A remote chart: helm pulls it (`--repo URL --version V`, or an `oci://` reference).
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteChart {
    /// The repository URL (`https://charts.example/`), or `None` for an OCI reference in `chart`.
    pub repo: Option<String>,
    /// The chart name, or the `oci://` reference.
    pub chart: String,
    /// The version or constraint, as the object pins it.
    pub version: Option<String>,
    /// How `--show-builds` and findings name it.
    pub what: String,
}

impl RemoteChart {
    /// `chart` of the repository at `url`: an `oci://` URL (or, as Argo CD writes it, a registry without a
    /// scheme; `oci` says so for Flux's `type: oci`) is pulled by reference, anything else with `--repo`.
    fn new(url: &str, chart: &str, version: Option<&str>, oci: bool, what: String) -> RemoteChart {
        RemoteChart {
            repo: (!oci).then(|| url.to_string()),
            chart: if oci {
                format!("oci://{}/{chart}", url.trim_start_matches("oci://").trim_end_matches('/'))
            } else {
                chart.to_string()
            },
            version: version.map(str::to_string),
            what,
        }
    }
}

/// What discovery reads: the objects of the current pass and the checkouts.
pub struct World<'a> {
    pub objects: Vec<&'a Object>,
    pub repos: &'a [RepoInfo],
    /// How each checkout's root is spelled in `Source::file` (`examples/shop/`, `` for the current
    /// directory).
    pub prefixes: &'a [Option<String>],
    /// Which cluster tree a file is in.
    pub trees: &'a crate::clusters::Trees,
    /// The objects by name, then by namespace, in load order: a controller's source or values ConfigMap is
    /// looked up, not scanned for (a scan per controller was O(objects × controllers), and so is a scan of
    /// the same-named ConfigMaps of every namespace).
    by_name: HashMap<&'a str, Named<'a>>,
}

/// The objects of one name: by namespace, and those without one, each with its load position.
#[derive(Default)]
struct Named<'a> {
    by_ns: HashMap<&'a str, Vec<(usize, &'a Object)>>,
    no_ns: Vec<(usize, &'a Object)>,
}

impl<'a> World<'a> {
    /// What discovery reads, indexed.
    pub fn new(
        objects: Vec<&'a Object>,
        repos: &'a [RepoInfo],
        prefixes: &'a [Option<String>],
        trees: &'a crate::clusters::Trees,
    ) -> World<'a> {
        let mut by_name: HashMap<&str, Named<'_>> = HashMap::new();
        for (i, o) in objects.iter().enumerate() {
            let n = by_name.entry(o.name.as_str()).or_default();
            match o.namespace.as_deref() {
                Some(ns) => n.by_ns.entry(ns).or_default().push((i, o)),
                None => n.no_ns.push((i, o)),
            }
        }
        World { objects, repos, prefixes, trees, by_name }
    }

    /// The objects of `kind` named `name` in namespace `ns` or in none (any namespace when `ns` is `None`), in
    /// load order.
    fn named(&self, kind: &str, name: &str, ns: Option<&str>) -> Vec<&'a Object> {
        let Some(n) = self.by_name.get(name) else { return Vec::new() };
        let mut hits: Vec<(usize, &'a Object)> = match ns {
            Some(ns) => n.by_ns.get(ns).into_iter().flatten().chain(&n.no_ns).copied().collect(),
            None => n.by_ns.values().flatten().chain(&n.no_ns).copied().collect(),
        };
        hits.retain(|(_, o)| o.kind.kind == kind);
        hits.sort_unstable_by_key(|(i, _)| *i);
        hits.into_iter().map(|(_, o)| o).collect()
    }

    fn find(&self, group: &str, kind: &str, ns: Option<&str>, name: &str) -> Option<&'a Object> {
        self.named(kind, name, ns).into_iter().find(|o| o.kind.group == group)
    }

    /// The ConfigMap `name` that `o` reads (Flux `substituteFrom`, `valuesFrom`): the one copy, else the copy the
    /// build that rendered `o` rendered too (a HelmRelease and its generated values, substituted per cluster by
    /// each cluster's Flux Kustomization of one directory), else the copy in `o`'s own `clusters/<name>` tree;
    /// `None` when several copies leave it ambiguous (a guess would put one cluster's hosts in another's).
    fn config_map_for(&self, o: &Object, name: &str) -> Option<&Object> {
        let ns = o.namespace.as_deref();
        let all: Vec<&Object> =
            self.named("ConfigMap", name, ns).into_iter().filter(|c| c.kind.group.is_empty()).collect();
        let agree = |v: &[&Object]| v.windows(2).all(|w| w[0].value.get("data") == w[1].value.get("data"));
        if all.len() <= 1 || agree(&all) {
            return all.first().copied();
        }
        if o.source.build().is_some() {
            let built: Vec<&Object> = all.iter().copied().filter(|c| c.source.build() == o.source.build()).collect();
            if built.len() == 1 || (!built.is_empty() && agree(&built)) {
                return Some(built[0]);
            }
        }
        let mine = o.source.file().and_then(|f| self.trees.of(f));
        let same: Vec<&Object> =
            all.into_iter().filter(|c| c.source.file().and_then(|f| self.trees.of(f)) == mine).collect();
        (same.len() == 1 || (!same.is_empty() && agree(&same))).then(|| same[0])
    }

    /// The checkout whose remotes include `url`.
    fn repo_of_url(&self, url: &str) -> Option<usize> {
        let u = normalize_repo_url(url);
        self.repos.iter().position(|r| r.remotes.iter().any(|rem| normalize_repo_url(rem) == u))
    }

    /// The checkout an Argo CD source with `path` is read from: [`repo_for_source`] (a directory that is not a
    /// git checkout answers for the paths it has).
    fn repo_of_source(&self, url: &str, path: &str) -> Option<usize> {
        repo_for_source(self.repos, url, Some(path))
    }

    /// `rel` (repository-relative) in checkout `repo`, spelled as files are.
    fn in_repo(&self, repo: usize, rel: &str) -> Option<String> {
        let prefix = self.prefixes.get(repo)?.as_deref()?;
        let rel = normalize_rel_path(rel);
        Some(join_path(prefix.trim_end_matches('/'), &rel))
    }

    /// Whether a directory (as files are spelled) exists.
    fn is_dir(p: &str) -> bool {
        std::path::Path::new(if p.is_empty() { "." } else { p }).is_dir()
    }
}

/// The cluster a file belongs to by its place: the directory after a `clusters/` segment
/// (`clusters/prod/apps.yaml`, `kubernetes/clusters/main/...`), as Flux lays trees out.
pub fn cluster_of_path(file: &str) -> Option<&str> {
    let mut parts = file.split('/');
    while let Some(p) = parts.next() {
        if p == "clusters" {
            let name = parts.next()?;
            // A file directly in `clusters/` names no cluster.
            return parts.next().map(|_| name);
        }
    }
    None
}

const ARGO: &str = "argoproj.io";
const FLUX_KUSTOMIZE: &str = "kustomize.toolkit.fluxcd.io";
const FLUX_HELM: &str = "helm.toolkit.fluxcd.io";
const FLUX_SOURCE: &str = "source.toolkit.fluxcd.io";

/// What discovery reads of `objects`, in order: the controller objects, the Flux sources they name and, when a
/// Flux controller is among them, the ConfigMaps its `valuesFrom` and `substituteFrom` read. Nothing else
/// changes what [`controllers`] finds, so a [`World`] of these alone finds the same builds, and a round whose
/// inputs are the previous round's finds what it found.
pub fn inputs(objects: Vec<&Object>) -> Vec<&Object> {
    fn group_kind(o: &Object) -> (&str, &str) {
        (o.kind.group.as_str(), o.kind.kind.as_str())
    }
    let flux =
        objects.iter().any(|o| matches!(group_kind(o), (FLUX_KUSTOMIZE, "Kustomization") | (FLUX_HELM, "HelmRelease")));
    objects
        .into_iter()
        .filter(|o| match group_kind(o) {
            (ARGO, "Application" | "ApplicationSet")
            | (FLUX_KUSTOMIZE, "Kustomization")
            | (FLUX_HELM, "HelmRelease")
            | (FLUX_SOURCE, _) => true,
            ("", "ConfigMap") => flux,
            _ => false,
        })
        .collect()
}

fn s<'v>(v: &'v Value, ptr: &str) -> Option<&'v str> {
    v.pointer(ptr).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// A non-empty string at a JSON pointer of an object.
fn sd<'o>(o: &'o Object, ptr: &str) -> Option<&'o str> {
    o.value.pointer(ptr).and_then(ValueRef::as_str).filter(|s| !s.is_empty())
}

fn label(o: &Object) -> String {
    match &o.namespace {
        Some(ns) => format!("{} {ns}/{}", o.kind.kind, o.name),
        None => format!("{} {}", o.kind.kind, o.name),
    }
}

/// The controller builds among the world's objects.
pub fn controllers(world: &World<'_>) -> Vec<Spec> {
    // Each controller object is read on its own (a directory listing or two each): in parallel, in load order.
    world
        .objects
        .par_iter()
        .filter_map(|o| {
            // A cluster's (or a dump's) controller objects are already applied: their output is in the
            // inventory.
            if o.is_live() || o.source.file().is_none() {
                return None;
            }
            // A controller object in an example or archive directory that no build applies declares nothing.
            if o.source.example && o.source.build().is_none() {
                return None;
            }
            match (o.kind.group.as_str(), o.kind.kind.as_str()) {
                (ARGO, "Application") => application(world, o),
                (FLUX_KUSTOMIZE, "Kustomization") => flux_kustomization(world, o),
                (FLUX_HELM, "HelmRelease") => helm_release(world, o),
                (ARGO, "ApplicationSet") => application_set(world, o),
                _ => None,
            }
        })
        .collect()
}

/// An Argo CD source's Helm settings over the chart at `dir` (`""` for a remote chart, whose relative value
/// files are inside the chart and are not read).
fn argo_helm(
    world: &World<'_>,
    app: &Object,
    src: &Value,
    dir: &str,
    namespace: Option<&str>,
    refs: &BTreeMap<&str, Option<usize>>,
) -> Option<How> {
    let h = src.get("helm").unwrap_or(&Value::Null);
    let mut value_files = Vec::new();
    for f in h.get("valueFiles").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        // `$ref/path`: from the checkout of the source with that `ref`.
        if let Some(rest) = f.strip_prefix('$') {
            let (name, rel) = rest.split_once('/').unwrap_or((rest, ""));
            match refs.get(name) {
                Some(Some(repo)) => value_files.extend(world.in_repo(*repo, rel)),
                _ => {
                    return Some(How::No {
                        what: format!("values {f}"),
                        why: NotRendered::Other(format!(
                            "value file `{f}` is in a source that is not a linted checkout"
                        )),
                    })
                }
            }
        } else if f.contains("://") {
            return Some(How::No {
                what: format!("values {}", edgecheck_core::redact::credentials(f)),
                why: NotRendered::Remote(format!("value file `{}`", edgecheck_core::redact::credentials(f))),
            });
        } else {
            if !dir.is_empty() {
                value_files.push(join_path(dir, f));
            }
        }
    }
    let mut values = Vec::new();
    if let Some(Value::String(text)) = h.get("values") {
        match edgecheck_load::yaml::parse_single(text) {
            Ok(Some(d)) => values.push(d.value),
            Ok(None) => {}
            // Placeholders a generator fills in before Argo CD sees them: not a failure of this checkout.
            Err(e) if e.templated => {
                return Some(How::No {
                    what: dir.to_string(),
                    why: NotRendered::Other("spec.source.helm.values is a template to be filled in".into()),
                })
            }
            Err(e) => {
                return Some(How::No {
                    what: dir.to_string(),
                    why: NotRendered::Failed(format!("spec.source.helm.values is not YAML: {}", e.message)),
                })
            }
        }
    }
    if let Some(v) = h.get("valuesObject").filter(|v| v.is_object()) {
        values.push(v.clone());
    }
    let mut set = Vec::new();
    for p in h.get("parameters").and_then(Value::as_array).into_iter().flatten() {
        if let (Some(n), Some(v)) = (s(p, "/name"), p.get("value")) {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            set.push((n.to_string(), v, p.get("forceString").and_then(Value::as_bool).unwrap_or(false)));
        }
    }
    let set_file = h
        .get("fileParameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| Some((s(p, "/name")?.to_string(), join_path(dir, s(p, "/path")?))))
        .collect();
    Some(How::Helm(Box::new(HelmSpec {
        remote: None,
        chart: dir.to_string(),
        release: s(h, "/releaseName").unwrap_or(&app.name).to_string(),
        namespace: namespace.map(str::to_string),
        value_files,
        values,
        set,
        set_file,
        skip_crds: h.get("skipCrds").and_then(Value::as_bool).unwrap_or(false),
        ignore_missing: h.get("ignoreMissingValueFiles").and_then(Value::as_bool).unwrap_or(false),
    })))
}

/// An ApplicationSet: expanded to the Applications it generates (`appset`), which later rounds find as
/// builds. One that cannot be expanded here (a cluster generator, a template function) is not rendered, but
/// the directories its git generators name in a linted checkout are applied by it: never plain roots, never
/// loose.
fn application_set(world: &World<'_>, o: &Object) -> Option<Spec> {
    let value = o.value.to_value();
    let spec = value.get("spec")?;
    let mut b = base_spec(o);
    // A git generator's checkout: the linted one its `repoURL` names, else a directory that is not a checkout.
    let lookup = |url: &str| {
        let repo = world.repo_of_url(url).or_else(|| world.repos.iter().position(|r| r.assumed))?;
        let prefix = world.prefixes.get(repo).cloned().flatten()?;
        let r = &world.repos[repo];
        let read = move |rel: &str| {
            let path = join_path(prefix.trim_end_matches('/'), rel);
            edgecheck_load::read::read_regular_text(std::path::Path::new(&path), 1 << 20).ok()
        };
        Some(crate::appset::Checkout { dirs: &r.dirs, files: &r.files, read: Box::new(read) })
    };
    match crate::appset::expand(&value, o.namespace.as_deref(), &lookup) {
        Ok(apps) => {
            b.parts.push(How::Generate { apps });
            return Some(b);
        }
        // A refusal may quote the template it could not read, and with it a URL's password.
        Err(why) => b.parts.push(How::No {
            what: "generators".into(),
            why: NotRendered::Other(edgecheck_core::redact::credentials(&why).into_owned()),
        }),
    }
    let mut generators: Vec<&Value> = Vec::new();
    fn collect<'v>(g: &'v Value, out: &mut Vec<&'v Value>) {
        if let Some(git) = g.get("git") {
            out.push(git);
        }
        for key in ["matrix", "merge"] {
            for inner in g.pointer(&format!("/{key}/generators")).and_then(Value::as_array).into_iter().flatten() {
                collect(inner, out);
            }
        }
    }
    for g in spec.get("generators").and_then(Value::as_array).into_iter().flatten() {
        collect(g, &mut generators);
    }
    for git in generators {
        let Some(repo) = s(git, "/repoURL").and_then(|u| world.repo_of_url(u)) else { continue };
        let Some(prefix) = world.prefixes.get(repo).cloned().flatten() else { continue };
        let dirs = &world.repos[repo].dirs;
        for d in git.get("directories").and_then(Value::as_array).into_iter().flatten() {
            if d.get("exclude").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let Some(pattern) = s(d, "/path") else { continue };
            for dir in dirs.iter().filter(|dir| path_glob(pattern, dir)) {
                b.claims.push(join_path(prefix.trim_end_matches('/'), dir));
            }
        }
        for f in git.get("files").and_then(Value::as_array).into_iter().flatten() {
            let Some(pattern) = s(f, "/path") else { continue };
            for file in world.repos[repo].files.iter().filter(|file| path_glob(pattern, file)) {
                let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
                b.claims.push(join_path(prefix.trim_end_matches('/'), dir));
            }
        }
    }
    Some(b)
}

/// A glob over a `/`-separated path, as Argo CD's git generators take them: `*` within a segment, `**`
/// across segments.
pub(crate) fn path_glob(pattern: &str, path: &str) -> bool {
    fn seg(p: &[u8], n: &[u8]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some(b'*'), _) => seg(&p[1..], n) || (!n.is_empty() && seg(p, &n[1..])),
            (Some(b'?'), Some(_)) => seg(&p[1..], &n[1..]),
            (Some(a), Some(b)) if a == b => seg(&p[1..], &n[1..]),
            _ => false,
        }
    }
    fn parts(p: &[&str], n: &[&str]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some(&"**"), _) => parts(&p[1..], n) || (!n.is_empty() && parts(p, &n[1..])),
            (Some(a), Some(b)) => seg(a.as_bytes(), b.as_bytes()) && parts(&p[1..], &n[1..]),
            _ => false,
        }
    }
    let p: Vec<&str> = pattern.trim_matches('/').split('/').collect();
    let n: Vec<&str> = path.split('/').collect();
    parts(&p, &n)
}

fn base_spec(o: &Object) -> Spec {
    Spec {
        name: label(o),
        origin: Some(o.to_ref()),
        file: o.source.file().map(str::to_string),
        line: o.source.line(),
        cluster: None,
        namespace: None,
        parts: Vec::new(),
        substitute: None,
        claims: Vec::new(),
        from: o.source.build().map(str::to_string),
        key: String::new(),
    }
}

/// An Argo CD Application: each source in a linted checkout becomes a part; a source elsewhere (a Helm
/// repository chart, another repository) cannot be rendered.
fn application(world: &World<'_>, o: &Object) -> Option<Spec> {
    let value = o.value.to_value();
    let spec = value.get("spec")?;
    let mut sources: Vec<&Value> = Vec::new();
    if let Some(src) = spec.get("source") {
        sources.push(src);
    }
    if let Some(Value::Array(a)) = spec.get("sources") {
        sources.extend(a.iter());
    }
    if sources.is_empty() {
        return None;
    }
    let mut b = base_spec(o);
    b.namespace = s(spec, "/destination/namespace").map(str::to_string);
    b.cluster = s(spec, "/destination/name").map(str::to_string).or_else(|| {
        s(spec, "/destination/server").filter(|u| *u != "https://kubernetes.default.svc").map(str::to_string)
    });
    // `ref` sources: `$name/...` value files read from that source's checkout.
    let refs: BTreeMap<&str, Option<usize>> = sources
        .iter()
        .filter_map(|src| Some((s(src, "/ref")?, s(src, "/repoURL").and_then(|u| world.repo_of_url(u)))))
        .collect();
    for src in sources {
        let url = s(src, "/repoURL").unwrap_or("");
        if let Some(chart) = s(src, "/chart") {
            let version = s(src, "/targetRevision").filter(|v| *v != "*" && *v != "HEAD");
            // Argo CD names an OCI registry without a scheme (`ghcr.io/org/charts`).
            let oci = url.starts_with("oci://") || !url.contains("://");
            let what = format!("Helm repository chart `{chart}` {}", version.unwrap_or("latest"));
            let remote = RemoteChart::new(url, chart, version, oci, what);
            match argo_helm(world, o, src, "", b.namespace.as_deref(), &refs) {
                Some(How::Helm(mut h)) => {
                    h.remote = Some(remote);
                    b.parts.push(How::Helm(h));
                }
                Some(other) => b.parts.push(other),
                None => {}
            }
            continue;
        }
        let Some(path) = src.get("path").and_then(Value::as_str) else {
            continue; // a `ref` source: values only
        };
        let Some(repo) = world.repo_of_source(url, path) else {
            // Another repository: nothing here to render. It is not a fault of this checkout.
            b.parts.push(How::No {
                what: format!("{} path {path}", edgecheck_core::redact::credentials(url)),
                why: NotRendered::Other("the source is another repository (not a linted checkout)".into()),
            });
            continue;
        };
        let Some(dir) = world.in_repo(repo, path) else { continue };
        let part = source_part(world, o, src, &dir, b.namespace.as_deref(), &refs);
        // A plugin or jsonnet source still applies its directory.
        if matches!(part, Some(How::No { .. })) {
            b.claims.push(dir.clone());
        }
        b.parts.extend(part);
    }
    (!b.parts.is_empty()).then_some(b)
}

const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

fn kustomization_file(dir: &str) -> bool {
    KUSTOMIZATION_FILES.iter().any(|f| {
        std::path::Path::new(&join_path(dir, f)).is_file() || (dir.is_empty() && std::path::Path::new(f).is_file())
    })
}

/// The entries of a directory, read once: what an Application's source directory holds decides how the
/// repo-server builds it (a kustomization, a chart, jsonnet), and thousands of Applications each asked five
/// questions of the file system.
struct Listing(Vec<(std::ffi::OsString, bool)>);

impl Listing {
    /// `None` when `dir` is not a directory that can be read.
    fn read(dir: &str) -> Option<Listing> {
        let entries = std::fs::read_dir(if dir.is_empty() { "." } else { dir }).ok()?;
        let names = entries
            .flatten()
            .map(|e| {
                let file = match e.file_type() {
                    Ok(t) if t.is_symlink() => e.path().is_file(),
                    Ok(t) => t.is_file(),
                    Err(_) => e.path().is_file(),
                };
                (e.file_name(), file)
            })
            .collect();
        Some(Listing(names))
    }

    fn has_file(&self, name: &str) -> bool {
        self.0.iter().any(|(n, file)| *file && n == name)
    }

    fn any_name(&self, f: impl Fn(&str) -> bool) -> bool {
        self.0.iter().any(|(n, _)| n.to_str().is_some_and(&f))
    }
}

/// One Application source in a checkout: kustomize, Helm or a directory, as the repo-server decides.
fn source_part(
    world: &World<'_>,
    app: &Object,
    src: &Value,
    dir: &str,
    namespace: Option<&str>,
    refs: &BTreeMap<&str, Option<usize>>,
) -> Option<How> {
    // GIT001 reports a missing path; there is nothing to build.
    let listing = Listing::read(dir)?;
    // A config management plugin renders it (or may: a named or discovered plugin), not kustomize or helm.
    if src.get("plugin").is_some() {
        return Some(How::No {
            what: dir.to_string(),
            why: NotRendered::Other("a config management plugin renders it; edgecheck runs no plugins".into()),
        });
    }
    if KUSTOMIZATION_FILES.iter().any(|f| listing.has_file(f)) {
        let k = src.get("kustomize").unwrap_or(&Value::Null);
        let overlay = Overlay {
            name_prefix: s(k, "/namePrefix").map(str::to_string),
            name_suffix: s(k, "/nameSuffix").map(str::to_string),
            namespace: s(k, "/namespace").map(str::to_string),
            images: k.get("images").and_then(Value::as_array).map(<[_]>::to_vec).unwrap_or_default(),
            common_labels: k.get("commonLabels").cloned(),
            common_annotations: k.get("commonAnnotations").cloned(),
            patches: k.get("patches").and_then(Value::as_array).map(<[_]>::to_vec).unwrap_or_default(),
            components: k
                .get("components")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|c| join_path(dir, c))
                .collect(),
        };
        return Some(How::Kustomize { dir: dir.to_string(), overlay });
    }
    if listing.has_file("Chart.yaml") {
        return argo_helm(world, app, src, dir, namespace, refs);
    }
    let d = src.get("directory").unwrap_or(&Value::Null);
    let jsonnet = listing.any_name(|n| n.ends_with(".jsonnet") || n.ends_with(".libsonnet"));
    if jsonnet || d.get("jsonnet").is_some() {
        return Some(How::No {
            what: dir.to_string(),
            why: NotRendered::Other("Argo CD evaluates its jsonnet, which edgecheck does not".into()),
        });
    }
    let globs = |key: &str| -> Vec<String> {
        let raw = s(d, &format!("/{key}")).unwrap_or("");
        let raw = raw.trim().trim_start_matches('{').trim_end_matches('}');
        raw.split(',').map(str::trim).filter(|g| !g.is_empty()).map(str::to_string).collect()
    };
    Some(How::Directory {
        dir: dir.to_string(),
        recurse: d.get("recurse").and_then(Value::as_bool).unwrap_or(false),
        include: globs("include"),
        exclude: globs("exclude"),
    })
}

/// A part that cannot be built: what and why.
pub struct Refused {
    what: String,
    why: NotRendered,
}

impl From<Refused> for How {
    fn from(r: Refused) -> How {
        How::No { what: r.what, why: r.why }
    }
}

/// The checkout a Flux object's `sourceRef` names: a GitRepository in the inputs whose URL is a linted
/// checkout; one not in the inputs (the `flux-system` source bootstrap creates) is the checkout the object
/// itself is in. `Err` says why not.
fn flux_source(world: &World<'_>, o: &Object, source_ref: Option<&Value>) -> Result<Option<usize>, Refused> {
    let kind = source_ref.and_then(|r| s(r, "/kind")).unwrap_or("GitRepository");
    let name = source_ref.and_then(|r| s(r, "/name")).unwrap_or("");
    let ns = source_ref.and_then(|r| s(r, "/namespace")).or(o.namespace.as_deref());
    if kind != "GitRepository" {
        return Err(Refused {
            what: format!("{kind} {name}"),
            why: NotRendered::Other(format!("the source is {kind} `{name}`, which edgecheck does not read")),
        });
    }
    match world.find(FLUX_SOURCE, "GitRepository", ns, name) {
        Some(g) => match sd(g, "/spec/url") {
            Some(url) => match world.repo_of_url(url) {
                Some(r) => Ok(Some(r)),
                // A checkout without remotes (a snapshot) may still be this one: resolved by the
                // object's own checkout below when that is the only one.
                None if world.repos.iter().all(|r| r.remotes.is_empty()) => Ok(o.source.repo_path().map(|(r, _)| r)),
                None => Err(Refused {
                    what: format!("GitRepository {name}"),
                    why: NotRendered::Other(format!(
                        "the source GitRepository `{name}` ({}) is another repository (not a linted checkout)",
                        edgecheck_core::redact::credentials(url)
                    )),
                }),
            },
            None => Ok(o.source.repo_path().map(|(r, _)| r)),
        },
        None => Ok(o.source.repo_path().map(|(r, _)| r)),
    }
}

/// Where a repository-relative path is when the checkout is not known: below the nearest ancestor of the
/// object's file where that path is a directory.
fn near(o: &Object, rel: &str) -> Option<String> {
    let file = o.source.file()?;
    let mut d = file.rsplit_once('/').map_or("", |(d, _)| d);
    loop {
        let c = join_path(d, &normalize_rel_path(rel));
        if World::is_dir(&c) && (d.is_empty() || !c.is_empty()) {
            return Some(c);
        }
        if d.is_empty() || d == "/" {
            return None;
        }
        d = d.rsplit_once('/').map_or("", |(d, _)| d);
    }
}

/// A Flux path in its source's checkout, and how to resolve other paths of that source.
fn flux_dir(world: &World<'_>, o: &Object, source_ref: Option<&Value>, path: &str) -> Result<String, Refused> {
    let repo = flux_source(world, o, source_ref)?;
    match flux_path(world, o, repo, path) {
        Some(d) if World::is_dir(&d) => Ok(d),
        _ => Err(Refused {
            what: path.to_string(),
            why: NotRendered::Other(format!("`{path}` is not a directory of the linted checkout")),
        }),
    }
}

fn flux_path(world: &World<'_>, o: &Object, repo: Option<usize>, path: &str) -> Option<String> {
    match repo {
        Some(r) => world.in_repo(r, path),
        None => near(o, path),
    }
}

/// A Flux Kustomization: `spec.path` built with its `targetNamespace`, `namePrefix`/`nameSuffix`, `images`,
/// `patches`, `components`, `commonMetadata`; then `postBuild` substitution.
fn flux_kustomization(world: &World<'_>, o: &Object) -> Option<Spec> {
    let value = o.value.to_value();
    let spec = value.get("spec")?;
    let mut b = base_spec(o);
    let path = s(spec, "/path").unwrap_or("./");
    let dir = match flux_dir(world, o, spec.get("sourceRef"), path) {
        Ok(d) => d,
        Err(no) => {
            b.parts.push(no.into());
            b.claims.extend(near(o, path).filter(|d| !d.is_empty()));
            return Some(b);
        }
    };
    let overlay = Overlay {
        name_prefix: s(spec, "/namePrefix").map(str::to_string),
        name_suffix: s(spec, "/nameSuffix").map(str::to_string),
        namespace: s(spec, "/targetNamespace").map(str::to_string),
        images: spec.get("images").and_then(Value::as_array).map(<[_]>::to_vec).unwrap_or_default(),
        common_labels: spec.pointer("/commonMetadata/labels").cloned(),
        common_annotations: spec.pointer("/commonMetadata/annotations").cloned(),
        patches: spec.get("patches").and_then(Value::as_array).map(<[_]>::to_vec).unwrap_or_default(),
        components: spec
            .get("components")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|c| join_path(&dir, c))
            .collect(),
    };
    b.namespace = overlay.namespace.clone();
    b.parts.push(if kustomization_file(&dir) {
        How::Kustomize { dir, overlay }
    } else {
        How::FluxGenerated { dir, overlay }
    });
    if let Some(post) = spec.get("postBuild") {
        b.substitute = Some(flux_vars(world, o, post));
    }
    Some(b)
}

/// `postBuild.substitute` over `substituteFrom` ConfigMaps of the inputs; a Secret source (or a source the
/// inputs do not hold) leaves its variables unknown.
fn flux_vars(world: &World<'_>, o: &Object, post: &Value) -> Vars {
    let mut vars = Vars::default();
    for from in post.get("substituteFrom").and_then(Value::as_array).into_iter().flatten() {
        let kind = s(from, "/kind").unwrap_or("ConfigMap");
        let name = s(from, "/name").unwrap_or("");
        let found = if kind == "ConfigMap" { world.config_map_for(o, name) } else { None };
        match found.and_then(|c| c.value.get("data")).and_then(ValueRef::as_object) {
            Some(data) => {
                for (k, v) in data {
                    if let Some(v) = v.as_str() {
                        vars.values.insert(k.to_string(), v.to_string());
                    }
                }
            }
            None => vars.incomplete = true,
        }
    }
    // Inline values win over those from sources.
    for (k, v) in post.get("substitute").and_then(Value::as_object).into_iter().flatten() {
        let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
        vars.values.insert(k.to_string(), v);
    }
    vars
}

/// A HelmRelease's values: `valuesFrom` ConfigMaps of the inputs (a Secret's are never read), then `values`.
/// `None` when a required source is missing or broken (the reason is pushed onto `b`).
fn flux_values(world: &World<'_>, o: &Object, spec: &Value, b: &mut Spec) -> Option<(Vec<Value>, Vec<SetParam>)> {
    let mut values = Vec::new();
    let mut set = Vec::new();
    for from in spec.get("valuesFrom").and_then(Value::as_array).into_iter().flatten() {
        let kind = s(from, "/kind").unwrap_or("ConfigMap");
        let name = s(from, "/name").unwrap_or("");
        let key = s(from, "/valuesKey").unwrap_or("values.yaml");
        let optional = from.get("optional").and_then(Value::as_bool).unwrap_or(false);
        let found = (kind == "ConfigMap")
            .then(|| world.config_map_for(o, name))
            .flatten()
            .and_then(|c| c.value.pointer(&format!("/data/{}", key.replace('~', "~0").replace('/', "~1"))))
            .and_then(ValueRef::as_str);
        let Some(text) = found else {
            if optional || kind != "ConfigMap" {
                continue; // a Secret's values are never read
            }
            b.parts.push(How::No {
                what: o.name.to_string(),
                why: NotRendered::Other(format!("valuesFrom ConfigMap `{name}` key `{key}` is not in the inputs")),
            });
            return None;
        };
        match s(from, "/targetPath") {
            Some(path) => set.push((path.to_string(), text.to_string(), false)),
            None => match edgecheck_load::yaml::parse_single(text) {
                Ok(Some(d)) => values.push(d.value),
                Ok(None) => {}
                Err(e) => {
                    let why = if e.templated {
                        NotRendered::Other(format!("valuesFrom ConfigMap `{name}` is a template to be filled in"))
                    } else {
                        NotRendered::Failed(format!("valuesFrom ConfigMap `{name}` is not YAML: {}", e.message))
                    };
                    b.parts.push(How::No { what: o.name.to_string(), why });
                    return None;
                }
            },
        }
    }
    if let Some(v) = spec.get("values").filter(|v| v.is_object()) {
        values.push(v.clone());
    }
    Some((values, set))
}

/// `releaseName`, else `[targetNamespace-]name`.
fn flux_release(spec: &Value, o: &Object, target: Option<&str>) -> String {
    s(spec, "/releaseName")
        .map(str::to_string)
        .unwrap_or_else(|| target.map_or_else(|| o.name.to_string(), |t| format!("{t}-{}", o.name)))
}

/// A HelmRelease of a remote chart: its values (`valuesFrom`, then `values`) over the chart helm pulls.
fn remote_release(
    world: &World<'_>,
    o: &Object,
    spec: &Value,
    target: Option<&str>,
    mut b: Spec,
    remote: RemoteChart,
) -> Spec {
    let Some((values, set)) = flux_values(world, o, spec, &mut b) else { return b };
    b.parts.push(How::Helm(Box::new(HelmSpec {
        remote: Some(remote),
        chart: String::new(),
        release: flux_release(spec, o, target),
        namespace: b.namespace.clone(),
        value_files: Vec::new(),
        values,
        set,
        set_file: Vec::new(),
        skip_crds: s(spec, "/install/crds") == Some("Skip"),
        ignore_missing: false,
    })));
    b
}

/// A Flux HelmRelease of a chart in a linted checkout (`chart.spec.sourceRef` a GitRepository):
/// `valuesFrom` ConfigMaps of the inputs, then `values`. Charts of Helm and OCI repositories are remote.
fn helm_release(world: &World<'_>, o: &Object) -> Option<Spec> {
    let value = o.value.to_value();
    let spec = value.get("spec")?;
    let mut b = base_spec(o);
    let target = s(spec, "/targetNamespace");
    b.namespace = target.map(str::to_string).or_else(|| o.namespace.as_deref().map(str::to_string));
    if let Some(r) = spec.get("chartRef") {
        let kind = s(r, "/kind").unwrap_or("OCIRepository");
        let name = s(r, "/name").unwrap_or("");
        let ns = s(r, "/namespace").or(o.namespace.as_deref());
        // An OCIRepository in the inputs names the chart (`oci://registry/charts/web`) and its tag, semver
        // range or digest: helm pulls it under --fetch, as for a HelmRepository.
        let oci = (kind == "OCIRepository").then(|| world.find(FLUX_SOURCE, "OCIRepository", ns, name)).flatten();
        let Some((url, source)) = oci.and_then(|src| Some((sd(src, "/spec/url")?, src))) else {
            b.parts.push(How::No {
                what: format!("{kind} {name}"),
                why: NotRendered::Remote(format!("chart from {kind} `{name}`, a source the inputs do not hold")),
            });
            return Some(b);
        };
        let (chart, version) = match (sd(source, "/spec/ref/digest"), sd(source, "/spec/ref/tag")) {
            (Some(d), _) => (format!("{url}@{d}"), None),
            (None, tag) => (url.to_string(), tag.or_else(|| sd(source, "/spec/ref/semver"))),
        };
        let what = format!("chart {url} {} from OCIRepository `{name}`", version.unwrap_or("latest"));
        let remote = RemoteChart { repo: None, chart, version: version.map(str::to_string), what };
        return Some(remote_release(world, o, spec, target, b, remote));
    }
    let chart_spec = spec.pointer("/chart/spec")?;
    let chart = s(chart_spec, "/chart").unwrap_or("");
    let source_ref = chart_spec.get("sourceRef");
    let kind = source_ref.and_then(|r| s(r, "/kind")).unwrap_or("HelmRepository");
    if kind != "GitRepository" {
        let version = s(chart_spec, "/version");
        let repo = source_ref.and_then(|r| s(r, "/name")).unwrap_or("");
        let what = format!("chart `{chart}` {} from {kind} `{repo}`", version.unwrap_or("latest"));
        let ns = source_ref.and_then(|r| s(r, "/namespace")).or(o.namespace.as_deref());
        let source = (kind == "HelmRepository").then(|| world.find(FLUX_SOURCE, "HelmRepository", ns, repo)).flatten();
        let Some(url) = source.and_then(|r| sd(r, "/spec/url")) else {
            b.parts.push(How::No {
                what: format!("chart {chart} from {kind} {repo}"),
                why: NotRendered::Remote(format!("{what}, a source the inputs do not hold")),
            });
            return Some(b);
        };
        let oci = url.starts_with("oci://") || source.and_then(|r| sd(r, "/spec/type")) == Some("oci");
        let remote = RemoteChart::new(url, chart, version, oci, what);
        return Some(remote_release(world, o, spec, target, b, remote));
    }
    let dir = match flux_dir(world, o, source_ref, chart) {
        Ok(d) => d,
        Err(no) => {
            b.parts.push(no.into());
            return Some(b);
        }
    };
    let (values, set) = match flux_values(world, o, spec, &mut b) {
        Some(v) => v,
        None => return Some(b),
    };
    b.parts.push(How::Helm(Box::new(HelmSpec {
        remote: None,
        chart: dir,
        release: flux_release(spec, o, target),
        namespace: b.namespace.clone(),
        value_files: chart_spec
            .get("valuesFiles")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter_map(|f| flux_path(world, o, flux_source(world, o, source_ref).ok().flatten(), f))
            .collect(),
        values,
        set,
        set_file: Vec::new(),
        skip_crds: s(spec, "/install/crds") == Some("Skip"),
        ignore_missing: false,
    })));
    Some(b)
}
