use std::collections::BTreeSet;

use edgecheck_core::kind::K;
use edgecheck_core::views::{Application, ConfigMap};
use edgecheck_core::{Findings, Layer, ObjId, Severity};

use crate::framework::{declare_check, CheckContext};

const WAVE: &str = "argocd.argoproj.io/sync-wave";
const HEALTH_KEY: &str = "resource.customizations.health.argoproj.io_Application";
/// Argo CD's own components: their presence means the inventory manages Argo CD.
const ARGOCD_PARTS: &[&str] =
    &["argocd-server", "argocd-repo-server", "argocd-application-controller", "argocd-applicationset-controller"];

declare_check! {
    /// ## What it checks
    /// An app-of-apps parent Application whose child Applications are in different sync waves (it relies
    /// on one wave of children being healthy before the next starts) while `argocd-cm` has no health check
    /// for Applications (`resource.customizations.health.argoproj.io_Application`, or the older
    /// `resource.customizations` block for `argoproj.io/Application`). Reported only when `argocd-cm` is in
    /// the inventory, or when the inventory manages Argo CD itself (its Deployments are there) and
    /// `argocd-cm` is not. Children are the Applications in the parent's source path (linted checkout) or in
    /// its `status.resources`.
    ///
    /// ## Why it matters
    /// Argo CD 1.8 removed the built-in health assessment of Applications: a child Application counts as
    /// healthy as soon as it exists, so the parent starts the next wave at once. CRDs, controllers and
    /// secret delivery set up by an earlier child are not ready when later children sync; those fail or
    /// flap, and the waves look like ordering that is not there.
    ///
    /// ## Example
    /// Root Application `k8s-infra-root` holds `gateway-api-crds` (wave `-60`), `istio` (wave `-40`) and
    /// `example-api` (wave `40`); `argocd-cm` has no `resource.customizations.health.argoproj.io_Application`.
    ///
    /// ## How to fix
    /// Add the Application health check to `argocd-cm` (the Lua script in Argo CD's "Resource Health"
    /// documentation, under `resource.customizations.health.argoproj.io_Application`), or do not rely on
    /// waves between child Applications.
    pub(crate) struct ApplicationHealthCheckMissing {
        code: "GIT005", name: "application-health-check-missing", layer: Layer::Gitops, severity: Severity::Warning,
    }
}

impl ApplicationHealthCheckMissing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let g = cx.graph;
        let cm = g.ids(K::CONFIG_MAP).iter().copied().find(|id| g.obj(*id).name == "argocd-cm");
        let manages_argocd = [K::DEPLOYMENT, K::STATEFUL_SET]
            .iter()
            .any(|k| g.ids(*k).iter().any(|id| ARGOCD_PARTS.contains(&g.obj(*id).name.as_str())));
        match cm {
            Some(id) if has_health_check(g.obj(id)) => return,
            None if !manages_argocd => return,
            _ => {}
        }
        for (pid, parent, app) in g.each::<Application>() {
            let mut children: BTreeSet<ObjId> = g.managed(pid).filter(|c| g.obj(*c).is(K::APPLICATION)).collect();
            for r in app.status.resources.iter().filter(|r| r.is_application()) {
                let child = r.object_ref(parent.namespace.as_deref());
                if let Some(c) = g.find(K::APPLICATION, child.namespace.as_deref(), &r.name) {
                    children.insert(c);
                }
            }
            let waves: BTreeSet<i64> = children
                .iter()
                .map(|c| g.obj(*c).annotation(WAVE).and_then(|w| w.trim().parse().ok()).unwrap_or(0))
                .collect();
            if waves.len() < 2 {
                continue;
            }
            let (lo, hi) = (waves.first().copied().unwrap_or(0), waves.last().copied().unwrap_or(0));
            let mut f = out
                .at(parent, "")
                .message(format!(
                    "{} orders {} child Applications by sync wave ({lo} to {hi}), but Argo CD has no health check for \
                     Applications: each wave starts before the previous children are healthy",
                    parent.to_ref(),
                    children.len()
                ))
                .evidence(format!("child waves: {}", waves.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")));
            f = match cm {
                Some(id) => {
                    f.evidence(format!("{} has no {HEALTH_KEY}", g.obj(id).to_ref())).related(g.obj(id).to_ref())
                }
                None => f.evidence(
                    "the inventory installs Argo CD but holds no argocd-cm (defaults: no Application health check)",
                ),
            };
            f.fix(format!("add the Application health check to argocd-cm under {HEALTH_KEY}")).emit();
        }
    }
}

/// Whether argocd-cm restores the Application health assessment, in either spelling.
fn has_health_check(cm: &edgecheck_core::Object) -> bool {
    if ConfigMap::get(cm, HEALTH_KEY).is_some_and(|v| !v.trim().is_empty()) {
        return true;
    }
    // Pre-1.x style: `resource.customizations: | argoproj.io/Application: {health.lua: ...}`.
    ConfigMap::get(cm, "resource.customizations").is_some_and(|v| {
        let i = v.find("argoproj.io/Application:");
        i.is_some_and(|i| v[i..].contains("health.lua"))
    })
}
