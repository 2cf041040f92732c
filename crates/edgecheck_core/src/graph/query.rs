//! What checks ask the graph: objects and views by kind and name, edges from and to an object, and the
//! shared rules that read the whole inventory (absence, ReferenceGrants, Secret producers, owners).

use super::*;
use crate::value::Str;

impl Graph {
    /// Whether a live scan could not list `kind` (LOD007): its objects are unknown, never absent.
    pub fn unchecked_kind(&self, kind: &Kind) -> bool {
        self.unchecked.iter().any(|u| u.kind == kind.kind && crate::kind::group_of(&u.api_version) == kind.group)
    }

    /// Whether two objects are applied together: in one file or directory (unless a kustomization there
    /// leaves one out), or included by one build (a kustomization, a Flux Kustomization, an Application's
    /// path). Copies that builds include but no build includes both are alternatives (overlays,
    /// clusters), and so are copies in sibling `clusters/<name>` directories; a file no build includes is
    /// its own unit, applied with its directory only.
    pub fn applied_together(&self, a: ObjId, b: ObjId) -> bool {
        let (oa, ob) = (self.obj(a), self.obj(b));
        if self.unlisted[a.0] || self.unlisted[b.0] {
            return false;
        }
        // Rendered objects: applied together when one build rendered both; copies that separate builds
        // render are alternatives (overlays, clusters), and a file object beside a rendered one is loose.
        match (oa.source.build(), ob.source.build()) {
            (Some(x), Some(y)) => return x == y,
            (None, None) => {}
            _ => return false,
        }
        fn dir(o: &Object) -> Option<&str> {
            o.source.file().map(|f| f.rsplit_once('/').map_or("", |(d, _)| d))
        }
        if sibling_clusters(dir(oa).unwrap_or(""), dir(ob).unwrap_or("")) {
            return false;
        }
        if dir(oa) == dir(ob) {
            return true;
        }
        // Builds: kustomizations and Flux Kustomizations, then Argo CD Applications' paths.
        let apps_of = |o: &Object| -> Vec<usize> {
            let Some((repo, path)) = o.source.repo_path() else { return Vec::new() };
            self.app_dirs
                .iter()
                .enumerate()
                .filter(|(_, (r, d))| *r == repo && under(path, d))
                .map(|(i, _)| i)
                .collect()
        };
        let (ka, kb) = (self.build_tops.of(a.0), self.build_tops.of(b.0));
        let (aa, ab) = (apps_of(oa), apps_of(ob));
        ka.iter().any(|t| kb.contains(t)) || aa.iter().any(|t| ab.contains(t))
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
            namespace.is_some_and(|ns| !self.renders_unseen(ns) && self.in_namespace(kind, ns) > 0)
        } else {
            !self.ids_of(kind).is_empty()
        };
        manages.then_some(crate::Severity::Warning)
    }

    /// The absence rule for an object the controller that needs it would read, when the inventory holds
    /// that controller's own objects (`controller_held`: the GatewayClass of the Gateway whose listener
    /// names a certificate Secret): the inventory manages that area whether or not it holds other
    /// objects of `kind` there, so a missing one is a `Warning` (unless a build edgecheck cannot see
    /// renders into the namespace); otherwise as [`Graph::absence`]. What something in the inventory
    /// creates (`Graph::secret_producers`) is the caller's to rule out first.
    pub fn absence_managed(
        &self,
        kind: &Kind,
        namespace: Option<&str>,
        controller_held: bool,
    ) -> Option<crate::Severity> {
        let unseen = namespace.is_some_and(|ns| self.renders_unseen(ns));
        match self.absence(kind, namespace) {
            None if controller_held && !unseen && !self.unchecked_kind(kind) => Some(crate::Severity::Warning),
            other => other,
        }
    }

    /// Whether something in the inputs creates objects in `namespace` that the inputs do not hold (a
    /// Helm chart an Application or HelmRelease renders): an object missing there may be one of them.
    pub fn renders_unseen(&self, namespace: &str) -> bool {
        self.unseen_anywhere || self.unseen.contains(namespace)
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
        self.in_namespace(&k.to_kind(), namespace) as usize
    }

    fn in_namespace(&self, kind: &Kind, namespace: &str) -> u32 {
        let (Some(n), Some(counts)) = (self.namespaces.get(namespace), self.ns_count.get(kind)) else { return 0 };
        counts.binary_search_by_key(n, |&(m, _)| m).map_or(0, |i| counts[i].1)
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
        self.out.of(id.0).iter().map(|&i| &self.edges[i as usize])
    }

    /// Edges from `id` of one kind.
    pub fn edges_from_kind(&self, id: ObjId, kind: EdgeKind) -> impl Iterator<Item = &Edge> {
        self.edges_from(id).filter(move |e| e.kind == kind)
    }

    /// Edges into `id`, grouped by kind (in the order they were added within a kind).
    pub fn edges_to(&self, id: ObjId) -> impl Iterator<Item = &Edge> {
        self.inn.of(id.0).iter().map(|&i| &self.edges[i as usize])
    }

    /// Edges into `id` of one kind: one run of [`Graph::edges_to`], found by binary search.
    pub fn edges_to_kind(&self, id: ObjId, kind: EdgeKind) -> impl Iterator<Item = &Edge> {
        let inn = self.inn.of(id.0);
        let start = inn.partition_point(|&i| self.edges[i as usize].kind < kind);
        inn[start..].iter().map(|&i| &self.edges[i as usize]).take_while(move |e| e.kind == kind)
    }

    /// Objects that will create the Secret `namespace/name`: a Certificate with that `secretName`, an
    /// ExternalSecret targeting it, a SealedSecret of that name, an Ingress or Gateway annotated for
    /// cert-manager's shim that names it, a secret operator's object (DopplerSecret `managedSecret`,
    /// OnePasswordItem, Vault `destination`, InfisicalSecret, BitwardenSecret).
    pub fn secret_producers(&self, namespace: &str, name: &str) -> &[ObjId] {
        self.producers.get(&(Str::from(namespace), Str::from(name))).map_or(&[], Vec::as_slice)
    }

    /// Operator objects that will create the Service `namespace/name` (a VMAgent its `vmagent-<name>`, a
    /// CloudNativePG Cluster its `<name>-rw`, ...: the table in `graph/link.rs`).
    pub fn service_producers(&self, namespace: &str, name: &str) -> &[ObjId] {
        self.service_producers.get(&(Str::from(namespace), Str::from(name))).map_or(&[], Vec::as_slice)
    }

    /// The CRD that defines `kind`, when it is in the inventory.
    pub fn crd_for(&self, kind: &Kind) -> Option<ObjId> {
        self.crds.get(kind).copied()
    }

    /// Labels of Namespace `name`, when the Namespace is in the inventory.
    pub fn namespace_labels(&self, name: &str) -> Option<crate::labels::Labels> {
        let id = self.find(K::NAMESPACE, None, name)?;
        let mut labels: crate::labels::Labels = self
            .obj(id)
            .labels()
            .map(|m| m.iter().filter_map(|(k, v)| v.as_str().map(|v| (k, v))).collect())
            .unwrap_or_default();
        if !labels.contains_key("kubernetes.io/metadata.name") {
            labels.insert("kubernetes.io/metadata.name", name);
        }
        Some(labels)
    }

    /// The Application that manages `id` (its source path holds the object's file, or its build rendered
    /// the object), if any: the first found when several do.
    pub fn owning_application(&self, id: ObjId) -> Option<ObjId> {
        self.managers.of(id.0).first().map(|&a| ObjId(a as usize))
    }

    /// The objects the Application `app` manages: those loaded from its source path in the linted checkout
    /// and those its build rendered (never the Application itself).
    pub fn managed(&self, app: ObjId) -> impl Iterator<Item = ObjId> + '_ {
        self.managed.of(app.0).iter().map(|&o| ObjId(o as usize))
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
        // Only the grants of `to_ns` (looking at every grant for every reference was O(routes × grants)).
        let grants = self.grants.get(to_ns).map_or(&[][..], Vec::as_slice);
        grants.iter().filter_map(|&id| self.view::<views::ReferenceGrant>(id)).any(|g| {
            g.spec.from.iter().any(|f| f.group == from.0 && f.kind == from.1 && f.namespace == from_ns)
                && g.spec
                    .to
                    .iter()
                    .any(|t| t.group == to.0 && t.kind == to.1 && t.name.as_deref().is_none_or(|n| n == to_name))
        })
    }
}

/// Whether two directories lie in different `clusters/<name>` directories below the same parent: one
/// cluster's copy of an object is the other's alternative.
fn sibling_clusters(a: &str, b: &str) -> bool {
    fn cluster_of(d: &str) -> Option<(&str, &str)> {
        let i = d.match_indices("clusters/").find(|(i, _)| *i == 0 || d.as_bytes()[i - 1] == b'/')?.0;
        let rest = &d[i + "clusters/".len()..];
        Some((&d[..i], rest.split('/').next().unwrap_or(rest)))
    }
    match (cluster_of(a), cluster_of(b)) {
        (Some((pa, ca)), Some((pb, cb))) => pa == pb && ca != cb,
        _ => false,
    }
}
