//! Building the edges: one function per ecosystem (Ingress, Gateway API, routes, Traefik, Services,
//! cert-manager, External Secrets, Events, Argo CD), and the indexes they need (CRDs, Secret producers).

use super::*;
use crate::value::Str;

/// Operators that write Secrets: (API group, kind, JSON pointer of the Secret's name (`""`: the object's
/// own name), of its namespace when it may differ).
const OPERATOR_SECRETS: &[(&str, &str, &str, Option<&str>)] = &[
    ("secrets.doppler.com", "DopplerSecret", "/spec/managedSecret/name", Some("/spec/managedSecret/namespace")),
    ("onepassword.com", "OnePasswordItem", "", None),
    ("secrets.hashicorp.com", "VaultStaticSecret", "/spec/destination/name", None),
    ("secrets.hashicorp.com", "VaultDynamicSecret", "/spec/destination/name", None),
    ("secrets.hashicorp.com", "VaultPKISecret", "/spec/destination/name", None),
    ("secrets.hashicorp.com", "HCPVaultSecretsApp", "/spec/destination/name", None),
    (
        "secrets.infisical.com",
        "InfisicalSecret",
        "/spec/managedSecretReference/secretName",
        Some("/spec/managedSecretReference/secretNamespace"),
    ),
    ("k8s.bitwarden.com", "BitwardenSecret", "/spec/secretName", None),
    ("kubernetes-client.io", "ExternalSecret", "", None),
];

/// Operators that create Services for their objects: (API group, kind, Service names with `{}` for the
/// object's name), as each operator documents them.
const OPERATOR_SERVICES: &[(&str, &str, &[&str])] = &[
    ("operator.victoriametrics.com", "VMAgent", &["vmagent-{}"]),
    ("operator.victoriametrics.com", "VMSingle", &["vmsingle-{}"]),
    ("operator.victoriametrics.com", "VMAlert", &["vmalert-{}"]),
    ("operator.victoriametrics.com", "VMAlertmanager", &["vmalertmanager-{}"]),
    ("operator.victoriametrics.com", "VMAuth", &["vmauth-{}"]),
    ("operator.victoriametrics.com", "VMCluster", &["vmselect-{}", "vminsert-{}", "vmstorage-{}"]),
    ("operator.victoriametrics.com", "VLSingle", &["vlsingle-{}"]),
    ("monitoring.coreos.com", "Prometheus", &["prometheus-operated"]),
    ("monitoring.coreos.com", "Alertmanager", &["alertmanager-operated"]),
    ("monitoring.coreos.com", "ThanosRuler", &["thanos-ruler-operated"]),
    ("postgresql.cnpg.io", "Cluster", &["{}-rw", "{}-ro", "{}-r"]),
    ("postgres-operator.crunchydata.com", "PostgresCluster", &["{}-primary", "{}-replicas", "{}-pgbouncer", "{}-ha"]),
    ("acid.zalan.do", "postgresql", &["{}", "{}-repl"]),
    ("kafka.strimzi.io", "Kafka", &["{}-kafka-bootstrap", "{}-kafka-brokers"]),
    ("kafka.strimzi.io", "KafkaConnect", &["{}-connect-api"]),
    ("kafka.strimzi.io", "KafkaBridge", &["{}-bridge-service"]),
    ("elasticsearch.k8s.elastic.co", "Elasticsearch", &["{}-es-http", "{}-es-transport"]),
    ("kibana.k8s.elastic.co", "Kibana", &["{}-kb-http"]),
    ("apm.k8s.elastic.co", "ApmServer", &["{}-apm-http"]),
    ("enterprisesearch.k8s.elastic.co", "EnterpriseSearch", &["{}-ent-http"]),
    ("grafana.integreatly.org", "Grafana", &["{}-service"]),
    ("rabbitmq.com", "RabbitmqCluster", &["{}", "{}-nodes"]),
    ("k8s.mariadb.com", "MariaDB", &["{}", "{}-primary", "{}-internal"]),
    ("pxc.percona.com", "PerconaXtraDBCluster", &["{}-haproxy", "{}-haproxy-replicas", "{}-pxc", "{}-proxysql"]),
    ("mongodbcommunity.mongodb.com", "MongoDBCommunity", &["{}-svc"]),
    ("clickhouse.altinity.com", "ClickHouseInstallation", &["clickhouse-{}"]),
    ("redis.redis.opstreelabs.in", "Redis", &["{}", "{}-headless", "{}-additional"]),
    ("redis.redis.opstreelabs.in", "RedisReplication", &["{}", "{}-headless", "{}-additional"]),
    ("redis.redis.opstreelabs.in", "RedisCluster", &["{}-leader", "{}-follower"]),
    ("dragonflydb.io", "Dragonfly", &["{}"]),
    ("minio.min.io", "Tenant", &["minio", "{}-console", "{}-hl"]),
    ("k8s.keycloak.org", "Keycloak", &["{}-service", "{}-discovery"]),
    (
        "opentelemetry.io",
        "OpenTelemetryCollector",
        &["{}-collector", "{}-collector-headless", "{}-collector-monitoring"],
    ),
    ("jaegertracing.io", "Jaeger", &["{}-query", "{}-collector", "{}-collector-headless", "{}-agent"]),
    (
        "argoproj.io",
        "ArgoCD",
        &["{}-server", "{}-repo-server", "{}-redis", "{}-metrics", "{}-server-metrics", "{}-dex-server"],
    ),
];

impl Graph {
    pub(super) fn index_crds(&mut self) {
        let mut crds = HashMap::new();
        for (id, _, crd) in self.each::<views::Crd>() {
            crds.insert(Kind { group: crd.spec.group.clone(), kind: crd.spec.names.kind.clone() }, id);
        }
        self.crds = crds;
    }

    pub(super) fn index_producers(&mut self) {
        let mut p: HashMap<(Str, Str), Vec<ObjId>> = HashMap::new();
        let mut add = |ns: Option<&str>, name: &str, id: ObjId| {
            if let Some(ns) = ns {
                if !name.is_empty() {
                    p.entry((ns.into(), name.into())).or_default().push(id);
                }
            }
        };
        for (id, o, c) in self.each::<views::Certificate>() {
            add(o.namespace.as_deref(), &c.spec.secret_name, id);
        }
        for (id, o, es) in self.each::<views::ExternalSecret>() {
            add(o.namespace.as_deref(), es.spec.target.name.as_deref().unwrap_or(&o.name), id);
        }
        for &id in self.ids(K::SEALED_SECRET) {
            let o = self.obj(id);
            let name = o.value.pointer("/spec/template/metadata/name").and_then(|v| v.as_str()).unwrap_or(&o.name);
            add(o.namespace.as_deref(), name, id);
        }
        for (id, o, ing) in self.each::<views::Ingress>() {
            if CERT_MANAGER_SHIM.iter().any(|a| o.annotation(a).is_some()) {
                for t in &ing.spec.tls {
                    if let Some(s) = &t.secret_name {
                        add(o.namespace.as_deref(), s, id);
                    }
                }
            }
        }
        for (id, o, gw) in self.each::<views::Gateway>() {
            if CERT_MANAGER_SHIM.iter().any(|a| o.annotation(a).is_some()) {
                for l in &gw.spec.listeners {
                    for r in l.tls.iter().flat_map(|t| &t.certificate_refs) {
                        let ns = r
                            .namespace
                            .as_deref()
                            .map(str::to_string)
                            .or_else(|| o.namespace.as_deref().map(str::to_string));
                        add(ns.as_deref(), &r.name, id);
                    }
                }
            }
        }
        // Secrets that secret operators write.
        for (i, o) in self.objects.iter().enumerate() {
            for (g, k, name_at, ns_at) in OPERATOR_SECRETS {
                if o.kind.group == *g && o.kind.kind == *k {
                    let name = if name_at.is_empty() {
                        Some(o.name.as_str())
                    } else {
                        o.value.pointer(name_at).and_then(|v| v.as_str())
                    };
                    let ns = ns_at.and_then(|at| o.value.pointer(at)).and_then(|v| v.as_str()).map(str::to_string);
                    if let Some(name) = name {
                        add(ns.as_deref().or(o.namespace.as_deref()), name, ObjId(i));
                    }
                }
            }
        }
        self.producers = p;
        let mut services: HashMap<(Str, Str), Vec<ObjId>> = HashMap::new();
        for (i, o) in self.objects.iter().enumerate() {
            let Some(ns) = &o.namespace else { continue };
            for (g, k, patterns) in OPERATOR_SERVICES {
                if o.kind.group == *g && o.kind.kind == *k {
                    for pat in *patterns {
                        services
                            .entry((ns.as_str().into(), pat.replace("{}", &o.name).into()))
                            .or_default()
                            .push(ObjId(i));
                    }
                }
            }
        }
        self.service_producers = services;
    }

    pub(super) fn push(
        &mut self,
        from: ObjId,
        kind: EdgeKind,
        target: (K, Option<&str>, &str),
        field: String,
    ) -> Option<usize> {
        let (k, ns, name) = target;
        // A placeholder is not a name yet: no edge, so nothing is missing and nothing is resolved by it.
        if unresolved_ref(ns, name) {
            return None;
        }
        let to = match self.find(k, ns, name) {
            Some(id) => Target::Found(id),
            None => Target::Missing(self.missing(ObjectRef::new(k, ns, name))),
        };
        Some(self.push_edge(Edge::new(from, kind, to, field)))
    }

    /// An edge to an object of a kind named at run time (`group`, `kind`), as parameter references do.
    pub(super) fn push_dynamic(
        &mut self,
        from: ObjId,
        kind: EdgeKind,
        target: (&str, &str, Option<&str>, &str),
        field: &str,
    ) {
        let (group, k, ns, name) = target;
        if unresolved_ref(ns, name) {
            return;
        }
        let dynamic = Kind { group: group.into(), kind: k.into() };
        let to = match self.find_kind(&dynamic, ns, name) {
            Some(t) => Target::Found(t),
            None => Target::Missing(self.missing(ObjectRef {
                api_version: Some(if group.is_empty() { "v1".into() } else { group.to_string() }),
                kind: k.to_string(),
                namespace: ns.map(str::to_string),
                name: name.to_string(),
            })),
        };
        self.push_edge(Edge::new(from, kind, to, field));
    }

    /// The shared copy of a reference that finds nothing.
    fn missing(&mut self, r: ObjectRef) -> std::sync::Arc<ObjectRef> {
        if let Some(shared) = self.missing_refs.get(&r) {
            return shared.clone();
        }
        let shared = std::sync::Arc::new(r);
        self.missing_refs.insert(shared.clone());
        shared
    }

    pub(super) fn push_edge(&mut self, e: Edge) -> usize {
        // Indexed by object once all are linked (`link`).
        self.edges.push(e);
        self.edges.len() - 1
    }

    pub(super) fn link(&mut self, apps: &[AppDir]) {
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
        // Edges into each object grouped by kind, in the order they were added within a kind, so that
        // `edges_to_kind` finds its run by binary search: a Gateway or IngressClass that every route names
        // has as many edges in as there are routes, and the diagnosis asks each node for its Application.
        let n = self.objects.len();
        let out: Vec<(u32, u32)> = self.edges.iter().enumerate().map(|(i, e)| (id32(e.from.0), id32(i))).collect();
        self.out = Adjacency::build(n, &out);
        drop(out);
        let mut by_kind: Vec<u32> = (0..id32(self.edges.len())).collect();
        by_kind.sort_by_key(|&i| self.edges[i as usize].kind);
        let inn: Vec<(u32, u32)> =
            by_kind.into_iter().filter_map(|i| self.edges[i as usize].to.found().map(|t| (id32(t.0), i))).collect();
        self.inn = Adjacency::build(n, &inn);
        // The graph is held for the whole run: the room the vector grew into is given back.
        self.edges.shrink_to_fit();
        self.missing_refs = Default::default();
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
                    None => (default_class.as_deref().map(str::to_string), "spec", "default"),
                };
                (id, o.namespace.as_deref().map(str::to_string), i, class, field, how)
            })
            .collect();
        for (id, ns, ing, class, field, how) in ings {
            if let Some(c) = class {
                let e = self.push(id, EdgeKind::IngressClass, (K::INGRESS_CLASS, None, &c), field.into());
                if let Some(x) = e.map(|e| &mut self.edges[e]) {
                    x.set_how(how);
                }
            }
            for (path, b, _) in ing.backends() {
                if let Some((svc, port)) = b.service_ref() {
                    let e = self.push(
                        id,
                        EdgeKind::Backend,
                        (K::SERVICE, ns.as_deref(), &svc),
                        format!("{path}.service.name"),
                    );
                    if let Some(x) = e.map(|e| &mut self.edges[e]) {
                        x.set_port(port);
                    }
                    if b.service.is_none() {
                        if let Some(x) = e.map(|e| &mut self.edges[e]) {
                            x.field = format!("{path}.serviceName").into();
                        }
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
        let gws: Vec<_> = self
            .each_in::<views::Gateway>(views)
            .into_iter()
            .map(|(id, o, g)| (id, o.namespace.as_deref().map(str::to_string), g))
            .collect();
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
                    let rns = r.namespace.as_deref().map(str::to_string).or_else(|| ns.clone());
                    let e = self.push(
                        id,
                        EdgeKind::TlsSecret,
                        (K::SECRET, rns.as_deref(), &r.name),
                        format!("spec.listeners[{li}].tls.certificateRefs[{ci}]"),
                    );
                    if let Some(x) = e.map(|e| &mut self.edges[e]) {
                        x.set_section(Some(l.name.as_str().into()));
                    }
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
            .map(|(id, o, s)| (id, o.namespace.as_deref().map(str::to_string), s.spec.parent_ref.clone()))
            .collect();
        for (id, ns, p) in sets {
            let pns = p.namespace.as_deref().map(str::to_string).or(ns);
            self.push(id, EdgeKind::ParentRef, (K::GATEWAY, pns.as_deref(), &p.name), "spec.parentRef".into());
        }
    }

    fn link_routes(&mut self, views: &[View]) {
        let routes: Vec<_> = self
            .each_in::<views::Route>(views)
            .into_iter()
            .map(|(id, o, r)| (id, o.namespace.as_deref().map(str::to_string), r))
            .collect();
        for (id, ns, r) in routes {
            for (i, p) in r.spec.parent_refs.iter().enumerate() {
                let kind = p.kind.as_deref().unwrap_or("Gateway");
                let group = p.group.as_deref().unwrap_or("gateway.networking.k8s.io");
                let pns = p.namespace.as_deref().map(str::to_string).or_else(|| ns.clone());
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
                if let Some(x) = e.map(|e| &mut self.edges[e]) {
                    x.set_section(p.section_name.as_deref().map(Into::into));
                }
                if let Some(x) = e.map(|e| &mut self.edges[e]) {
                    x.set_port(p.port.map(PortRef::Number));
                }
            }
            for (ri, rule) in r.spec.rules.iter().enumerate() {
                for (bi, b) in rule.backend_refs.iter().enumerate() {
                    let is_service = b.kind.as_deref().unwrap_or("Service") == "Service"
                        && b.group.as_deref().unwrap_or("").is_empty();
                    if !is_service {
                        continue;
                    }
                    let bns = b.namespace.as_deref().map(str::to_string).or_else(|| ns.clone());
                    let e = self.push(
                        id,
                        EdgeKind::Backend,
                        (K::SERVICE, bns.as_deref(), &b.name),
                        format!("spec.rules[{ri}].backendRefs[{bi}]"),
                    );
                    if let Some(x) = e.map(|e| &mut self.edges[e]) {
                        x.set_port(b.port.map(PortRef::Number));
                    }
                }
            }
        }
    }

    fn link_traefik(&mut self, views: &[View]) {
        let routes: Vec<_> = self
            .each_in::<views::TraefikRoute>(views)
            .into_iter()
            .map(|(id, o, r)| (id, o.namespace.as_deref().map(str::to_string), r))
            .collect();
        for (id, ns, r) in routes {
            for (ri, rule) in r.spec.routes.iter().enumerate() {
                for (si, s) in rule.services.iter().enumerate() {
                    if s.kind.as_deref().unwrap_or("Service") != "Service" {
                        continue;
                    }
                    let sns = s.namespace.as_deref().map(str::to_string).or_else(|| ns.clone());
                    let e = self.push(
                        id,
                        EdgeKind::Backend,
                        (K::SERVICE, sns.as_deref(), &s.name),
                        format!("spec.routes[{ri}].services[{si}]"),
                    );
                    if let Some(x) = e.map(|e| &mut self.edges[e]) {
                        x.set_port(s.port.clone());
                    }
                }
            }
            if let Some(tls) = &r.spec.tls {
                if let Some(s) = &tls.secret_name {
                    self.push(id, EdgeKind::TlsSecret, (K::SECRET, ns.as_deref(), s), "spec.tls.secretName".into());
                }
                if let Some(opt) = &tls.options {
                    let ons = opt.namespace.as_deref().map(str::to_string).or_else(|| ns.clone());
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
                by_label.entry((ns.to_string(), k.to_string(), v.to_string())).or_default().push(id);
            }
        }
        let svcs: Vec<_> = self
            .each_in::<views::Service>(views)
            .into_iter()
            .map(|(id, o, s)| (id, o.namespace.as_deref().map(str::to_string), s.spec.selector.as_ref()))
            .collect();
        for (id, ns, selector) in svcs {
            let (Some(ns), Some(sel)) = (ns, selector) else {
                continue;
            };
            let Some((k0, v0)) = sel.iter().next() else {
                continue;
            };
            let candidates = by_label.get(&(ns.clone(), k0.to_string(), v0.to_string())).map_or(&[][..], Vec::as_slice);
            for &w in candidates {
                let labels = views::Workload::pick(&views[w.0]).map(|w| &w.labels);
                if labels.is_some_and(|l| l.contains_all(sel)) {
                    self.push_edge(Edge::new(id, EdgeKind::Selects, Target::Found(w), "spec.selector"));
                }
            }
        }
    }

    fn link_cert_manager(&mut self, views: &[View]) {
        let certs: Vec<_> = self
            .each_in::<views::Certificate>(views)
            .into_iter()
            .map(|(id, o, c)| (id, o.namespace.as_deref().map(str::to_string), c))
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
                        if let Some(x) = e.map(|e| &mut self.edges[e]) {
                            x.set_how("annotation");
                        }
                    }
                }
            }
        }
    }

    fn link_external_secrets(&mut self, views: &[View]) {
        let ess: Vec<_> = self
            .each_in::<views::ExternalSecret>(views)
            .into_iter()
            .map(|(id, o, e)| (id, o.namespace.as_deref().map(str::to_string), o.name.clone(), e))
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
            let target = es.spec.target.name.as_deref().map_or(name.to_string(), str::to_string);
            self.push(id, EdgeKind::SecretTarget, (K::SECRET, ns.as_deref(), &target), "spec.target".into());
        }
    }

    fn link_events(&mut self, views: &[View]) {
        let evs: Vec<_> = self
            .each_in::<views::Event>(views)
            .into_iter()
            .filter_map(|(id, o, e)| e.subject().cloned().map(|s| (id, o.namespace.as_deref().map(str::to_string), s)))
            .collect();
        for (id, ns, s) in evs {
            let api = s.api_version.clone().unwrap_or_default();
            let kind = if api.is_empty() {
                K::KNOWN
                    .iter()
                    .find(|k| k.kind == s.kind)
                    .map_or(Kind { group: "".into(), kind: s.kind.as_str().into() }, |k| k.to_kind())
            } else {
                Kind::from_api_version(&api, &s.kind)
            };
            let sns = s.namespace.as_deref().map(str::to_string).or(ns);
            let to = match self.find_kind(&kind, sns.as_deref(), &s.name) {
                Some(t) => Target::Found(t),
                None => Target::Missing(self.missing(ObjectRef {
                    api_version: s.api_version.as_deref().map(str::to_string),
                    kind: s.kind.to_string(),
                    namespace: sns,
                    name: s.name.to_string(),
                })),
            };
            self.push_edge(Edge::new(id, EdgeKind::Involves, to, "involvedObject"));
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
            .filter_map(|(i, o)| o.source.repo_path().map(|(r, p)| (r, p, ObjId(i))))
            .collect();
        files.sort_unstable();
        // (Application, object) pairs: not edges, which are 64 bytes each and an Application of a large
        // repository manages thousands of objects (#17).
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        // Objects an Application's build rendered: managed by it (their files are the chart's templates or the
        // kustomize resources, wherever those are).
        let by_build: std::collections::HashMap<String, ObjId> = apps
            .iter()
            .map(|a| {
                let o = &self.objects[a.id.0];
                (format!("Application {}/{}", o.namespace.as_deref().unwrap_or(""), o.name), a.id)
            })
            .collect();
        for (i, o) in self.objects.iter().enumerate() {
            let Some(b) = o.source.build() else { continue };
            let label = b.split(" (").next().unwrap_or(b);
            if let Some(&app) = by_build.get(label) {
                if app != ObjId(i) && o.source.repo_path().is_none() {
                    pairs.push((id32(app.0), id32(i)));
                }
            }
        }
        for a in apps {
            // `apps/shop-old/x` sorts between `apps/shop` and `apps/shop/x` (`-` < `/`): start at the
            // directory's own prefix, and stop when it no longer matches.
            let prefix = if a.dir.is_empty() { String::new() } else { format!("{}/", a.dir) };
            let start = files.partition_point(|(r, p, _)| (*r, *p) < (a.repo, prefix.as_str()));
            for (r, p, id) in &files[start..] {
                if *r != a.repo || !p.starts_with(prefix.as_str()) {
                    break;
                }
                debug_assert!(under(p, &a.dir));
                if *id != a.id {
                    pairs.push((id32(a.id.0), id32(id.0)));
                }
            }
        }
        self.managed = Adjacency::build(self.objects.len(), &pairs);
        let owners: Vec<(u32, u32)> = pairs.iter().map(|&(app, o)| (o, app)).collect();
        drop(pairs);
        self.managers = Adjacency::build(self.objects.len(), &owners);
    }
}

/// Whether a reference's name or namespace is a placeholder (docs/design.md, "Placeholders").
fn unresolved_ref(ns: Option<&str>, name: &str) -> bool {
    crate::placeholder::unresolved(name) || ns.is_some_and(crate::placeholder::unresolved)
}

/// An object's or edge's index in an adjacency (`u32`: a lint of four billion objects is not run).
fn id32(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^32 objects and edges")
}
