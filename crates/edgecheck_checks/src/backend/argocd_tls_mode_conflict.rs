use edgecheck_core::views::Workload;
use edgecheck_core::{Findings, Layer, Severity};

use super::helpers::{argocd_tls_mode, is_argocd_server};
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An Argo CD API server (`argocd-server` container) whose TLS mode is written in two places that
    /// disagree: `--insecure` (or `--insecure=false`) in the container's command/args, a literal
    /// `ARGOCD_SERVER_INSECURE` env value, and `server.insecure` in ConfigMap `argocd-cmd-params-cm`
    /// of the same namespace. The args win over the environment, which wins over the ConfigMap.
    ///
    /// ## Why it matters
    /// Operators change `server.insecure` in the ConfigMap (the documented way), restart the server,
    /// and nothing changes because the Deployment's args (often re-applied by an installer or a chart
    /// upgrade) still say otherwise. Routes, `backend-protocol` annotations and probes are then written
    /// for one mode while the server runs the other: 502s, redirect loops, probes reset.
    ///
    /// ## Example
    /// ```yaml
    /// kind: ConfigMap
    /// metadata: {name: argocd-cmd-params-cm}
    /// data: {server.insecure: "false"}
    /// ---
    /// kind: Deployment   # argocd-server
    /// spec: {template: {spec: {containers: [{args: [/usr/local/bin/argocd-server, --insecure]}]}}}
    /// ```
    ///
    /// ## How to fix
    /// Keep one source of truth: set `server.insecure` in `argocd-cmd-params-cm` and remove
    /// `--insecure` from the args (or the other way round), so both say the same.
    pub(crate) struct ArgocdTlsModeConflict {
        code: "BKD007", name: "argocd-tls-mode-conflict", layer: Layer::Backend, severity: Severity::Warning,
    }
}

impl ArgocdTlsModeConflict {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (_, obj, w) in cx.graph.each::<Workload>() {
            for (ci, c) in w.containers.iter().enumerate() {
                if !is_argocd_server(c) {
                    continue;
                }
                let mode = argocd_tls_mode(cx.graph, obj.namespace.as_deref(), c);
                let Some(effective) = mode.insecure else { continue };
                let (first, field) = match (mode.args, mode.env) {
                    (Some(a), _) => {
                        let f = if c.args.iter().any(|x| x.starts_with("--insecure")) { "args" } else { "command" };
                        (a, format!("{}.containers[{ci}].{f}", w.pod_spec_path))
                    }
                    (None, Some(e)) => (e, format!("{}.containers[{ci}].env", w.pod_spec_path)),
                    (None, None) => continue,
                };
                let mut others = Vec::new();
                if mode.args.is_some() {
                    if let Some(e) = mode.env.filter(|e| *e != first) {
                        others.push(format!("env ARGOCD_SERVER_INSECURE={e}"));
                    }
                }
                if let Some(p) = mode.params.filter(|p| *p != first) {
                    others.push(format!("argocd-cmd-params-cm server.insecure: \"{p}\""));
                }
                if others.is_empty() {
                    continue;
                }
                let runs = if effective { "plain HTTP (--insecure)" } else { "TLS" };
                let mut f = out
                    .at(obj, &field)
                    .message(format!(
                        "{} container {} sets its TLS mode in two places that disagree; the server runs {runs}, and the other setting has no effect",
                        obj.to_ref(),
                        c.name
                    ))
                    .evidence(format!("effective: {}", mode.source()));
                for o in others {
                    f = f.evidence(format!("ignored: {o}"));
                }
                if let Some(cm) = mode.params_cm {
                    f = f.related(cx.graph.obj(cm).to_ref());
                }
                f.fix("keep one source of truth: set server.insecure in argocd-cmd-params-cm and drop --insecure from the args, or the other way round")
                    .emit();
            }
        }
    }
}
