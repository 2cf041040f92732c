use edgecheck_core::ValueRef;
use edgecheck_core::{Findings, Kind, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Flux `Kustomization` or `HelmRelease` whose `spec.dependsOn` names an object of its own kind (the
    /// namespace defaults to its own) that is not in the inventory, where the absence rule can say so: a
    /// warning when the inventory holds other objects of that kind in that namespace and no build edgecheck
    /// cannot see renders there; an error on a full dump of a cluster. A dependency a chart or an
    /// unrendered build may create is not judged.
    ///
    /// ## Why it matters
    /// Flux applies nothing of the dependent until every dependency exists and is ready: it reports
    /// `dependency '<namespace>/<name>' not found` and retries for ever. Everything the Kustomization or
    /// release would apply (a Gateway, its certificates, an application) is missing from the cluster while
    /// its source is healthy, often on one cluster of several (the dependency exists only in another
    /// cluster's directory).
    ///
    /// ## Example
    /// `clusters/dev/infra/envoy-gateway.yaml` has `dependsOn: [{name: cert-manager-config}]`, and only
    /// `clusters/prod` has a Kustomization `cert-manager-config`.
    ///
    /// ## How to fix
    /// Add the Kustomization or HelmRelease it depends on to this cluster, correct its name or namespace, or
    /// remove the dependency.
    pub(crate) struct FluxDependencyMissing {
        code: "GIT025", name: "flux-dependency-missing", layer: Layer::Gitops, severity: Severity::Warning, also: [Severity::Error],
    }
}

/// The Flux kinds that wait for others of their kind.
const DEPENDENT_KINDS: [(&str, &str); 2] =
    [("kustomize.toolkit.fluxcd.io", "Kustomization"), ("helm.toolkit.fluxcd.io", "HelmRelease")];

impl FluxDependencyMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (group, kind) in DEPENDENT_KINDS {
            let kind = Kind { group: group.into(), kind: kind.into() };
            for &id in cx.graph.ids_of(&kind) {
                let obj = cx.graph.obj(id);
                let Some(deps) = obj.value.pointer("/spec/dependsOn").and_then(ValueRef::as_array) else { continue };
                for (i, dep) in deps.iter().enumerate() {
                    let Some(name) = dep.get("name").and_then(ValueRef::as_str).filter(|n| !n.is_empty()) else {
                        continue;
                    };
                    let ns = dep
                        .get("namespace")
                        .and_then(ValueRef::as_str)
                        .filter(|n| !n.is_empty())
                        .or(obj.namespace.as_deref());
                    if edgecheck_core::placeholder::unresolved(name) || cx.graph.find_kind(&kind, ns, name).is_some() {
                        continue;
                    }
                    let Some(severity) = cx.graph.absence(&kind, ns) else { continue };
                    let dep_ref = ns.map_or_else(|| name.to_string(), |ns| format!("{ns}/{name}"));
                    out.at(obj, &format!("spec.dependsOn[{i}].name"))
                        .severity(severity)
                        .message(format!(
                            "{} depends on {} `{dep_ref}`, which is not in the inventory: Flux applies none of it \
                             until that dependency exists and is ready (`dependency '{dep_ref}' not found`)",
                            obj.to_ref(),
                            kind.kind
                        ))
                        .evidence(format!("spec.dependsOn[{i}]: {dep_ref}"))
                        .fix(format!(
                            "add the {} `{dep_ref}` to this cluster, correct the name or namespace, or remove the \
                             dependency",
                            kind.kind
                        ))
                        .emit();
                }
            }
        }
    }
}
