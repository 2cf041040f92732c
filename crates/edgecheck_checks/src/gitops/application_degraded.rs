use edgecheck_core::kind::K;
use edgecheck_core::views::Application;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An Argo CD `Application` (live object or dump) whose `status.health.status` is `Degraded` (error) or
    /// `Missing` (warning), naming the managed resources from `status.resources` that are not healthy, with
    /// their health messages. In an app-of-apps a parent whose child Application is Degraded points at the
    /// child (and at the child's own unhealthy resources when the child is in the inventory).
    ///
    /// ## Why it matters
    /// An Application's health is the worst health of its resources: `gateway` Degraded may mean one
    /// HTTPRoute with `BackendNotFound`, not a broken Gateway. Knowing which resource drags it down is where
    /// the search starts; the fault itself is usually on another layer.
    ///
    /// ## Example
    /// Application `gateway` is Degraded; `status.resources` has HTTPRoute `zitadel/zitadel` Degraded with
    /// `ResolvedRefs=False BackendNotFound`.
    ///
    /// ## How to fix
    /// Follow the named resources: fix the first unhealthy one (its own findings say why), then let Argo CD
    /// reassess. For `Missing`, sync the Application or find why the resources were not created.
    pub(crate) struct ApplicationDegraded {
        code: "GIT022", name: "application-degraded", layer: Layer::Gitops, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl ApplicationDegraded {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (_, obj, app) in cx.graph.each::<Application>() {
            let health = app.status.health.status.as_deref();
            let severity = match health {
                Some("Degraded") => Severity::Error,
                Some("Missing") => Severity::Warning,
                _ => continue,
            };
            let bad: Vec<_> = app
                .status
                .resources
                .iter()
                .filter(|r| matches!(r.health.as_ref().and_then(|h| h.status.as_deref()), Some("Degraded" | "Missing")))
                .collect();
            let mut f = out.at(obj, "status.health.status").severity(severity).message(format!(
                "{} is {}{}",
                obj.to_ref(),
                health.unwrap_or(""),
                match bad.first() {
                    Some(r) => format!(" because of {} `{}`", r.kind, qualified(r.namespace.as_deref(), &r.name)),
                    None => String::new(),
                }
            ));
            if let Some(m) = app.status.health.message.as_deref().filter(|m| !m.is_empty()) {
                f = f.evidence(format!("health message: {m}"));
            }
            for r in bad.iter().take(8) {
                let h = r.health.as_ref();
                let mut line = format!(
                    "{} `{}` {}",
                    r.kind,
                    qualified(r.namespace.as_deref(), &r.name),
                    h.and_then(|h| h.status.as_deref()).unwrap_or("")
                );
                if let Some(m) = h.and_then(|h| h.message.as_deref()).filter(|m| !m.is_empty()) {
                    line.push_str(&format!(": {m}"));
                }
                f = f.evidence(line);
                let rref = r.object_ref(obj.namespace.as_deref());
                // A child Application: follow it one level.
                if r.is_application() {
                    if let Some(cid) = cx.graph.find(K::APPLICATION, rref.namespace.as_deref(), &r.name) {
                        let co = cx.graph.obj(cid);
                        f = f.related(co.to_ref());
                        if let Some(child) = cx.graph.view::<Application>(cid) {
                            for cr in child.status.resources.iter().filter(|cr| {
                                matches!(
                                    cr.health.as_ref().and_then(|h| h.status.as_deref()),
                                    Some("Degraded" | "Missing")
                                )
                            }) {
                                let m = cr.health.as_ref().and_then(|h| h.message.as_deref()).unwrap_or("");
                                f = f.evidence(format!(
                                    "child {} has {} `{}` unhealthy{}",
                                    co.to_ref(),
                                    cr.kind,
                                    qualified(cr.namespace.as_deref(), &cr.name),
                                    if m.is_empty() { String::new() } else { format!(": {m}") }
                                ));
                            }
                        }
                        continue;
                    }
                }
                f = f.related(rref);
            }
            if bad.len() > 8 {
                f = f.evidence(format!("and {} more unhealthy resources", bad.len() - 8));
            }
            let fix = if severity == Severity::Warning {
                "sync the Application, or find why its resources were not created (hooks, failed Jobs, sync errors)"
            } else {
                "fix the first unhealthy resource named (its own findings say why), then let Argo CD reassess"
            };
            f.fix(fix).emit();
        }
    }
}

fn qualified(ns: Option<&str>, name: &str) -> String {
    match ns.filter(|n| !n.is_empty()) {
        Some(n) => format!("{n}/{name}"),
        None => name.to_string(),
    }
}
