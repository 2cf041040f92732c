use edgecheck_core::kind::K;
use edgecheck_core::views::{Container, Event, Workload};
use edgecheck_core::{EdgeKind, Findings, Layer, Severity};

use super::backend_pods_unready::pod_state;
use super::helpers::is_routed;
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A Pod (a dump or a cluster) that is not Ready or is crash-looping while its readiness, liveness or
    /// startup probe fails (`Unhealthy` Events: `Readiness probe failed: Get "https://…": connection reset by
    /// peer`, `server gave HTTP response to HTTPS client`), whether or not a Service in the inputs selects it.
    /// When the failing probe speaks HTTPS to a container started in plaintext (`--insecure`, as Argo CD's
    /// server is when TLS ends at the proxy), or HTTP to one that serves TLS, that mismatch is named as the
    /// cause. Pods a routed Service selects are BKD011's.
    ///
    /// ## Why it matters
    /// An unready Pod receives no traffic; a liveness probe that fails restarts the container forever. The
    /// application may be fine: the probe asks it in the wrong protocol.
    ///
    /// ## Example
    /// ```yaml
    /// containers:
    /// - name: server
    ///   args: [argocd-server, --insecure]        # plain HTTP on 8080
    ///   livenessProbe: {httpGet: {path: /healthz, port: 8080, scheme: HTTPS}}
    /// ```
    ///
    /// ## How to fix
    /// Make the probe's scheme match what the container serves (`scheme: HTTP` for a server started with
    /// `--insecure`), or fix what the probe's message says (path, port, the application's own health).
    pub(crate) struct PodProbeFailing {
        code: "BKD012", name: "pod-probe-failing", layer: Layer::Backend, severity: Severity::Error,
        also: [Severity::Warning],
    }
}

impl PodProbeFailing {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let g = cx.graph;
        for &pod in g.ids(K::POD) {
            let Some(state) = pod_state(g, pod) else { continue };
            if state.ready && !state.crash_looping {
                continue;
            }
            // BKD011 reports the Pods behind a routed Service, with these Events.
            if g.edges_to_kind(pod, EdgeKind::Selects).any(|e| is_routed(g, e.from)) {
                continue;
            }
            let probes: Vec<(edgecheck_core::ObjId, String)> = g
                .edges_to_kind(pod, EdgeKind::Involves)
                .filter_map(|e| {
                    let ev = g.view::<Event>(e.from)?;
                    let text = ev.text();
                    (ev.reason.as_deref() == Some("Unhealthy") && text.contains("probe failed"))
                        .then(|| (e.from, text.to_string()))
                })
                .collect();
            if probes.is_empty() {
                continue;
            }
            let obj = g.obj(pod);
            let containers = g.view::<Workload>(pod).map(|w| w.containers.as_slice()).unwrap_or_default();
            let cause = containers.iter().enumerate().find_map(|(i, c)| {
                scheme_mismatch(c, &probes).map(|(why, probe)| (why, format!("spec.containers[{i}].{probe}")))
            });
            // Not Ready: no traffic now (an error); only restarting while Ready: intermittent (a warning).
            let severity = if state.ready { Severity::Warning } else { Severity::Error };
            let field = cause.as_ref().map_or("status", |(_, f)| f.as_str());
            let mut f = out.at(obj, field).severity(severity).message(match &cause {
                Some((why, _)) => format!("{} is not serving: its probe fails because {why}", obj.to_ref()),
                None => format!("{} is not Ready: its probes fail, so it receives no traffic", obj.to_ref()),
            });
            for line in state.lines.iter().take(3) {
                f = f.evidence(line.clone());
            }
            for (ev, text) in probes.iter().take(3) {
                f = f.evidence(format!("Event Unhealthy: {text}")).related(g.obj(*ev).to_ref());
            }
            f.fix(match cause {
                Some(_) => "make the probe's scheme match what the container serves (scheme: HTTP for a plaintext server, HTTPS for TLS)",
                None => "fix what the probe's message says: the path, the port, or the application's own health",
            })
            .emit();
        }
    }
}

/// Why the probe's protocol is not the container's, when the Events and the container's own arguments say so,
/// with the probe's field.
fn scheme_mismatch(c: &Container, probes: &[(edgecheck_core::ObjId, String)]) -> Option<(String, &'static str)> {
    let named = [
        ("livenessProbe", &c.liveness_probe),
        ("readinessProbe", &c.readiness_probe),
        ("startupProbe", &c.startup_probe),
    ];
    let https = |p: &Option<Box<edgecheck_core::views::Probe>>| {
        p.as_ref()
            .and_then(|p| p.http_get.as_ref())
            .is_some_and(|h| h.scheme.as_deref().is_some_and(|s| s.eq_ignore_ascii_case("HTTPS")))
    };
    let https_field = named.iter().find(|(_, p)| https(p)).map(|(n, _)| *n);
    let http_field = named.iter().find(|(_, p)| p.as_ref().is_some_and(|p| p.http_get.is_some())).map(|(n, _)| *n);
    let https_probe = https_field.is_some();
    let plaintext = c.argv().any(|a| a == "--insecure" || a == "--insecure=true");
    let said_http = probes.iter().any(|(_, t)| t.contains("server gave HTTP response to HTTPS client"));
    let reset = probes.iter().any(|(_, t)| t.contains("https://") && t.contains("connection reset"));
    if https_probe && (said_http || (plaintext && reset)) {
        let why = if plaintext {
            format!("an HTTPS probe asks container `{}`, which runs with `--insecure` (plain HTTP)", c.name)
        } else {
            format!("an HTTPS probe asks container `{}`, which answers in plain HTTP", c.name)
        };
        return Some((why, https_field.unwrap_or("livenessProbe")));
    }
    let said_tls = probes.iter().any(|(_, t)| t.contains("malformed HTTP response"));
    (!https_probe && said_tls && !plaintext).then(|| {
        (
            format!("a plain HTTP probe asks container `{}`, which serves TLS", c.name),
            http_field.unwrap_or("livenessProbe"),
        )
    })
}
