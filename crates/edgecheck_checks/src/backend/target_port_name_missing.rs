use edgecheck_core::views::{PortRef, Service, Workload};
use edgecheck_core::{EdgeKind, Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Service port whose `targetPort` is a name (`targetPort: http`) that no container of any
    /// workload the Service selects declares in `ports[].name` (containers and init/sidecar
    /// containers of Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs, CronJobs and Pods).
    ///
    /// Only named target ports are checked. A numeric `targetPort` that no container declares is not
    /// reported: `containerPort` declarations are informational, and traffic reaches a process
    /// listening on that number whether it is declared or not. Services without selector, and
    /// Services whose selector matches no workload in the inputs, are left to other checks.
    ///
    /// ## Why it matters
    /// A named target port is resolved per pod from its container port names. A pod without that
    /// name gets no endpoint for the port, so the EndpointSlice stays empty and every controller
    /// answers as if the backend had no pods (503, `no healthy upstream`).
    ///
    /// ## Example
    /// ```yaml
    /// kind: Service
    /// spec: {selector: {app: web}, ports: [{port: 80, targetPort: http}]}
    /// ---
    /// kind: Deployment
    /// spec: {template: {metadata: {labels: {app: web}},
    ///   spec: {containers: [{name: web, ports: [{name: web, containerPort: 8080}]}]}}}
    /// ```
    ///
    /// ## How to fix
    /// Name the container port as the Service says (`ports: [{name: http, containerPort: 8080}]`), or
    /// set `targetPort` to the container port's name or number.
    pub(crate) struct TargetPortNameMissing {
        code: "BKD003", name: "target-port-name-missing", layer: Layer::Backend, severity: Severity::Error,
    }
}

impl TargetPortNameMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, obj, svc) in cx.graph.each::<Service>() {
            let selected: Vec<_> =
                cx.graph.edges_from_kind(id, EdgeKind::Selects).filter_map(|e| e.to.found()).collect();
            if selected.is_empty() {
                continue;
            }
            for (i, p) in svc.spec.ports.iter().enumerate() {
                let Some(PortRef::Name(name)) = &p.target_port else { continue };
                if name.parse::<i64>().is_ok() {
                    continue;
                }
                let declared = selected.iter().any(|w| {
                    cx.graph.view::<Workload>(*w).is_some_and(|w| {
                        w.containers.iter().chain(&w.init_containers).any(|c| c.port_named(name).is_some())
                    })
                });
                if declared {
                    continue;
                }
                let mut f = out
                    .at(obj, &format!("spec.ports[{i}].targetPort"))
                    .message(format!(
                        "{} port {} targets the container port named `{name}`, which no selected workload declares; the port gets no endpoints",
                        obj.to_ref(),
                        p.port
                    ))
                    .evidence(format!("spec.ports[{i}].targetPort: {name}"));
                for w in &selected {
                    let wo = cx.graph.obj(*w);
                    let names: Vec<String> = cx
                        .graph
                        .view::<Workload>(*w)
                        .map(|w| {
                            w.containers
                                .iter()
                                .chain(&w.init_containers)
                                .flat_map(|c| &c.ports)
                                .map(|cp| match &cp.name {
                                    Some(n) => format!("{n}:{}", cp.container_port),
                                    None => cp.container_port.to_string(),
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    let names = if names.is_empty() { "(none)".to_string() } else { names.join(", ") };
                    f = f.evidence(format!("{} container ports: {names}", wo.to_ref())).related(wo.to_ref());
                }
                f.fix(format!(
                    "name the container port `{name}`, or set targetPort to the container port's name or number"
                ))
                .emit();
            }
        }
    }
}
