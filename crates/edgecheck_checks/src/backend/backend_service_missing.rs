use edgecheck_core::kind::K;
use edgecheck_core::views::Workload;
use edgecheck_core::{Findings, Layer, Severity, Target};

use super::helpers::backend_edges;
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An Ingress (`networking.k8s.io/v1` `service.name` or `v1beta1`/`extensions` `serviceName`), an
    /// HTTPRoute, GRPCRoute, TLSRoute or TCPRoute `backendRef`, or a Traefik IngressRoute /
    /// IngressRouteTCP service that names a Service which is not in the inputs.
    ///
    /// Absence follows the shared rule: an error on a full cluster dump, a warning when the inputs
    /// define other Services in that namespace, and silence otherwise (a Helm chart or an operator
    /// may create the Service). On a dump, a failed Job in the Service's namespace is quoted as a
    /// likely reason the Service was never created.
    ///
    /// ## Why it matters
    /// The controller has nothing to send the request to: Gateway API routes get
    /// `ResolvedRefs=False` reason `BackendNotFound` and answer 500, ingress-nginx answers 503,
    /// Traefik drops the router and answers 404. The Service is often missing because whatever creates
    /// it (a chart, a Job, a hook) failed much earlier.
    ///
    /// ## Example
    /// ```yaml
    /// kind: HTTPRoute
    /// spec:
    ///   rules:
    ///     - backendRefs: [{name: vault-ui, port: 8200}]   # no Service vault/vault-ui
    /// ```
    ///
    /// ## How to fix
    /// Create the Service, or point the route at the Service that exists (check the name and the
    /// namespace). When a chart or Job should have created it, find out why it failed (its Events).
    pub(crate) struct BackendServiceMissing {
        code: "BKD001", name: "backend-service-missing", layer: Layer::Backend, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl BackendServiceMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for e in backend_edges(cx.graph) {
            let Target::Missing(svc) = &e.to else { continue };
            // An operator object in the inputs creates it (a VMAgent its `vmagent-<name>`).
            if !cx.graph.service_producers(svc.namespace.as_deref().unwrap_or(""), &svc.name).is_empty() {
                continue;
            }
            let Some(severity) = cx.absence(K::SERVICE, svc.namespace.as_deref()) else { continue };
            let from = cx.graph.obj(e.from);
            let mut f = out
                .at(from, &e.field)
                .severity(severity)
                .message(format!(
                    "{} sends traffic to {svc}, which does not exist; requests to this backend fail",
                    from.to_ref()
                ))
                .evidence(format!("{}: {}", e.field, svc.name))
                .related((**svc).clone());
            for (jid, job) in failed_jobs(cx, svc.namespace.as_deref()) {
                f = f
                    .evidence(format!("{} failed: {job}", cx.graph.obj(jid).to_ref()))
                    .related(cx.graph.obj(jid).to_ref());
            }
            f.fix(
                "create the Service, or name the Service that exists; if a chart or Job creates it, fix why it failed",
            )
            .emit();
        }
    }
}

/// Jobs in `ns` with condition `Failed=True`, with the condition's reason and message.
fn failed_jobs(cx: &CheckContext<'_>, ns: Option<&str>) -> Vec<(edgecheck_core::ObjId, String)> {
    let mut out = Vec::new();
    for &id in cx.graph.ids(K::JOB) {
        let o = cx.graph.obj(id);
        if o.namespace.as_deref() != ns {
            continue;
        }
        if cx.graph.view::<Workload>(id).is_none() {
            continue;
        }
        let conds = Workload::status(o).and_then(|s| s.get("conditions")).and_then(|c| c.as_array());
        for c in conds.into_iter().flatten() {
            let s = |k: &str| c.get(k).and_then(|v| v.as_str()).unwrap_or("");
            if s("type") == "Failed" && s("status") == "True" {
                out.push((id, format!("{} {}", s("reason"), s("message")).trim().to_string()));
            }
        }
    }
    out
}
