use edgecheck_core::views::{PortRef, Workload};
use edgecheck_core::{Findings, Layer, Severity};

use super::helpers::{argocd_tls_mode, is_argocd_server};
use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An `httpGet` readiness, liveness or startup probe with `scheme: HTTPS` on an Argo CD API server
    /// (`argocd-server` container) that serves plain HTTP because of `--insecure` (in its args, a
    /// literal `ARGOCD_SERVER_INSECURE`, or `server.insecure` in `argocd-cmd-params-cm`). The metrics
    /// port 8083 is not the server port and is not judged.
    ///
    /// The opposite, an HTTP probe to argocd-server in TLS mode, is not reported: the upstream
    /// manifests do exactly that, the server answers plain HTTP on the same port with a redirect to
    /// https, and the kubelet follows it without verifying the certificate.
    ///
    /// ## Why it matters
    /// The kubelet opens a TLS handshake to a plaintext listener: the probe fails with
    /// `connection reset by peer` (or `http: server gave HTTP response to HTTPS client`). A failing
    /// readiness probe takes the pod out of the Service; a failing liveness probe kills it over and
    /// over (`CrashLoopBackOff`). It happens when `--insecure` is added to an install whose probes were
    /// written for TLS, or an installer re-applies upstream probes.
    ///
    /// ## Example
    /// ```yaml
    /// containers:
    ///   - name: argocd-server
    ///     args: [/usr/local/bin/argocd-server, --insecure]
    ///     livenessProbe: {httpGet: {path: /healthz, port: 8080, scheme: HTTPS}}
    /// ```
    ///
    /// ## How to fix
    /// Make the probe follow the server's TLS mode: `scheme: HTTP` (or no scheme) while `--insecure`
    /// is set, `HTTPS` only when the server serves TLS.
    pub(crate) struct ProbeSchemeMismatch {
        code: "BKD008", name: "probe-scheme-mismatch", layer: Layer::Backend, severity: Severity::Error,
    }
}

impl ProbeSchemeMismatch {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (_, obj, w) in cx.graph.each::<Workload>() {
            for (ci, c) in w.containers.iter().enumerate() {
                if !is_argocd_server(c) {
                    continue;
                }
                let mode = argocd_tls_mode(cx.graph, obj.namespace.as_deref(), c);
                if mode.insecure != Some(true) {
                    continue;
                }
                let probes = [
                    ("readiness", "readinessProbe", &c.readiness_probe),
                    ("liveness", "livenessProbe", &c.liveness_probe),
                    ("startup", "startupProbe", &c.startup_probe),
                ];
                for (what, field, p) in probes {
                    let Some(h) = p.as_ref().and_then(|p| p.http_get.as_ref()) else { continue };
                    if !h.scheme.as_deref().is_some_and(|s| s.eq_ignore_ascii_case("HTTPS")) {
                        continue;
                    }
                    let port = h.port.as_ref();
                    let metrics = match port {
                        Some(PortRef::Number(n)) => *n == 8083,
                        Some(PortRef::Name(n)) => {
                            n == "metrics" || c.port_named(n).is_some_and(|p| p.container_port == 8083)
                        }
                        None => false,
                    };
                    if metrics {
                        continue;
                    }
                    let consequence = if what == "liveness" {
                        "the probe fails with `connection reset by peer` and the kubelet restarts the container (CrashLoopBackOff)"
                    } else if what == "readiness" {
                        "the probe fails with `connection reset by peer` and the pod never becomes ready"
                    } else {
                        "the probe fails with `connection reset by peer` and the container is restarted before it starts"
                    };
                    out.at(obj, &format!("{}.containers[{ci}].{field}.httpGet.scheme", w.pod_spec_path))
                        .message(format!(
                            "{} container {} probes its {what} over HTTPS, but the server runs with --insecure and serves plain HTTP; {consequence}",
                            obj.to_ref(),
                            c.name
                        ))
                        .evidence(format!(
                            "{field}.httpGet: {} port {} scheme HTTPS",
                            h.path.as_deref().unwrap_or("/"),
                            port.map(ToString::to_string).unwrap_or_default()
                        ))
                        .evidence(format!("TLS mode: {}", mode.source()))
                        .fix("set the probe's scheme to HTTP (or drop it) while --insecure is set")
                        .emit();
                }
            }
        }
    }
}
