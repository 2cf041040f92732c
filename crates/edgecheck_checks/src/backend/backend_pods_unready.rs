use edgecheck_core::kind::K;
use edgecheck_core::reasons::layer_for;
use edgecheck_core::views::{EndpointSlice, Event, Service, Workload};
use edgecheck_core::{EdgeKind, Findings, Graph, Layer, ObjId, Severity};

use super::helpers::is_routed;
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// Live status: the Pods a routed Service selects (Pods in a dump, matched by the selector) when
    /// none of them is `Ready` (error), or when some are crash-looping (warning, intermittent). The
    /// finding quotes the containers' waiting reasons (`CrashLoopBackOff`), last termination messages
    /// and the Pods' Events whose reason places the fault in the backend layer: the probe
    /// failure (`Readiness probe failed: ... connection reset by peer`,
    /// `http: server gave HTTP response to HTTPS client`).
    ///
    /// Services that have EndpointSlices in the inputs are left to `service-endpoints-unready`
    /// (BKD005), which reads readiness from the slices. Finds nothing in a Git repository.
    ///
    /// ## Why it matters
    /// A Pod that is not Ready gets no traffic; when no Pod is Ready the route answers 503/502 for
    /// every request. A liveness probe that does not match the server (HTTPS to a plaintext port)
    /// kills a healthy server over and over.
    ///
    /// ## Example
    /// ```yaml
    /// kind: Pod
    /// status:
    ///   conditions: [{type: Ready, status: "False"}]
    ///   containerStatuses: [{name: server, ready: false, state: {waiting: {reason: CrashLoopBackOff}}}]
    /// ```
    ///
    /// ## How to fix
    /// Fix what the quoted Events and messages say: the probe's scheme, port or path, the container's
    /// configuration, a missing Secret. Do not change the route.
    pub(crate) struct BackendPodsUnready {
        code: "BKD011", name: "backend-pods-unready", layer: Layer::Backend, severity: Severity::Error,
    }
}

impl BackendPodsUnready {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let g = cx.graph;
        let slices = g.each::<EndpointSlice>();
        for (id, obj, svc) in g.each::<Service>() {
            if svc.spec.kind() == "ExternalName" || !is_routed(g, id) {
                continue;
            }
            if slices.iter().any(|(_, o, _)| {
                o.namespace == obj.namespace && o.label("kubernetes.io/service-name") == Some(obj.name.as_str())
            }) {
                continue;
            }
            let pods: Vec<(ObjId, PodState)> = g
                .edges_from_kind(id, EdgeKind::Selects)
                .filter_map(|e| e.to.found())
                .filter(|p| g.obj(*p).is(K::POD))
                .filter_map(|p| pod_state(g, p).map(|s| (p, s)))
                .collect();
            if pods.is_empty() {
                continue;
            }
            let ready = pods.iter().filter(|(_, s)| s.ready).count();
            let looping = pods.iter().filter(|(_, s)| s.crash_looping).count();
            let (severity, message) = if ready == 0 {
                (
                    Severity::Error,
                    if pods.len() == 1 {
                        format!(
                            "the only Pod that {} selects is not Ready; every request routed to it fails",
                            obj.to_ref()
                        )
                    } else {
                        format!(
                            "none of the {} Pods that {} selects is Ready; every request routed to it fails",
                            pods.len(),
                            obj.to_ref()
                        )
                    },
                )
            } else if looping > 0 {
                (
                    Severity::Warning,
                    format!(
                        "{looping} of the {} Pods that {} selects are in CrashLoopBackOff; requests fail intermittently",
                        pods.len(),
                        obj.to_ref()
                    ),
                )
            } else {
                continue;
            };
            let mut f = out.at(obj, "spec.selector").severity(severity).message(message);
            let mut quoted = 0;
            for (p, s) in pods.iter().filter(|(_, s)| !s.ready || s.crash_looping) {
                let po = g.obj(*p);
                f = f.related(po.to_ref());
                for line in &s.lines {
                    if quoted < 6 {
                        f = f.evidence(format!("{} {line}", po.to_ref()));
                        quoted += 1;
                    }
                }
                for e in g.edges_to_kind(*p, EdgeKind::Involves) {
                    let Some(ev) = g.view::<Event>(e.from) else { continue };
                    let reason = ev.reason.as_deref().unwrap_or("");
                    if layer_for("", reason) == Some(Layer::Backend) && quoted < 6 {
                        f = f
                            .evidence(format!("{} {reason}: {}", po.to_ref(), ev.text()))
                            .related(g.obj(e.from).to_ref());
                        quoted += 1;
                    }
                }
            }
            f.fix("fix what the Pods' Events and messages say (probe scheme/port/path, configuration, Secrets)").emit();
        }
    }
}

/// What a Pod's status says.
pub(super) struct PodState {
    pub(super) ready: bool,
    pub(super) crash_looping: bool,
    pub(super) lines: Vec<String>,
}

/// The state of a Pod with a status; `None` without one (a Pod written in Git).
pub(super) fn pod_state(g: &Graph, pod: ObjId) -> Option<PodState> {
    g.view::<Workload>(pod)?;
    let status = Workload::status(g.obj(pod))?;
    let conds = status.get("conditions").and_then(|c| c.as_array());
    let ready = conds.into_iter().flatten().any(|c| {
        c.get("type").and_then(|v| v.as_str()) == Some("Ready")
            && c.get("status").and_then(|v| v.as_str()) == Some("True")
    });
    let mut crash_looping = false;
    let mut lines = Vec::new();
    for cs in status.get("containerStatuses").and_then(|v| v.as_array()).into_iter().flatten() {
        let name = cs.get("name").and_then(|v| v.as_str()).unwrap_or("");
        if let Some(w) = cs.pointer("/state/waiting") {
            let reason = w.get("reason").and_then(|v| v.as_str()).unwrap_or("");
            crash_looping |= reason == "CrashLoopBackOff";
            let restarts = cs.get("restartCount").and_then(edgecheck_core::ValueRef::as_i64).unwrap_or(0);
            lines.push(format!("container {name} waiting: {reason} (restarts: {restarts})"));
        }
        if let Some(t) = cs.pointer("/lastState/terminated") {
            let reason = t.get("reason").and_then(|v| v.as_str()).unwrap_or("");
            let msg = t.get("message").and_then(|v| v.as_str()).unwrap_or("").trim();
            lines.push(format!("container {name} last terminated: {reason} {msg}").trim().to_string());
        }
    }
    Some(PodState { ready, crash_looping, lines })
}
