use edgecheck_core::observation::DnsOutcome;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::{dns_evidence, report};

declare_check! {
    /// ## What it checks
    /// A probed host for which no resolver returned an address: NXDOMAIN, SERVFAIL, a timeout, a
    /// name with no A/AAAA records, or a resolver that could not be asked, each named as such.
    ///
    /// ## Why it matters
    /// Nothing else can work: clients never reach a listener. NXDOMAIN means the record is missing
    /// (external-dns did not create it, wrong zone); SERVFAIL or a timeout points at the resolver or
    /// the delegation, not at the cluster.
    ///
    /// A last label that ends in digits (`svc.ns.svc.cluster.local443`) is named as a port glued on.
    ///
    /// ## Example
    /// `dns system shop.example.com: NxDomain (NXDomain)`.
    ///
    /// ## How to fix
    /// Create the record (check external-dns logs and the Ingress/Gateway hostname annotations), fix
    /// the delegation, or probe with `--dns-server` to compare with the authoritative server.
    pub(crate) struct DnsNameUnresolved {
        code: "DNS100", name: "dns-name-unresolved", layer: Layer::Dns, severity: Severity::Error,
    }
}

impl DnsNameUnresolved {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for o in cx.observations.iter().filter(|o| o.error.is_none() && !o.dns.is_empty() && !o.resolved()) {
            let what = match o.dns[0].outcome {
                DnsOutcome::NxDomain => "does not exist (NXDOMAIN)",
                DnsOutcome::ServFail => "could not be resolved: the server failed (SERVFAIL)",
                DnsOutcome::Timeout => "could not be resolved: no answer in time",
                DnsOutcome::NoAnswer => "exists but has no A or AAAA record",
                DnsOutcome::CouldNotAsk => "could not be resolved: no resolver could be asked",
                _ => "did not resolve",
            };
            let mut b = report(out, o).message(format!("{} {what}{}", o.host, glued_port(&o.host)));
            for d in &o.dns {
                b = b.evidence(dns_evidence(d));
            }
            b.fix("create the DNS record for the host (external-dns, zone), or fix the resolver").emit();
        }
    }
}

/// A hint when the last label looks like a name with a port glued on (`local443`, `com8443`).
fn glued_port(host: &str) -> String {
    let last = host.trim_end_matches('.').rsplit('.').next().unwrap_or_default();
    let digits = last.len() - last.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let name = &last[..last.len() - digits];
    if digits >= 2 && name.len() >= 2 && name.bytes().all(|b| b.is_ascii_alphabetic()) {
        format!("; `{last}` looks like `{name}` with the port {} glued on (a missing `:`)", &last[name.len()..])
    } else {
        String::new()
    }
}
