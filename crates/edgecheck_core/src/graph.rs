//! The reference graph: typed views of every object and the edges between them, resolved once.
//!
//! A reference whose target is not in the inventory is an edge to [`Target::Missing`], which is
//! itself evidence; checks decide whether that absence matters (see `CheckContext::absence`).

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use crate::check::Options;
use crate::inventory::{Inventory, LoadProblem, RepoInfo};
use crate::kind::{Kind, K};
use crate::object::{Object, ObjectRef};
use crate::views::{self, PortRef, View, ViewOf};

/// Index of an object in the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjId(pub usize);

/// Where an edge ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The object is in the inventory.
    Found(ObjId),
    /// It is not: here is what was named.
    Missing(ObjectRef),
}

impl Target {
    /// The object, when found.
    pub fn found(&self) -> Option<ObjId> {
        match self {
            Target::Found(id) => Some(*id),
            Target::Missing(_) => None,
        }
    }
}

/// What a reference means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EdgeKind {
    /// Ingress → IngressClass (explicit, annotation or default; see [`Edge::how`]).
    IngressClass,
    /// IngressClass / GatewayClass → its parameters object (AlbConfig, CiliumGatewayClassConfig, ...).
    ClassParameters,
    /// Route / Ingress / IngressRoute → Service (with [`Edge::port`]).
    Backend,
    /// Ingress tls / Gateway listener / IngressRoute tls → Secret (listener in [`Edge::section`]).
    TlsSecret,
    /// IngressRoute → TLSOption.
    TlsOption,
    /// Route → Gateway (with [`Edge::section`] and [`Edge::port`]); ListenerSet → Gateway.
    ParentRef,
    /// Gateway → GatewayClass.
    GatewayClass,
    /// Service → workload whose pod template its selector matches.
    Selects,
    /// Certificate → the Secret it writes.
    CertificateSecret,
    /// Certificate → Issuer / ClusterIssuer.
    Issuer,
    /// Issuer → IngressClass of an HTTP-01 solver.
    SolverClass,
    /// ExternalSecret → SecretStore / ClusterSecretStore.
    SecretStore,
    /// ExternalSecret → the Secret it writes.
    SecretTarget,
    /// Application → an object loaded from its source path in the linted checkout.
    Manages,
    /// Event → the object it is about.
    Involves,
}

/// A resolved reference.
#[derive(Debug, Clone)]
pub struct Edge {
    /// The referring object.
    pub from: ObjId,
    /// What the reference means.
    pub kind: EdgeKind,
    /// The referred object, or what was named.
    pub to: Target,
    /// The field of `from` that holds the reference (for file:line).
    pub field: String,
    /// Port named by the reference (backends, parentRefs).
    pub port: Option<PortRef>,
    /// Section: listener name (parentRef `sectionName`, the listener of a certificateRef).
    pub section: Option<String>,
    /// How it was resolved, where there are several ways (`ingressClassName`, `annotation`, `default`).
    pub how: &'static str,
}

/// Objects, their views, and the edges between them.
pub struct Graph {
    /// The objects (index = [`ObjId`]).
    pub objects: Vec<Object>,
    /// Views, parallel to `objects`.
    pub views: Vec<View>,
    /// Objects whose view could not be built: a field of the wrong type.
    pub view_errors: Vec<(ObjId, views::SchemaError)>,
    /// Load problems, passed through from the inventory.
    pub problems: Vec<LoadProblem>,
    /// Documents skipped as not Kubernetes objects.
    pub skipped_documents: usize,
    /// Templates skipped: Helm chart template files, documents with template directives.
    pub skipped_templates: usize,
    /// Files read.
    pub files: usize,
    /// Git checkouts linted.
    pub repos: Vec<RepoInfo>,
    /// The inventory is a full dump of a cluster.
    pub complete: bool,
    /// Namespace objects default to.
    pub default_namespace: String,
    /// Duplicates: later occurrences and the first one.
    pub duplicates: Vec<(ObjId, ObjId)>,
    /// Node configuration documents (k3s config files), passed through from the inventory.
    pub node_configs: Vec<crate::inventory::NodeConfig>,
    /// Kinds a live scan could not list, passed through from the inventory.
    pub unchecked: Vec<crate::inventory::Unchecked>,
    /// First occurrences by a hash of (kind, namespace, name): the objects hold the keys, so the index
    /// does not copy them (see [`find_in`]).
    index: HashMap<u64, ObjId>,
    /// Further objects whose key hashes like an indexed object's but differs (rare).
    index_collisions: HashMap<u64, Vec<ObjId>>,
    by_kind: HashMap<Kind, Vec<ObjId>>,
    ns_count: HashMap<Kind, HashMap<String, usize>>,
    edges: Vec<Edge>,
    out: Vec<Vec<usize>>,
    inn: Vec<Vec<usize>>,
    producers: HashMap<(String, String), Vec<ObjId>>,
    crds: HashMap<Kind, ObjId>,
    namespace_explicit: Vec<bool>,
    unseen: std::collections::HashSet<String>,
    build_tops: Vec<Vec<usize>>,
    app_dirs: Vec<(usize, String)>,
}

/// The hash [`Graph`]'s index keys objects by.
fn key_hash(kind: &Kind, namespace: Option<&str>, name: &str) -> u64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut h = std::hash::DefaultHasher::new();
    kind.hash(&mut h);
    namespace.hash(&mut h);
    name.hash(&mut h);
    h.finish()
}

/// The indexed object whose (kind, namespace, name) is `key`, `hash` being its [`key_hash`].
fn find_in(
    objects: &[Object],
    index: &HashMap<u64, ObjId>,
    collisions: &HashMap<u64, Vec<ObjId>>,
    hash: u64,
    key: (&Kind, Option<&str>, &str),
) -> Option<ObjId> {
    let (kind, ns, name) = key;
    let is = |id: &ObjId| {
        let o = &objects[id.0];
        o.kind == *kind && o.namespace.as_deref() == ns && o.name == name
    };
    index.get(&hash).copied().filter(is).or_else(|| collisions.get(&hash)?.iter().copied().find(is))
}

const CERT_MANAGER_SHIM: &[&str] =
    &["cert-manager.io/cluster-issuer", "cert-manager.io/issuer", "cert-manager.io/issuer-name"];

impl Graph {
    /// Builds the graph: views, namespaces, indexes, edges.
    pub fn build(inventory: Inventory, options: &Options) -> Graph {
        let Inventory {
            mut objects,
            problems,
            skipped_documents,
            skipped_templates,
            files,
            repos,
            builds,
            node_configs,
            unchecked,
        } = inventory;
        let mut views = Vec::with_capacity(objects.len());
        let mut view_errors = Vec::new();
        // Views are independent of each other: built in parallel, kept in object order.
        let built: Vec<Result<View, views::SchemaError>> =
            objects.par_iter().map(|o| View::build(&o.kind, &o.value)).collect();
        for (i, b) in built.into_iter().enumerate() {
            match b {
                Ok(v) => views.push(v),
                Err(e) => {
                    let o = &objects[i];
                    let workload = <views::Workload as ViewOf>::KINDS.iter().any(|k| o.is(*k));
                    let e = match (e.path.as_str(), workload) {
                        (".", true) => views::Workload::template_error(&o.value).unwrap_or(e),
                        _ => e,
                    };
                    view_errors.push((ObjId(i), e));
                    views.push(View::Other);
                }
            }
        }
        let complete = options.complete.unwrap_or_else(|| {
            !objects.is_empty() && objects.iter().all(Object::is_live) && objects.iter().any(|o| o.is(K::NAMESPACE))
        });

        // Namespaces: the one a build forces (Flux targetNamespace, the outermost kustomization's
        // `namespace:`), else explicit, else the kustomization of the file's directory, else the
        // destination of the Application whose path holds the file, else the default.
        let namespace_explicit: Vec<bool> = objects.iter().map(|o| o.namespace.is_some()).collect();
        let apps = application_dirs(&objects, &views, &repos);
        let mut from_builds = crate::namespaces::resolve(&objects, &builds);
        let build_tops: Vec<Vec<usize>> = from_builds.iter_mut().map(|b| std::mem::take(&mut b.tops)).collect();
        let app_dirs: Vec<(usize, String)> = apps.iter().map(|a| (a.repo, a.dir.clone())).collect();
        for (o, b) in objects.iter_mut().zip(from_builds) {
            if !o.kind.namespaced() {
                o.namespace = None;
                // kustomize renames a Namespace object to the namespace it sets.
                if let (true, Some(ns)) = (o.is(K::NAMESPACE), b.forced) {
                    o.name = ns;
                }
                continue;
            }
            if let Some(ns) = b.forced {
                o.namespace = Some(ns);
                continue;
            }
            if o.namespace.is_some() {
                continue;
            }
            let rp = o.source.repo_path.as_ref();
            let from_app = rp.and_then(|(repo, path)| {
                apps.iter()
                    .filter(|a| a.repo == *repo && under(path, &a.dir))
                    .max_by_key(|a| a.dir.len())
                    .and_then(|a| a.namespace.clone())
            });
            o.namespace = Some(b.dir_default.or(from_app).unwrap_or_else(|| options.default_namespace.clone()));
        }

        let mut g = Graph {
            views,
            view_errors,
            problems,
            skipped_documents,
            skipped_templates,
            files,
            repos,
            complete,
            default_namespace: options.default_namespace.clone(),
            duplicates: Vec::new(),
            node_configs,
            unchecked,
            index: HashMap::with_capacity(objects.len()),
            index_collisions: HashMap::new(),
            by_kind: HashMap::new(),
            ns_count: HashMap::new(),
            // About one reference per object is usual; a vector grown by doubling from empty is copied
            // into ever larger fresh allocations.
            edges: Vec::with_capacity(objects.len()),
            out: vec![Vec::new(); objects.len()],
            inn: vec![Vec::new(); objects.len()],
            producers: HashMap::new(),
            crds: HashMap::new(),
            namespace_explicit,
            unseen: Default::default(),
            build_tops,
            app_dirs,
            objects,
        };
        for (i, o) in g.objects.iter().enumerate() {
            let (ns, h) = (o.namespace.as_deref(), key_hash(&o.kind, o.namespace.as_deref(), &o.name));
            if let Some(first) = find_in(&g.objects, &g.index, &g.index_collisions, h, (&o.kind, ns, &o.name)) {
                g.duplicates.push((ObjId(i), first));
                continue;
            }
            match g.index.entry(h) {
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(ObjId(i));
                }
                std::collections::hash_map::Entry::Occupied(_) => {
                    g.index_collisions.entry(h).or_default().push(ObjId(i))
                }
            }
            match g.by_kind.get_mut(&o.kind) {
                Some(ids) => ids.push(ObjId(i)),
                None => {
                    g.by_kind.insert(o.kind.clone(), vec![ObjId(i)]);
                }
            }
            if let Some(ns) = &o.namespace {
                let per_ns = match g.ns_count.get_mut(&o.kind) {
                    Some(m) => m,
                    None => g.ns_count.entry(o.kind.clone()).or_default(),
                };
                match per_ns.get_mut(ns.as_str()) {
                    Some(n) => *n += 1,
                    None => {
                        per_ns.insert(ns.clone(), 1);
                    }
                }
            }
        }
        g.index_crds();
        g.index_producers();
        g.link(&apps);
        g.unseen = g.unseen_namespaces(&apps);
        g
    }

    /// Namespaces that something in the inputs fills with objects the inputs do not hold: an Argo CD
    /// Application rendering a Helm chart, or a path outside the linted files; a Flux HelmRelease.
    fn unseen_namespaces(&self, apps: &[AppDir]) -> std::collections::HashSet<String> {
        let mut out = std::collections::HashSet::new();
        let mut loaded_dirs: Option<std::collections::HashSet<&str>> = None;
        let resolved: std::collections::HashMap<(ObjId, &str), &AppDir> =
            apps.iter().map(|a| ((a.id, a.field.as_str()), a)).collect();
        for (id, _, app) in self.each::<views::Application>() {
            let Some(ns) = app.spec.destination.namespace.as_deref().filter(|n| !n.is_empty()) else {
                continue;
            };
            for (field, s) in app.spec.all_sources() {
                if s.chart.is_none() && s.path.is_none() {
                    continue; // a `ref` source: values only
                }
                let in_repo = resolved.get(&(id, format!("{field}.path").as_str())).copied();
                let unseen = match (&s.chart, in_repo, &s.path) {
                    (Some(_), _, _) => true,
                    (None, Some(a), _) => self.repos[a.repo].files.contains(&format!("{}/Chart.yaml", a.dir)),
                    // Not resolved to a checkout: seen when manifests were loaded from a directory
                    // ending in that path.
                    (None, None, Some(path)) => {
                        let rel = normalize_rel_path(path);
                        // Every trailing run of segments of every directory manifests came from.
                        let dirs = loaded_dirs.get_or_insert_with(|| {
                            let mut set = std::collections::HashSet::new();
                            for f in self.objects.iter().filter_map(|o| o.source.file.as_deref()) {
                                let d = f.rsplit_once('/').map_or("", |(d, _)| d);
                                if !set.insert(d) {
                                    continue;
                                }
                                for (i, _) in d.match_indices('/') {
                                    set.insert(&d[i + 1..]);
                                }
                            }
                            set
                        });
                        rel.is_empty() || !dirs.contains(rel.as_str())
                    }
                    (None, None, None) => false,
                };
                if unseen {
                    out.insert(ns.to_string());
                }
            }
        }
        for o in &self.objects {
            if o.kind.group == "helm.toolkit.fluxcd.io" && o.kind.kind == "HelmRelease" {
                let target = o.value.pointer("/spec/targetNamespace").and_then(serde_json::Value::as_str);
                if let Some(ns) = target.or(o.namespace.as_deref()) {
                    out.insert(ns.to_string());
                }
            }
        }
        out
    }

    /// Whether a live scan could not list `kind` (LOD007): its objects are unknown, never absent.
    pub fn unchecked_kind(&self, kind: &Kind) -> bool {
        self.unchecked.iter().any(|u| u.kind == kind.kind && crate::kind::group_of(&u.api_version) == kind.group)
    }

    /// Whether two objects are applied together: in one file or directory, or included by one build (a
    /// kustomization, a Flux Kustomization, an Application's path). Two objects that builds include but
    /// no build includes both are alternatives (overlays, clusters); objects no build includes are
    /// taken as applied together.
    pub fn applied_together(&self, a: ObjId, b: ObjId) -> bool {
        let (oa, ob) = (self.obj(a), self.obj(b));
        fn dir(o: &Object) -> Option<&str> {
            o.source.file.as_deref().map(|f| f.rsplit_once('/').map_or("", |(d, _)| d))
        }
        if dir(oa) == dir(ob) {
            return true;
        }
        // Builds: kustomizations and Flux Kustomizations, then Argo CD Applications' paths.
        let apps_of = |o: &Object| -> Vec<usize> {
            let Some((repo, path)) = &o.source.repo_path else { return Vec::new() };
            self.app_dirs.iter().enumerate().filter(|(_, (r, d))| r == repo && under(path, d)).map(|(i, _)| i).collect()
        };
        let (ka, kb) = (&self.build_tops[a.0], &self.build_tops[b.0]);
        let (aa, ab) = (apps_of(oa), apps_of(ob));
        let (none_a, none_b) = (ka.is_empty() && aa.is_empty(), kb.is_empty() && ab.is_empty());
        (none_a && none_b) || ka.iter().any(|t| kb.contains(t)) || aa.iter().any(|t| ab.contains(t))
    }

    /// The absence rule (docs/design.md "Absence"), the one place it is decided: how to report that no
    /// object of `kind` with some name is in the inventory. `None` means silence: the kind could not be
    /// listed (a 403 in a scan: unknown, never absent), or the inventory does not manage that area and the
    /// object may be installed by other means. `Error` on a full dump of a cluster; `Warning` when the
    /// inventory holds other objects of the kind (in `namespace`, for namespaced kinds) and no build that
    /// edgecheck cannot see renders into that namespace.
    pub fn absence(&self, kind: &Kind, namespace: Option<&str>) -> Option<crate::Severity> {
        if self.unchecked_kind(kind) {
            return None;
        }
        if self.complete {
            return Some(crate::Severity::Error);
        }
        let manages = if kind.namespaced() {
            namespace.is_some_and(|ns| {
                !self.renders_unseen(ns) && self.ns_count.get(kind).and_then(|m| m.get(ns)).copied().unwrap_or(0) > 0
            })
        } else {
            !self.ids_of(kind).is_empty()
        };
        manages.then_some(crate::Severity::Warning)
    }

    /// Whether something in the inputs creates objects in `namespace` that the inputs do not hold (a
    /// Helm chart an Application or HelmRelease renders): an object missing there may be one of them.
    pub fn renders_unseen(&self, namespace: &str) -> bool {
        self.unseen.contains(namespace)
    }

    /// The object.
    pub fn obj(&self, id: ObjId) -> &Object {
        &self.objects[id.0]
    }

    /// The view of an object, when it is a `T`.
    pub fn view<T: ViewOf>(&self, id: ObjId) -> Option<&T> {
        T::pick(&self.views[id.0])
    }

    /// Every object of the kinds `T` views, in load order (first occurrences only).
    pub fn each<T: ViewOf>(&self) -> Vec<(ObjId, &Object, &T)> {
        let mut ids: Vec<ObjId> = T::KINDS.iter().flat_map(|k| self.ids(*k).iter().copied()).collect();
        ids.sort_unstable();
        ids.into_iter().filter_map(|id| self.view::<T>(id).map(|v| (id, self.obj(id), v))).collect()
    }

    /// Ids of every object of kind `k`, in load order (first occurrences only).
    pub fn ids(&self, k: K) -> &[ObjId] {
        self.by_kind.get(&k.to_kind()).map_or(&[], Vec::as_slice)
    }

    /// Ids of every object of kind `kind`.
    pub fn ids_of(&self, kind: &Kind) -> &[ObjId] {
        self.by_kind.get(kind).map_or(&[], Vec::as_slice)
    }

    /// Every object (first occurrences), with id.
    pub fn iter(&self) -> impl Iterator<Item = (ObjId, &Object)> {
        self.objects.iter().enumerate().map(|(i, o)| (ObjId(i), o))
    }

    /// Looks an object up by kind, namespace and name (namespace ignored for cluster-scoped kinds).
    pub fn find(&self, k: K, namespace: Option<&str>, name: &str) -> Option<ObjId> {
        self.find_kind(&k.to_kind(), namespace, name)
    }

    /// Looks an object up by dynamic kind.
    pub fn find_kind(&self, kind: &Kind, namespace: Option<&str>, name: &str) -> Option<ObjId> {
        let ns = if kind.namespaced() { namespace } else { None };
        find_in(&self.objects, &self.index, &self.index_collisions, key_hash(kind, ns, name), (kind, ns, name))
    }

    /// Number of objects of kind `k`.
    pub fn count(&self, k: K) -> usize {
        self.ids(k).len()
    }

    /// Number of objects of kind `k` in `namespace`.
    pub fn count_in_namespace(&self, k: K, namespace: &str) -> usize {
        self.ns_count.get(&k.to_kind()).and_then(|m| m.get(namespace)).copied().unwrap_or(0)
    }

    /// Whether the object's namespace was written in its manifest (not defaulted).
    pub fn namespace_explicit(&self, id: ObjId) -> bool {
        self.namespace_explicit[id.0]
    }

    /// Every edge.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// Edges from `id`.
    pub fn edges_from(&self, id: ObjId) -> impl Iterator<Item = &Edge> {
        self.out[id.0].iter().map(|i| &self.edges[*i])
    }

    /// Edges from `id` of one kind.
    pub fn edges_from_kind(&self, id: ObjId, kind: EdgeKind) -> impl Iterator<Item = &Edge> {
        self.edges_from(id).filter(move |e| e.kind == kind)
    }

    /// Edges into `id`.
    pub fn edges_to(&self, id: ObjId) -> impl Iterator<Item = &Edge> {
        self.inn[id.0].iter().map(|i| &self.edges[*i])
    }

    /// Edges into `id` of one kind.
    pub fn edges_to_kind(&self, id: ObjId, kind: EdgeKind) -> impl Iterator<Item = &Edge> {
        self.edges_to(id).filter(move |e| e.kind == kind)
    }

    /// Objects that will create the Secret `namespace/name`: a Certificate with that `secretName`, an
    /// ExternalSecret targeting it, a SealedSecret of that name, an Ingress or Gateway annotated for
    /// cert-manager's shim that names it.
    pub fn secret_producers(&self, namespace: &str, name: &str) -> &[ObjId] {
        self.producers.get(&(namespace.to_string(), name.to_string())).map_or(&[], Vec::as_slice)
    }

    /// The CRD that defines `kind`, when it is in the inventory.
    pub fn crd_for(&self, kind: &Kind) -> Option<ObjId> {
        self.crds.get(kind).copied()
    }

    /// Labels of Namespace `name`, when the Namespace is in the inventory.
    pub fn namespace_labels(&self, name: &str) -> Option<BTreeMap<String, String>> {
        let id = self.find(K::NAMESPACE, None, name)?;
        let mut labels: BTreeMap<String, String> = self
            .obj(id)
            .labels()
            .map(|m| m.iter().filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string()))).collect())
            .unwrap_or_default();
        labels.entry("kubernetes.io/metadata.name".into()).or_insert_with(|| name.to_string());
        Some(labels)
    }

    /// The Application that manages `id` (its source path holds the object's file), if any.
    pub fn owning_application(&self, id: ObjId) -> Option<ObjId> {
        self.edges_to_kind(id, EdgeKind::Manages).map(|e| e.from).next()
    }

    /// Whether a ReferenceGrant in `to_ns` lets objects of `from` (group, kind) in `from_ns` refer to
    /// `to` (group, kind) named `to_name`.
    pub fn reference_granted(
        &self,
        from: (&str, &str),
        from_ns: &str,
        to: (&str, &str),
        to_ns: &str,
        to_name: &str,
    ) -> bool {
        self.each::<views::ReferenceGrant>().into_iter().any(|(_, o, g)| {
            o.namespace.as_deref() == Some(to_ns)
                && g.spec.from.iter().any(|f| f.group == from.0 && f.kind == from.1 && f.namespace == from_ns)
                && g.spec
                    .to
                    .iter()
                    .any(|t| t.group == to.0 && t.kind == to.1 && t.name.as_deref().is_none_or(|n| n == to_name))
        })
    }

    fn index_crds(&mut self) {
        let mut crds = HashMap::new();
        for (id, _, crd) in self.each::<views::Crd>() {
            crds.insert(Kind { group: crd.spec.group.clone(), kind: crd.spec.names.kind.clone() }, id);
        }
        self.crds = crds;
    }

    fn index_producers(&mut self) {
        let mut p: HashMap<(String, String), Vec<ObjId>> = HashMap::new();
        let mut add = |ns: &Option<String>, name: &str, id: ObjId| {
            if let Some(ns) = ns {
                if !name.is_empty() {
                    p.entry((ns.clone(), name.to_string())).or_default().push(id);
                }
            }
        };
        for (id, o, c) in self.each::<views::Certificate>() {
            add(&o.namespace, &c.spec.secret_name, id);
        }
        for (id, o, es) in self.each::<views::ExternalSecret>() {
            add(&o.namespace, es.spec.target.name.as_deref().unwrap_or(&o.name), id);
        }
        for &id in self.ids(K::SEALED_SECRET) {
            let o = self.obj(id);
            let name = o.value.pointer("/spec/template/metadata/name").and_then(|v| v.as_str()).unwrap_or(&o.name);
            add(&o.namespace, name, id);
        }
        for (id, o, ing) in self.each::<views::Ingress>() {
            if CERT_MANAGER_SHIM.iter().any(|a| o.annotation(a).is_some()) {
                for t in &ing.spec.tls {
                    if let Some(s) = &t.secret_name {
                        add(&o.namespace, s, id);
                    }
                }
            }
        }
        for (id, o, gw) in self.each::<views::Gateway>() {
            if CERT_MANAGER_SHIM.iter().any(|a| o.annotation(a).is_some()) {
                for l in &gw.spec.listeners {
                    for r in l.tls.iter().flat_map(|t| &t.certificate_refs) {
                        let ns = r.namespace.clone().or_else(|| o.namespace.clone());
                        add(&ns, &r.name, id);
                    }
                }
            }
        }
        self.producers = p;
    }

    fn push(&mut self, from: ObjId, kind: EdgeKind, target: (K, Option<&str>, &str), field: String) -> usize {
        let (k, ns, name) = target;
        let to = match self.find(k, ns, name) {
            Some(id) => Target::Found(id),
            None => Target::Missing(ObjectRef::new(k, ns, name)),
        };
        self.push_edge(Edge { from, kind, to, field, port: None, section: None, how: "" })
    }

    /// An edge to an object of a kind named at run time (`group`, `kind`), as parameter references do.
    fn push_dynamic(&mut self, from: ObjId, kind: EdgeKind, target: (&str, &str, Option<&str>, &str), field: &str) {
        let (group, k, ns, name) = target;
        let dynamic = Kind { group: group.to_string(), kind: k.to_string() };
        let to = match self.find_kind(&dynamic, ns, name) {
            Some(t) => Target::Found(t),
            None => Target::Missing(ObjectRef {
                api_version: Some(if group.is_empty() { "v1".into() } else { group.to_string() }),
                kind: k.to_string(),
                namespace: ns.map(str::to_string),
                name: name.to_string(),
            }),
        };
        self.push_edge(Edge { from, kind, to, field: field.into(), port: None, section: None, how: "" });
    }

    fn push_edge(&mut self, e: Edge) -> usize {
        let i = self.edges.len();
        self.out[e.from.0].push(i);
        if let Target::Found(t) = e.to {
            self.inn[t.0].push(i);
        }
        self.edges.push(e);
        i
    }

    fn link(&mut self, apps: &[AppDir]) {
        // The views are read while edges are added: lent out of the graph for the time, so that the
        // linkers borrow them instead of cloning every view they read.
        let views = std::mem::take(&mut self.views);
        self.link_ingresses(&views);
        self.link_gateways(&views);
        self.link_routes(&views);
        self.link_traefik(&views);
        self.link_services(&views);
        self.link_cert_manager(&views);
        self.link_external_secrets(&views);
        self.link_events(&views);
        self.views = views;
        self.link_applications(apps);
    }

    /// [`Graph::each`] over views lent out of the graph.
    fn each_in<'s, 'v, T: ViewOf>(&'s self, views: &'v [View]) -> Vec<(ObjId, &'s Object, &'v T)> {
        let mut ids: Vec<ObjId> = T::KINDS.iter().flat_map(|k| self.ids(*k).iter().copied()).collect();
        ids.sort_unstable();
        ids.into_iter().filter_map(|id| T::pick(&views[id.0]).map(|v| (id, self.obj(id), v))).collect()
    }

    fn link_ingresses(&mut self, views: &[View]) {
        let default_class = self
            .each_in::<views::IngressClass>(views)
            .into_iter()
            .find(|(_, o, _)| o.annotation("ingressclass.kubernetes.io/is-default-class") == Some("true"))
            .map(|(_, o, _)| o.name.clone());
        let classes: Vec<_> = self
            .each_in::<views::IngressClass>(views)
            .into_iter()
            .map(|(id, _, c)| (id, c.spec.parameters.clone()))
            .collect();
        for (id, params) in classes {
            if let Some(p) = params {
                let (group, kind) = (p.api_group.unwrap_or_default(), p.kind.unwrap_or_default());
                let ns = p.namespace.as_deref();
                self.push_dynamic(id, EdgeKind::ClassParameters, (&group, &kind, ns, &p.name), "spec.parameters");
            }
        }
        let ings: Vec<_> = self
            .each_in::<views::Ingress>(views)
            .into_iter()
            .map(|(id, o, i)| {
                let (class, field, how) = match crate::ingress::class_name(o, i) {
                    Some(c) => (Some(c.name.to_string()), c.field, c.how),
                    None => (default_class.clone(), "spec", "default"),
                };
                (id, o.namespace.clone(), i, class, field, how)
            })
            .collect();
        for (id, ns, ing, class, field, how) in ings {
            if let Some(c) = class {
                let e = self.push(id, EdgeKind::IngressClass, (K::INGRESS_CLASS, None, &c), field.into());
                self.edges[e].how = how;
            }
            for (path, b, _) in ing.backends() {
                if let Some((svc, port)) = b.service_ref() {
                    let e = self.push(
                        id,
                        EdgeKind::Backend,
                        (K::SERVICE, ns.as_deref(), &svc),
                        format!("{path}.service.name"),
                    );
                    self.edges[e].port = port;
                    if b.service.is_none() {
                        self.edges[e].field = format!("{path}.serviceName");
                    }
                }
            }
            for (i, t) in ing.spec.tls.iter().enumerate() {
                if let Some(s) = &t.secret_name {
                    self.push(
                        id,
                        EdgeKind::TlsSecret,
                        (K::SECRET, ns.as_deref(), s),
                        format!("spec.tls[{i}].secretName"),
                    );
                }
            }
        }
    }

    fn link_gateways(&mut self, views: &[View]) {
        let gws: Vec<_> =
            self.each_in::<views::Gateway>(views).into_iter().map(|(id, o, g)| (id, o.namespace.clone(), g)).collect();
        for (id, ns, gw) in gws {
            if !gw.spec.gateway_class_name.is_empty() {
                self.push(
                    id,
                    EdgeKind::GatewayClass,
                    (K::GATEWAY_CLASS, None, &gw.spec.gateway_class_name),
                    "spec.gatewayClassName".into(),
                );
            }
            for (li, l) in gw.spec.listeners.iter().enumerate() {
                for (ci, r) in l.tls.iter().flat_map(|t| t.certificate_refs.iter()).enumerate() {
                    let is_secret = r.kind.as_deref().unwrap_or("Secret") == "Secret"
                        && r.group.as_deref().unwrap_or("").is_empty();
                    if !is_secret {
                        continue;
                    }
                    let rns = r.namespace.clone().or_else(|| ns.clone());
                    let e = self.push(
                        id,
                        EdgeKind::TlsSecret,
                        (K::SECRET, rns.as_deref(), &r.name),
                        format!("spec.listeners[{li}].tls.certificateRefs[{ci}]"),
                    );
                    self.edges[e].section = Some(l.name.clone());
                }
            }
        }
        let classes: Vec<_> = self
            .each_in::<views::GatewayClass>(views)
            .into_iter()
            .map(|(id, _, c)| (id, c.spec.parameters_ref.clone()))
            .collect();
        for (id, p) in classes {
            if let Some(p) = p {
                let (group, kind) = (p.group.unwrap_or_default(), p.kind.unwrap_or_default());
                let ns = p.namespace.as_deref();
                self.push_dynamic(id, EdgeKind::ClassParameters, (&group, &kind, ns, &p.name), "spec.parametersRef");
            }
        }
        let sets: Vec<_> = self
            .each_in::<views::ListenerSet>(views)
            .into_iter()
            .map(|(id, o, s)| (id, o.namespace.clone(), s.spec.parent_ref.clone()))
            .collect();
        for (id, ns, p) in sets {
            let pns = p.namespace.clone().or(ns);
            self.push(id, EdgeKind::ParentRef, (K::GATEWAY, pns.as_deref(), &p.name), "spec.parentRef".into());
        }
    }

    fn link_routes(&mut self, views: &[View]) {
        let routes: Vec<_> =
            self.each_in::<views::Route>(views).into_iter().map(|(id, o, r)| (id, o.namespace.clone(), r)).collect();
        for (id, ns, r) in routes {
            for (i, p) in r.spec.parent_refs.iter().enumerate() {
                let kind = p.kind.as_deref().unwrap_or("Gateway");
                let group = p.group.as_deref().unwrap_or("gateway.networking.k8s.io");
                let pns = p.namespace.clone().or_else(|| ns.clone());
                let target = if kind == "Gateway" && group == "gateway.networking.k8s.io" {
                    K::GATEWAY
                } else if kind == "ListenerSet" || kind == "XListenerSet" {
                    if group == K::LISTENER_SET.group {
                        K::LISTENER_SET
                    } else {
                        K::LISTENER_SET_STD
                    }
                } else {
                    continue;
                };
                let e = self.push(
                    id,
                    EdgeKind::ParentRef,
                    (target, pns.as_deref(), &p.name),
                    format!("spec.parentRefs[{i}]"),
                );
                self.edges[e].section = p.section_name.clone();
                self.edges[e].port = p.port.map(PortRef::Number);
            }
            for (ri, rule) in r.spec.rules.iter().enumerate() {
                for (bi, b) in rule.backend_refs.iter().enumerate() {
                    let is_service = b.kind.as_deref().unwrap_or("Service") == "Service"
                        && b.group.as_deref().unwrap_or("").is_empty();
                    if !is_service {
                        continue;
                    }
                    let bns = b.namespace.clone().or_else(|| ns.clone());
                    let e = self.push(
                        id,
                        EdgeKind::Backend,
                        (K::SERVICE, bns.as_deref(), &b.name),
                        format!("spec.rules[{ri}].backendRefs[{bi}]"),
                    );
                    self.edges[e].port = b.port.map(PortRef::Number);
                }
            }
        }
    }

    fn link_traefik(&mut self, views: &[View]) {
        let routes: Vec<_> = self
            .each_in::<views::TraefikRoute>(views)
            .into_iter()
            .map(|(id, o, r)| (id, o.namespace.clone(), r))
            .collect();
        for (id, ns, r) in routes {
            for (ri, rule) in r.spec.routes.iter().enumerate() {
                for (si, s) in rule.services.iter().enumerate() {
                    if s.kind.as_deref().unwrap_or("Service") != "Service" {
                        continue;
                    }
                    let sns = s.namespace.clone().or_else(|| ns.clone());
                    let e = self.push(
                        id,
                        EdgeKind::Backend,
                        (K::SERVICE, sns.as_deref(), &s.name),
                        format!("spec.routes[{ri}].services[{si}]"),
                    );
                    self.edges[e].port = s.port.clone();
                }
            }
            if let Some(tls) = &r.spec.tls {
                if let Some(s) = &tls.secret_name {
                    self.push(id, EdgeKind::TlsSecret, (K::SECRET, ns.as_deref(), s), "spec.tls.secretName".into());
                }
                if let Some(opt) = &tls.options {
                    let ons = opt.namespace.clone().or_else(|| ns.clone());
                    let group_new = self.obj(id).kind.group == "traefik.io";
                    let k = if group_new { K::TRAEFIK_TLS_OPTION } else { K::TRAEFIK_OLD_TLS_OPTION };
                    // Either group's TLSOption serves: Traefik v2 and v3 read both.
                    let other = if group_new { K::TRAEFIK_OLD_TLS_OPTION } else { K::TRAEFIK_TLS_OPTION };
                    let k = if self.find(k, ons.as_deref(), &opt.name).is_none()
                        && self.find(other, ons.as_deref(), &opt.name).is_some()
                    {
                        other
                    } else {
                        k
                    };
                    self.push(id, EdgeKind::TlsOption, (k, ons.as_deref(), &opt.name), "spec.tls.options.name".into());
                }
            }
        }
    }

    fn link_services(&mut self, views: &[View]) {
        // Index pod templates by (namespace, label key, label value) so that a selector looks at
        // candidates only.
        let mut by_label: HashMap<(String, String, String), Vec<ObjId>> = HashMap::new();
        for (id, o, w) in self.each_in::<views::Workload>(views) {
            let Some(ns) = &o.namespace else { continue };
            for (k, v) in &w.labels {
                by_label.entry((ns.clone(), k.clone(), v.clone())).or_default().push(id);
            }
        }
        let svcs: Vec<_> = self
            .each_in::<views::Service>(views)
            .into_iter()
            .map(|(id, o, s)| (id, o.namespace.clone(), s.spec.selector.as_ref()))
            .collect();
        for (id, ns, selector) in svcs {
            let (Some(ns), Some(sel)) = (ns, selector) else {
                continue;
            };
            let Some((k0, v0)) = sel.iter().next() else {
                continue;
            };
            let candidates = by_label.get(&(ns.clone(), k0.clone(), v0.clone())).map_or(&[][..], Vec::as_slice);
            for &w in candidates {
                let labels = views::Workload::pick(&views[w.0]).map(|w| &w.labels);
                if labels.is_some_and(|l| sel.iter().all(|(k, v)| l.get(k) == Some(v))) {
                    self.push_edge(Edge {
                        from: id,
                        kind: EdgeKind::Selects,
                        to: Target::Found(w),
                        field: "spec.selector".into(),
                        port: None,
                        section: None,
                        how: "",
                    });
                }
            }
        }
    }

    fn link_cert_manager(&mut self, views: &[View]) {
        let certs: Vec<_> = self
            .each_in::<views::Certificate>(views)
            .into_iter()
            .map(|(id, o, c)| (id, o.namespace.clone(), c))
            .collect();
        for (id, ns, c) in certs {
            if !c.spec.secret_name.is_empty() {
                self.push(
                    id,
                    EdgeKind::CertificateSecret,
                    (K::SECRET, ns.as_deref(), &c.spec.secret_name),
                    "spec.secretName".into(),
                );
            }
            let r = &c.spec.issuer_ref;
            let group = r.group.as_deref().unwrap_or("cert-manager.io");
            if !r.name.is_empty() && group == "cert-manager.io" {
                let k = if r.kind.as_deref() == Some("ClusterIssuer") { K::CLUSTER_ISSUER } else { K::ISSUER };
                self.push(id, EdgeKind::Issuer, (k, ns.as_deref(), &r.name), "spec.issuerRef.name".into());
            }
        }
        let issuers: Vec<_> = self.each_in::<views::Issuer>(views).into_iter().map(|(id, _, i)| (id, i)).collect();
        for (id, i) in issuers {
            for (si, s) in i.spec.acme.iter().flat_map(|a| a.solvers.iter()).enumerate() {
                if let Some(ing) = s.http01.as_ref().and_then(|h| h.ingress.as_ref()) {
                    if let Some(c) = &ing.ingress_class_name {
                        self.push(
                            id,
                            EdgeKind::SolverClass,
                            (K::INGRESS_CLASS, None, c),
                            format!("spec.acme.solvers[{si}].http01.ingress.ingressClassName"),
                        );
                    } else if let Some(c) = &ing.class {
                        let e = self.push(
                            id,
                            EdgeKind::SolverClass,
                            (K::INGRESS_CLASS, None, c),
                            format!("spec.acme.solvers[{si}].http01.ingress.class"),
                        );
                        self.edges[e].how = "annotation";
                    }
                }
            }
        }
    }

    fn link_external_secrets(&mut self, views: &[View]) {
        let ess: Vec<_> = self
            .each_in::<views::ExternalSecret>(views)
            .into_iter()
            .map(|(id, o, e)| (id, o.namespace.clone(), o.name.clone(), e))
            .collect();
        for (id, ns, name, es) in ess {
            let r = &es.spec.secret_store_ref;
            if !r.name.is_empty() {
                let k = if r.kind.as_deref() == Some("ClusterSecretStore") {
                    K::CLUSTER_SECRET_STORE
                } else {
                    K::SECRET_STORE
                };
                self.push(id, EdgeKind::SecretStore, (k, ns.as_deref(), &r.name), "spec.secretStoreRef.name".into());
            }
            let target = es.spec.target.name.clone().unwrap_or(name);
            self.push(id, EdgeKind::SecretTarget, (K::SECRET, ns.as_deref(), &target), "spec.target".into());
        }
    }

    fn link_events(&mut self, views: &[View]) {
        let evs: Vec<_> = self
            .each_in::<views::Event>(views)
            .into_iter()
            .filter_map(|(id, o, e)| e.subject().cloned().map(|s| (id, o.namespace.clone(), s)))
            .collect();
        for (id, ns, s) in evs {
            let api = s.api_version.clone().unwrap_or_default();
            let kind = if api.is_empty() {
                K::KNOWN
                    .iter()
                    .find(|k| k.kind == s.kind)
                    .map_or(Kind { group: String::new(), kind: s.kind.clone() }, |k| k.to_kind())
            } else {
                Kind::from_api_version(&api, &s.kind)
            };
            let sns = s.namespace.clone().or(ns);
            let to = match self.find_kind(&kind, sns.as_deref(), &s.name) {
                Some(t) => Target::Found(t),
                None => Target::Missing(ObjectRef {
                    api_version: s.api_version.clone(),
                    kind: s.kind.clone(),
                    namespace: sns,
                    name: s.name.clone(),
                }),
            };
            self.push_edge(Edge {
                from: id,
                kind: EdgeKind::Involves,
                to,
                field: "involvedObject".into(),
                port: None,
                section: None,
                how: "",
            });
        }
    }

    fn link_applications(&mut self, apps: &[AppDir]) {
        if apps.is_empty() {
            return;
        }
        let mut files: Vec<(usize, &str, ObjId)> = self
            .objects
            .iter()
            .enumerate()
            .filter_map(|(i, o)| o.source.repo_path.as_ref().map(|(r, p)| (*r, p.as_str(), ObjId(i))))
            .collect();
        files.sort_unstable();
        let mut new_edges = Vec::new();
        for a in apps {
            let start = files.partition_point(|(r, p, _)| (*r, *p) < (a.repo, a.dir.as_str()));
            for (r, p, id) in &files[start..] {
                if *r != a.repo || !under(p, &a.dir) {
                    break;
                }
                if *id != a.id {
                    new_edges.push(Edge {
                        from: a.id,
                        kind: EdgeKind::Manages,
                        to: Target::Found(*id),
                        field: a.field.clone(),
                        port: None,
                        section: None,
                        how: "",
                    });
                }
            }
        }
        for e in new_edges {
            self.push_edge(e);
        }
    }
}

/// An Application source resolved to a directory of a linted checkout.
#[derive(Debug, Clone)]
struct AppDir {
    id: ObjId,
    repo: usize,
    dir: String,
    field: String,
    namespace: Option<String>,
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

pub(crate) fn under(path: &str, dir: &str) -> bool {
    dir.is_empty() || (path.starts_with(dir) && path.as_bytes().get(dir.len()) == Some(&b'/'))
}

fn application_dirs(objects: &[Object], views: &[View], repos: &[RepoInfo]) -> Vec<AppDir> {
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
            for (ri, r) in repos.iter().enumerate() {
                if r.remotes.iter().any(|rem| normalize_repo_url(rem) == url) {
                    out.push(AppDir {
                        id: ObjId(i),
                        repo: ri,
                        dir: normalize_rel_path(path),
                        field: format!("{field}.path"),
                        namespace: app.spec.destination.namespace.clone(),
                    });
                }
            }
            let _ = o;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_urls_normalise() {
        let a = normalize_repo_url("https://github.com/acme/platform.git");
        assert_eq!(a, "github.com/acme/platform");
        assert_eq!(normalize_repo_url("git@github.com:acme/platform.git"), a);
        assert_eq!(normalize_repo_url("ssh://git@github.com/acme/platform/"), a);
        assert_eq!(normalize_repo_url("ssh://git@github.com:22/acme/platform"), a);
        assert_ne!(normalize_repo_url("https://github.com/acme/other"), a);
        assert_eq!(normalize_rel_path("./apps/shop/"), "apps/shop");
        assert_eq!(normalize_rel_path("."), "");
        assert!(under("apps/shop/x.yaml", "apps/shop"));
        assert!(!under("apps/shopping/x.yaml", "apps/shop"));
        assert!(under("x.yaml", ""));
    }
}
