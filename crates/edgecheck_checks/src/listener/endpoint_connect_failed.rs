use edgecheck_core::observation::ConnectOutcome;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::report;

declare_check! {
    /// ## What it checks
    /// A probed host resolved but no address accepted a TCP connection: refused (nothing listens),
    /// timeout (dropped by a firewall or security group) or unreachable (no route), per address.
    ///
    /// ## Why it matters
    /// The listener layer is the first broken one: a LoadBalancer without an external address, a
    /// Gateway listener on another port, a NodePort blocked by a firewall.
    ///
    /// ## Example
    /// `connect 203.0.113.7:443: refused (1 ms)`.
    ///
    /// ## How to fix
    /// Refused: check the Service/Gateway listener port and that the proxy runs. Timeout: check
    /// firewalls, security groups and the load balancer's health. Unreachable: routing.
    pub(crate) struct EndpointConnectFailed {
        code: "LSN100", name: "endpoint-connect-failed", layer: Layer::Listener, severity: Severity::Error,
    }
}

impl EndpointConnectFailed {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for o in cx.observations.iter().filter(|o| !o.connects.is_empty() && !o.connected()) {
            let kind = |k: ConnectOutcome| o.connects.iter().all(|c| c.outcome == k);
            let what = if kind(ConnectOutcome::Refused) {
                "refused the connection: nothing listens on the port"
            } else if kind(ConnectOutcome::Timeout) {
                "did not answer: connections time out (firewall, security group, dead load balancer)"
            } else if kind(ConnectOutcome::Unreachable) {
                "is unreachable: no route to the address"
            } else {
                "accepted no connection"
            };
            let mut b = report(out, o).message(format!("{}:{} {what}", o.host, o.port));
            for c in &o.connects {
                b = b.evidence(format!(
                    "connect {}: {:?} after {:.0} ms{}",
                    c.address,
                    c.outcome,
                    c.ms,
                    c.detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default()
                ));
            }
            b.fix("check the listener port, the Service/LoadBalancer address, and firewalls").emit();
        }
    }
}
