use edgecheck_core::observation::{ConnectOutcome, HandshakeOutcome, HttpOutcome, TargetObservation};
use edgecheck_core::views;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::report;

declare_check! {
    /// ## What it checks
    /// An Argo CD Application that owns objects on a probed endpoint's path reports Synced and
    /// Healthy, while the probe of that endpoint failed: no TCP connection, a failed TLS handshake,
    /// no HTTP answer, or a 5xx.
    ///
    /// ## Why it matters
    /// "Control plane green, data plane red": the dashboard says all is well because Argo CD compares
    /// manifests and resource health, not requests. Operators stop looking at the layer that is
    /// broken. The other findings on the endpoint say where it breaks.
    ///
    /// ## Example
    /// Application `argocd/shop` is Synced and Healthy; `GET https://shop.example.com/` gets nginx's 503.
    ///
    /// ## How to fix
    /// Follow the endpoint's other findings (`edgecheck trace URL`); consider a health check that
    /// exercises the path (a synthetic probe, or a resource health customization that reads it).
    pub(crate) struct GitopsGreenDataPlaneRed {
        code: "GIT024", name: "gitops-green-data-plane-red", layer: Layer::Gitops, severity: Severity::Warning,
    }
}

/// Why the probe failed, if it did.
fn failure(o: &TargetObservation) -> Option<String> {
    if !o.connects.is_empty() && o.connects.iter().all(|c| c.outcome != ConnectOutcome::Connected) {
        let c = &o.connects[0];
        return Some(format!("TCP {} to {}", format!("{:?}", c.outcome).to_lowercase(), c.address));
    }
    if let Some(t) = &o.tls {
        if t.outcome != HandshakeOutcome::Completed {
            return Some(format!(
                "TLS handshake {:?}{}",
                t.outcome,
                t.detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default()
            ));
        }
    }
    let h = o.http.last()?;
    if h.outcome != HttpOutcome::Response {
        return Some(format!("HTTP {:?}", h.outcome));
    }
    let status = h.status?;
    (status >= 500).then(|| format!("HTTP {status} from {}", h.url))
}

impl GitopsGreenDataPlaneRed {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for s in cx.serving {
            let o = &cx.observations[s.observation];
            let Some(why) = failure(o) else { continue };
            for &app in &s.applications {
                let Some(a) = cx.graph.view::<views::Application>(app) else { continue };
                let sync = a.status.sync.status.as_deref().unwrap_or_default();
                let health = a.status.health.status.as_deref().unwrap_or_default();
                if sync != "Synced" || health != "Healthy" {
                    continue;
                }
                let ao = cx.graph.obj(app);
                report(out, o)
                    .message(format!("{} is Synced and Healthy, but the endpoint fails: control plane green, data plane red", ao.to_ref()))
                    .evidence(format!("{}: sync {sync}, health {health}", ao.to_ref()))
                    .evidence(format!("probe: {why}"))
                    .related(ao.to_ref())
                    .fix("follow the endpoint's other findings (edgecheck trace URL); Argo CD's health does not exercise the request path")
                    .emit();
            }
        }
    }
}
