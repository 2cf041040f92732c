use edgecheck_core::kind::K;
use edgecheck_core::reasons::is_dns_failure;
use edgecheck_core::views::{Application, ConfigMap};
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// An Argo CD `Application` (live object or dump) whose `ComparisonError`/`SyncError` condition or
    /// failed operation message is a failed DNS lookup (`lookup github.com on 10.43.0.10:53: server
    /// misbehaving`, `no such host`, `i/o timeout` on :53). When the CoreDNS ConfigMap
    /// (`kube-system/coredns`) is in the inventory, its `forward` lines are quoted as evidence.
    ///
    /// ## Why it matters
    /// The fault is cluster DNS, not Git or the manifests: the repo-server cannot resolve the Git or
    /// Helm host, so every Application using it turns `Unknown` and Helm chart pulls fail. A common cause
    /// is CoreDNS `forward . /etc/resolv.conf` on a node whose resolv.conf is the systemd-resolved stub
    /// `127.0.0.53`, which inside the CoreDNS pod is the pod's own loopback.
    ///
    /// ## Example
    /// `ComparisonError: rpc error: ... dial tcp: lookup github.com on 10.43.0.10:53: server misbehaving`.
    ///
    /// ## How to fix
    /// Make cluster DNS resolve external names: point kubelet at the real resolver list
    /// (`--resolv-conf=/run/systemd/resolve/resolv.conf`, k3s `kubelet-arg`) or give CoreDNS explicit
    /// forwarders, and write that change back to Git.
    pub(crate) struct ApplicationRepoLookupFailed {
        code: "DNS020", name: "application-repo-lookup-failed", layer: Layer::Dns, severity: Severity::Error,
    }
}

impl ApplicationRepoLookupFailed {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let coredns = cx.graph.find(K::CONFIG_MAP, Some("kube-system"), "coredns");
        let forwards: Vec<String> = coredns
            .and_then(|id| ConfigMap::get(cx.graph.obj(id), "Corefile"))
            .map(|c| c.lines().map(str::trim).filter(|l| l.starts_with("forward ")).map(str::to_string).collect())
            .unwrap_or_default();
        for (_, obj, app) in cx.graph.each::<Application>() {
            let st = &app.status;
            let mut msgs: Vec<(String, String, &str)> = st
                .conditions
                .iter()
                .enumerate()
                .filter(|(_, c)| matches!(c.type_.as_str(), "ComparisonError" | "SyncError" | "InvalidSpecError"))
                .filter_map(|(i, c)| {
                    c.message
                        .as_deref()
                        .map(|m| (format!("status.conditions[{i}]"), format!("condition {}", c.type_), m))
                })
                .collect();
            if let Some(o) = &st.operation_state {
                if let Some(m) = o.message.as_deref() {
                    let what = format!("operationState {}", o.phase.as_deref().unwrap_or(""));
                    msgs.push(("status.operationState.message".to_string(), what, m));
                }
            }
            let Some((field, what, msg)) = msgs.into_iter().find(|(_, _, m)| is_dns_failure(m)) else { continue };
            let host = lookup_host(msg);
            let mut f = out
                .at(obj, &field)
                .message(format!(
                    "{} cannot reach its repository: the DNS lookup{} failed, so Argo CD cannot compare or sync it",
                    obj.to_ref(),
                    host.map(|h| format!(" of {h}")).unwrap_or_default()
                ))
                .evidence(format!("{what}: {msg}"));
            if let Some(id) = coredns {
                let cm = cx.graph.obj(id);
                f = f.related(cm.to_ref());
                for l in &forwards {
                    f = f.evidence(format!("CoreDNS Corefile: {l}"));
                }
                if forwards.iter().any(|l| l.contains("/etc/resolv.conf")) {
                    f = f.evidence(
                        "CoreDNS forwards to the node's resolv.conf; if that is the systemd-resolved stub 127.0.0.53, \
                         the pod's own loopback answers nothing",
                    );
                }
            }
            f.fix(
                "make cluster DNS resolve external names (kubelet --resolv-conf=/run/systemd/resolve/resolv.conf, \
                 or explicit CoreDNS forwarders) and write the change back to Git",
            )
            .emit();
        }
    }
}

/// The name after `lookup ` in a Go resolver error.
fn lookup_host(msg: &str) -> Option<&str> {
    let i = msg.find("lookup ")?;
    msg[i + 7..].split_whitespace().next().map(|h| h.trim_end_matches(':'))
}

#[cfg(test)]
mod tests {
    #[test]
    fn host_is_read_from_go_error() {
        assert_eq!(
            super::lookup_host("dial tcp: lookup github.com on 10.43.0.10:53: server misbehaving"),
            Some("github.com")
        );
        assert_eq!(super::lookup_host("could not resolve host"), None);
    }
}
