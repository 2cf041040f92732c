use edgecheck_core::reasons::is_dns_failure;
use edgecheck_core::views::ConfigMap;
use edgecheck_core::Value;
use edgecheck_core::ValueRef;
use edgecheck_core::{Findings, Layer, NodeConfig, Object, ObjectRef, Severity};

use crate::framework::{declare_check, CheckContext};

/// The Corefile k3s deploys when no `coredns` ConfigMap is given: it forwards `.` to the node's
/// resolv.conf as the CoreDNS Pod (dnsPolicy Default) inherits it from the kubelet.
const K3S_BUNDLED: &str = "k3s bundled CoreDNS: forward . /etc/resolv.conf";

declare_check! {
    /// ## What it checks
    /// CoreDNS forwarding the root zone to `/etc/resolv.conf` (`forward . /etc/resolv.conf` in the
    /// `Corefile` of ConfigMap `kube-system/coredns`, or k3s's bundled CoreDNS when no such ConfigMap
    /// is given) while the node configuration in the inputs (a k3s/RKE2 config file such as
    /// `/etc/rancher/k3s/config.yaml`) gives the kubelet no real resolver list: neither
    /// `resolv-conf: ...` nor `kubelet-arg: [resolv-conf=...]` pointing away from `/etc/resolv.conf`,
    /// and no KubeletConfiguration `resolvConf` doing so. A `forward .` in k3s's `coredns-custom` to
    /// addresses other than `/etc/resolv.conf` counts as fixed. Only when a node config is in the
    /// inputs: without one the nodes' setup is unknown.
    ///
    /// ## Why it matters
    /// CoreDNS runs with `dnsPolicy: Default` and inherits the node's `/etc/resolv.conf`. On hosts with
    /// systemd-resolved (Ubuntu, Debian 12, Fedora) that file names the stub `127.0.0.53`, which inside
    /// the CoreDNS container is the container's own loopback: every external lookup fails with SERVFAIL.
    /// The failure shows far away: Argo CD reports `ComparisonError ... lookup github.com on
    /// 10.43.0.10:53: server misbehaving` and Applications turn Unknown, Helm cannot fetch charts,
    /// cert-manager cannot reach ACME, tunnels cannot resolve their edge. In-cluster names keep
    /// working, which hides the cause. k3s swaps in `/run/systemd/resolve/resolv.conf` only when it
    /// detects a loopback nameserver itself, not for every stub setup (Tailscale MagicDNS, dnsmasq);
    /// the fault is inferred with doubt: a warning.
    ///
    /// ## Example
    /// ```yaml
    /// # /etc/rancher/k3s/config.yaml
    /// write-kubeconfig-mode: "0644"
    /// kubelet-arg:
    ///   - max-pods=200          # no resolv-conf=/run/systemd/resolve/resolv.conf
    /// ```
    ///
    /// ## How to fix
    /// Give the kubelet the real upstream list: `kubelet-arg: ["resolv-conf=/run/systemd/resolve/resolv.conf"]`
    /// (or k3s `resolv-conf:`), or forward CoreDNS to explicit resolvers (`forward . 1.1.1.1 8.8.8.8`)
    /// in the repository, not only as a live patch.
    pub(crate) struct CorednsForwardStub {
        code: "DNS002", name: "coredns-forward-stub", layer: Layer::Dns, severity: Severity::Warning,
    }
}

impl CorednsForwardStub {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let nodes: Vec<&edgecheck_core::NodeConfig> = cx.graph.node_configs.iter().filter(|n| n.is_node()).collect();
        if nodes.is_empty() {
            return;
        }
        if nodes.iter().any(|n| resolv_conf(n).is_some_and(|p| p.trim() != "/etc/resolv.conf")) {
            return;
        }
        // A KubeletConfiguration in the inputs giving a real resolver list.
        if cx.graph.iter().any(|(_, o)| {
            o.kind.kind == "KubeletConfiguration"
                && o.value.get("resolvConf").and_then(ValueRef::as_str).is_some_and(|p| p.trim() != "/etc/resolv.conf")
        }) {
            return;
        }
        let configmaps = cx.graph.each::<ConfigMap>();
        let custom_fixed = configmaps.iter().any(|(_, o, _)| {
            o.name == "coredns-custom"
                && o.namespace.as_deref() == Some("kube-system")
                && ConfigMap::values(o).any(|c| root_forward(c).is_some_and(|t| !t.contains("/etc/resolv.conf")))
        });
        if custom_fixed {
            return;
        }
        let coredns =
            configmaps.iter().find(|(_, o, _)| o.name == "coredns" && o.namespace.as_deref() == Some("kube-system"));
        let (subject, forward): (Option<&Object>, String) = match coredns {
            Some((_, o, _)) => {
                let Some(c) = ConfigMap::get(o, "Corefile") else { return };
                match root_forward(c) {
                    Some(t) if t.contains("/etc/resolv.conf") => (Some(*o), t),
                    _ => return,
                }
            }
            None => {
                if nodes.iter().any(|n| disables_coredns(n)) {
                    return;
                }
                (None, K3S_BUNDLED.to_string())
            }
        };
        let node = &nodes[0];
        let failures: Vec<String> = cx
            .graph
            .iter()
            .filter(|(_, o)| o.kind.kind == "Application")
            .filter_map(|(_, o)| {
                let conds = o.value.pointer("/status/conditions")?.as_array()?;
                conds.iter().find_map(|c| {
                    let m = c.get("message")?.as_str()?;
                    let t = c.get("type").and_then(ValueRef::as_str).unwrap_or("condition");
                    is_dns_failure(m).then(|| format!("{}: {t}: {m}", o.to_ref()))
                })
            })
            .collect();
        let message = "CoreDNS forwards external names to the node's /etc/resolv.conf, and the node config gives the kubelet no real resolver list; on systemd-resolved hosts that is the 127.0.0.53 stub, unreachable from the CoreDNS Pod, so external lookups fail";
        let mut b = match subject {
            Some(o) => out.at(o, "data.Corefile").message(format!("{}: {message}", o.to_ref())),
            None => out
                .about(
                    ObjectRef { api_version: None, kind: "File".into(), namespace: None, name: node.file.clone() },
                    Some(node.file.clone()),
                    Some(node.line),
                )
                .message(format!("{message} (k3s bundled CoreDNS)")),
        };
        let kubelet = match resolv_conf(node) {
            Some(p) => format!("{}:{}: kubelet resolv-conf={p}, the node's own resolver file", node.file, node.line),
            None => format!("{}:{}: no resolv-conf key, no kubelet-arg resolv-conf=", node.file, node.line),
        };
        b = b.evidence(format!("Corefile: {forward}")).evidence(kubelet);
        for f in failures {
            b = b.evidence(f);
        }
        b.fix("set kubelet-arg: [\"resolv-conf=/run/systemd/resolve/resolv.conf\"] in the k3s config, or forward . to explicit resolvers in the Corefile")
            .emit();
    }
}

/// The node config's resolv.conf for the kubelet: k3s `resolv-conf:` or `kubelet-arg: resolv-conf=...`.
fn resolv_conf(n: &NodeConfig) -> Option<String> {
    if let Some(p) = n.value.get("resolv-conf").and_then(Value::as_str) {
        return Some(p.to_string());
    }
    let args: Vec<String> = match n.value.get("kubelet-arg") {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        Some(Value::String(s)) => s.split(',').map(str::to_string).collect(),
        _ => Vec::new(),
    };
    args.iter().find_map(|a| {
        let a = a.trim().trim_start_matches("--");
        a.strip_prefix("resolv-conf=").map(str::to_string)
    })
}

/// True when the node config disables the bundled CoreDNS (`disable: [coredns]`).
fn disables_coredns(n: &NodeConfig) -> bool {
    match n.value.get("disable") {
        Some(Value::Array(a)) => {
            a.iter().filter_map(Value::as_str).any(|s| s.split(',').any(|x| x.trim() == "coredns"))
        }
        Some(Value::String(s)) => s.split(',').any(|x| x.trim() == "coredns"),
        _ => false,
    }
}

/// The `forward . TO...` directive of a Corefile (root zone), as written.
fn root_forward(corefile: &str) -> Option<String> {
    corefile.lines().find_map(|l| {
        let l = l.split('#').next().unwrap_or("").trim();
        let mut t = l.split_whitespace();
        (t.next() == Some("forward") && t.next() == Some(".")).then(|| l.trim_end_matches('{').trim().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::root_forward;

    #[test]
    fn root_forward_is_found() {
        let c = ".:53 {\n    errors\n    forward . /etc/resolv.conf {\n      max_concurrent 1000\n    }\n}\nexample.org:53 {\n  forward example.org 10.0.0.1\n}";
        assert_eq!(root_forward(c).as_deref(), Some("forward . /etc/resolv.conf"));
        assert_eq!(root_forward("  # forward . /etc/resolv.conf\n"), None);
    }
}
