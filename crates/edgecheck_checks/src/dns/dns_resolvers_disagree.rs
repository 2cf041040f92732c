use std::collections::BTreeSet;

use edgecheck_core::observation::DnsOutcome;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::{dns_evidence, report};

declare_check! {
    /// ## What it checks
    /// The system resolver and `--dns-server` gave different answers for a probed host: different
    /// addresses, or one answered and the other did not.
    ///
    /// ## Why it matters
    /// Clients see different endpoints depending on where they resolve: a stale record in a cache,
    /// split-horizon DNS, or a change that has not propagated. "It works for me" follows.
    ///
    /// ## Example
    /// system: `203.0.113.7`; `--dns-server 192.0.2.53`: `198.51.100.9`.
    ///
    /// ## How to fix
    /// Find which answer is current (the authoritative server), then flush or fix the other
    /// (TTL, split-horizon zone, stale external-dns owner record).
    pub(crate) struct DnsResolversDisagree {
        code: "DNS101", name: "dns-resolvers-disagree", layer: Layer::Dns, severity: Severity::Warning,
    }
}

impl DnsResolversDisagree {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for o in cx.observations {
            let asked: Vec<_> = o.dns.iter().filter(|d| d.outcome != DnsOutcome::Static).collect();
            if asked.len() < 2 {
                continue;
            }
            let sets: Vec<BTreeSet<&str>> =
                asked.iter().map(|d| d.addresses.iter().map(String::as_str).collect()).collect();
            if sets.windows(2).all(|w| w[0] == w[1]) {
                continue;
            }
            let mut b = report(out, o).message(format!("resolvers disagree about {}", o.host));
            for d in &asked {
                b = b.evidence(dns_evidence(d));
            }
            b.fix("find the current answer at the authoritative server and fix the stale one").emit();
        }
    }
}
