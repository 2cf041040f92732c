use edgecheck_core::kind::K;
use edgecheck_core::views::{Event, Workload};
use edgecheck_core::{EdgeKind, Findings, Graph, Layer, ObjId, Severity, Target};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// Live status: a Job whose `status.conditions` has `Failed=True` (`BackoffLimitExceeded`,
    /// `DeadlineExceeded`, ...). The finding quotes why: the Job's own Events, the Events of its pods
    /// (named `<job>-<suffix>` or labelled `job-name` / `batch.kubernetes.io/job-name`) and their
    /// containers' termination messages, e.g. `masterkey must be 32 bytes`.
    ///
    /// An error when a route in the Job's namespace names a Service that does not exist (the Job is
    /// the likely reason it was never created: a chart's migration or setup hook); a warning
    /// otherwise. Finds nothing in a Git repository.
    ///
    /// ## Why it matters
    /// Charts create Services, Secrets and Deployments after a hook Job succeeds. When the Job fails
    /// for a reason far away (a secret value of the wrong length, a database not reachable), the
    /// route's backend never appears and every layer above it only says "not found".
    ///
    /// ## Example
    /// ```yaml
    /// kind: Job
    /// status: {conditions: [{type: Failed, status: "True", reason: BackoffLimitExceeded}]}
    /// ---
    /// kind: Event
    /// involvedObject: {kind: Pod, name: hydra-automigrate-x2x9p}
    /// message: 'Error: masterkey must be 32 bytes'
    /// ```
    ///
    /// ## How to fix
    /// Fix what the quoted message says (often a Secret's value), then delete the failed Job (or
    /// re-sync the Application) so that it runs again.
    pub(crate) struct JobFailed {
        code: "BKD010", name: "job-failed", layer: Layer::Backend, severity: Severity::Warning, also: [Severity::Error],
    }
}

impl JobFailed {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let g = cx.graph;
        for &jid in g.ids(K::JOB) {
            let job = g.obj(jid);
            if g.view::<Workload>(jid).is_none() {
                continue;
            }
            let conds = Workload::status(job).and_then(|s| s.get("conditions")).and_then(|c| c.as_array());
            let Some((ci, failed)) = conds.into_iter().flatten().enumerate().find(|(_, c)| {
                c.get("type").and_then(|v| v.as_str()) == Some("Failed")
                    && c.get("status").and_then(|v| v.as_str()) == Some("True")
            }) else {
                continue;
            };
            let s = |k: &str| failed.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
            let missing: Vec<_> = g
                .edges()
                .iter()
                .filter(|e| e.kind == EdgeKind::Backend)
                .filter_map(|e| match &e.to {
                    Target::Missing(r) if r.namespace.as_deref() == job.namespace.as_deref() => Some((**r).clone()),
                    _ => None,
                })
                .collect();
            let mut f = out
                .at(job, &format!("status.conditions[{ci}]"))
                .severity(if missing.is_empty() { Severity::Warning } else { Severity::Error })
                .message(format!(
                    "{} failed ({}){}",
                    job.to_ref(),
                    s("reason"),
                    if missing.is_empty() {
                        String::new()
                    } else {
                        format!("; what it should have set up may be why {} does not exist", missing[0])
                    }
                ))
                .evidence(format!("condition Failed=True reason {}: {}", s("reason"), s("message")));
            for r in missing {
                f = f.related(r);
            }
            for (id, line) in why(g, jid) {
                f = f.evidence(line).related(g.obj(id).to_ref());
            }
            f.fix("fix what the quoted messages say (often a Secret value), then delete the Job or re-sync so it runs again")
                .emit();
        }
    }
}

/// Its pods' termination messages, then the Events of the Job and its pods: `(object, line)`, at most 6.
fn why(g: &Graph, jid: ObjId) -> Vec<(ObjId, String)> {
    let job = g.obj(jid);
    let prefix = format!("{}-", job.name);
    let is_pod_of_job = |name: &str| name.strip_prefix(&prefix).is_some_and(|s| !s.is_empty() && !s.contains('-'));
    let mut out = Vec::new();
    for &pid in g.ids(K::POD) {
        if g.obj(pid).namespace != job.namespace || !(pod_of(g, pid, &job.name) || is_pod_of_job(&g.obj(pid).name)) {
            continue;
        }
        let Some(status) = g.view::<Workload>(pid).and_then(|_| Workload::status(g.obj(pid))) else { continue };
        for cs in status.get("containerStatuses").and_then(|v| v.as_array()).into_iter().flatten() {
            for state in ["state", "lastState"] {
                if let Some(m) = cs.pointer(&format!("/{state}/terminated/message")).and_then(|v| v.as_str()) {
                    out.push((pid, format!("{} terminated: {}", g.obj(pid).to_ref(), m.trim())));
                }
            }
        }
    }
    for (eid, eo, ev) in g.each::<Event>() {
        let Some(subject) = ev.subject() else { continue };
        let ns = subject.namespace.as_deref().or(eo.namespace.as_deref());
        if ns != job.namespace.as_deref() {
            continue;
        }
        let about_job = subject.kind == "Job" && subject.name == job.name;
        let about_pod = subject.kind == "Pod"
            && (is_pod_of_job(&subject.name)
                || g.edges_from_kind(eid, EdgeKind::Involves)
                    .filter_map(|e| e.to.found())
                    .any(|p| pod_of(g, p, &job.name)));
        if (about_job || about_pod) && ev.event_type.as_deref() != Some("Normal") {
            out.push((
                eid,
                format!("{} {} {}: {}", subject.kind, subject.name, ev.reason.as_deref().unwrap_or(""), ev.text()),
            ));
        }
    }
    out.truncate(6);
    out
}

fn pod_of(g: &Graph, pod: ObjId, job: &str) -> bool {
    let o = g.obj(pod);
    o.is(K::POD) && (o.label("job-name") == Some(job) || o.label("batch.kubernetes.io/job-name") == Some(job))
}
