use edgecheck_core::kind::K;
use edgecheck_core::views::{ExternalSecret, Workload};
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::gitops::crd_sync_wave_late::{chain, ordering, wave};

const WAVE: &str = "argocd.argoproj.io/sync-wave";

declare_check! {
    /// ## What it checks
    /// An `ExternalSecret` that Argo CD applies in a later sync wave than a workload (Deployment,
    /// StatefulSet, DaemonSet, Job, CronJob, Pod) of its namespace that reads its target Secret (env
    /// `secretKeyRef`, `envFrom`, secret volumes). Waves are compared within one Application, or between the
    /// child Applications of one app-of-apps that hold them.
    ///
    /// ## Why it matters
    /// The pods start before the Secret exists and fail with `CreateContainerConfigError` (`secret not
    /// found`) or a failed mount; a Job or hook may exhaust its retries and fail the sync. Even in the right
    /// order the ExternalSecret only becomes Ready after the controller reconciles: delivery is a chain of
    /// its own.
    ///
    /// ## Example
    /// ExternalSecret `airflow/airflow-env` has sync-wave `20`; Deployment `airflow/webserver` (wave `10`)
    /// reads Secret `airflow-env` with `envFrom`.
    ///
    /// ## How to fix
    /// Give the ExternalSecret (or the Application holding it) an earlier wave than its consumers, as seed
    /// layouts do (ExternalSecrets at wave 10, their workloads at 20).
    pub(crate) struct ExternalSecretWaveAfterConsumer {
        code: "SEC006", name: "external-secret-wave-after-consumer", layer: Layer::Secrets, severity: Severity::Warning,
    }
}

impl ExternalSecretWaveAfterConsumer {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let g = cx.graph;
        let workloads = g.each::<Workload>();
        for (eid, eo, es) in g.each::<ExternalSecret>() {
            let echain = chain(g, eid);
            if echain.len() < 2 {
                continue;
            }
            let target = es.spec.target.name.as_deref().unwrap_or(&eo.name);
            for (wid, wo, w) in &workloads {
                if wo.namespace != eo.namespace || wo.is(K::REPLICA_SET) {
                    continue;
                }
                let Some(u) = w.secret_uses.iter().find(|u| u.secret == target) else { continue };
                let Some((e_side, w_side, common)) = ordering(&echain, &chain(g, *wid)) else { continue };
                let (ew, ww) = (wave(g, e_side), wave(g, w_side));
                if ew <= ww {
                    continue;
                }
                let so = g.obj(e_side);
                let mut f = out
                    .at(so, &format!("metadata.annotations[\"{WAVE}\"]"))
                    .message(format!(
                        "{} writes Secret `{target}` in sync wave {ew}, after {} (wave {ww}) which reads it: its pods \
                         start before the Secret exists",
                        eo.to_ref(),
                        wo.to_ref()
                    ))
                    .evidence(format!("{} reads it ({}) at {}", wo.to_ref(), u.how, u.field))
                    .evidence(format!("{}: wave {ew}", so.to_ref()))
                    .evidence(format!("{}: wave {ww}", g.obj(w_side).to_ref()))
                    .evidence(format!("ordered within {}", g.obj(common).to_ref()))
                    .related(wo.to_ref());
                if e_side != eid {
                    f = f.related(eo.to_ref()).related(g.obj(w_side).to_ref());
                }
                f.fix(format!("give {} a sync wave lower than {ww}", so.to_ref())).emit();
                break;
            }
        }
    }
}
