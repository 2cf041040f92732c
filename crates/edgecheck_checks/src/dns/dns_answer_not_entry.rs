use edgecheck_core::observation::DnsOutcome;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::observed::{dns_evidence, report};

declare_check! {
    /// ## What it checks
    /// A probed host whose DNS answers (system resolver or `--dns-server`; not `--resolve`) contain
    /// none of the addresses the objects give the entry that claims the host: the Gateway's
    /// `status.addresses`, the Ingress's load balancer status, the LoadBalancer Service of the
    /// Gateway or of Traefik. A CNAME to the entry's host name counts as a match.
    ///
    /// ## Why it matters
    /// Everything in the cluster can be right and the request still goes elsewhere: a stale record
    /// after the load balancer was recreated, a record pointing at the old cluster, split-horizon DNS
    /// answering differently inside and out. The objects and the probe disagree at the first layer.
    ///
    /// ## Example
    /// `shop.example.com` resolves to 203.0.113.9; Gateway `edge/public` has address 192.0.2.10.
    ///
    /// ## How to fix
    /// Point the record at the entry's address (or let external-dns manage it from the Gateway or
    /// Ingress), then wait out the old record's TTL.
    pub(crate) struct DnsAnswerNotEntry {
        code: "DNS102", name: "dns-answer-not-entry", layer: Layer::Dns, severity: Severity::Error,
    }
}

impl DnsAnswerNotEntry {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for s in cx.serving {
            if s.addresses.is_empty() {
                continue;
            }
            let o = &cx.observations[s.observation];
            let asked: Vec<_> = o.dns.iter().filter(|d| d.outcome == DnsOutcome::Answer).collect();
            if asked.is_empty() {
                continue;
            }
            let norm = |a: &str| a.trim_end_matches('.').to_ascii_lowercase();
            let entry: Vec<String> = s.addresses.iter().map(|a| norm(a)).collect();
            let matches = asked.iter().any(|d| {
                d.addresses.iter().any(|a| entry.contains(&norm(a)))
                    || d.cnames.iter().any(|c| c.split(" -> ").any(|n| entry.contains(&norm(n))))
            });
            if matches {
                continue;
            }
            let mut b = report(out, o)
                .message(format!(
                    "{} resolves to addresses the entry does not have: the request goes elsewhere",
                    o.host
                ))
                .evidence(format!("the objects give the entry: {}", s.addresses.join(", ")));
            for d in asked {
                b = b.evidence(dns_evidence(d));
            }
            if let Some(e) = s.entry {
                b = b.related(cx.graph.obj(e).to_ref());
            }
            if let Some(r) = s.route {
                b = b.related(cx.graph.obj(r).to_ref());
            }
            b.fix("point the DNS record at the entry's address (or let external-dns manage it), then wait out the TTL")
                .emit();
        }
    }
}
