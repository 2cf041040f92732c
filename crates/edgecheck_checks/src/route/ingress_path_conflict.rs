use std::collections::{BTreeMap, HashSet};

use edgecheck_core::graph::{EdgeKind, Target};
use edgecheck_core::hostname::normalize;
use edgecheck_core::views::Ingress;
use edgecheck_core::{Findings, Layer, ObjId, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// Two Ingresses of the same class (the same IngressClass by `ingressClassName`, annotation or
    /// default) that claim the same host, path and `pathType`. The second one loaded is reported, with
    /// the first as related. Rules without a host count as host `*`.
    ///
    /// ## Why it matters
    /// Only one backend can serve the request, and which one is the controller's tie-break:
    /// ingress-nginx keeps the oldest Ingress, Traefik merges by router priority, the cloud ALBs by
    /// rule order. A deploy of one app silently takes traffic from another, or a renamed copy left
    /// behind keeps serving old pods. A warning: one of the two does work.
    ///
    /// ## Example
    /// Ingress `shop/web` and Ingress `shop/web-canary` both route `shop.example.com` `/` (Prefix),
    /// with no canary annotation.
    ///
    /// ## How to fix
    /// Delete or rename the stale Ingress, give one a different path or host, or use the controller's
    /// canary mechanism (`nginx.ingress.kubernetes.io/canary: "true"`) when the overlap is intended.
    pub(crate) struct IngressPathConflict {
        code: "RTE036", name: "ingress-path-conflict", layer: Layer::Route, severity: Severity::Warning,
    }
}

impl IngressPathConflict {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let mut seen: BTreeMap<(String, String, String, String), ObjId> = BTreeMap::new();
        for (id, o, ing) in cx.graph.each::<Ingress>() {
            if o.annotation("nginx.ingress.kubernetes.io/canary").is_some_and(|v| v.trim() == "true") {
                continue;
            }
            let class = cx
                .graph
                .edges_from_kind(id, EdgeKind::IngressClass)
                .next()
                .map(|e| match &e.to {
                    Target::Found(c) => cx.graph.obj(*c).name.to_string(),
                    Target::Missing(r) => r.name.clone(),
                })
                .unwrap_or_default();
            // The keys this Ingress routes, each reported once: a set, as one Ingress may hold 100k rules.
            let mut mine: HashSet<(String, String, String, String)> = HashSet::new();
            for (i, r) in ing.spec.rules.iter().enumerate() {
                let host = r.host.as_deref().map_or_else(|| "*".to_string(), normalize);
                for (j, p) in r.http.iter().flat_map(|h| h.paths.iter()).enumerate() {
                    let path = p.path.as_deref().filter(|p| !p.is_empty()).unwrap_or("/").to_string();
                    let pt = p.path_type.as_deref().unwrap_or("ImplementationSpecific").to_string();
                    let key = (class.clone(), host.clone(), path.clone(), pt.clone());
                    if !mine.insert(key.clone()) {
                        continue;
                    }
                    match seen.get(&key) {
                        Some(first) if *first != id => {
                            let f = cx.graph.obj(*first);
                            let class_text =
                                if class.is_empty() { "no class".to_string() } else { format!("class `{class}`") };
                            out.at(o, &format!("spec.rules[{i}].http.paths[{j}].path"))
                                .message(format!(
                                    "{} and {} ({class_text}) both route {host} {path} ({pt}); the controller's tie-break decides which backend serves it",
                                    o.to_ref(),
                                    f.to_ref()
                                ))
                                .evidence(format!("{}: host {host}, path {path}, pathType {pt}", o.to_ref()))
                                .evidence(format!(
                                    "{} at {}:{}",
                                    f.to_ref(),
                                    f.source.file().unwrap_or("-"),
                                    f.source.line().unwrap_or(0)
                                ))
                                .related(f.to_ref())
                                .fix("remove the stale Ingress or give one of them another host or path")
                                .emit();
                        }
                        Some(_) => {}
                        None => {
                            seen.insert(key, id);
                        }
                    }
                }
            }
        }
    }
}
