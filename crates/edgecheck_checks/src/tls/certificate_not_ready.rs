use edgecheck_core::views::{AcmeChallenge, AcmeOrder, CertificateRequest};
use edgecheck_core::{Findings, Layer, ObjId, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// A live cert-manager Certificate with `Ready=False` (from a cluster or a dump; a Git repository
    /// has no status). edgecheck follows the issuance chain Certificate → CertificateRequest → ACME
    /// Order → Challenge (by owner references and the `cert-manager.io/certificate-name`
    /// annotation) and names the deepest object that is stuck, with its reason: a Challenge `pending`
    /// with the self-check error (connection refused on port 80, NXDOMAIN for the `_acme-challenge`
    /// TXT record, a wrong answer from a CDN or WAF intercepting `/.well-known/acme-challenge/`), an
    /// Order `invalid`, a CertificateRequest `Denied` or `Failed`.
    ///
    /// ## Why it matters
    /// The Secret the route serves is missing, stale or about to expire: clients get the controller's
    /// default certificate or an expired one. The Certificate's own message rarely says why; the
    /// Challenge does.
    ///
    /// ## Example
    /// Certificate `shop/web` `Ready=False DoesNotExist`; its Challenge for `shop.example.com` is
    /// `pending` with `dial tcp 203.0.113.7:80: connect: connection refused`.
    ///
    /// ## How to fix
    /// Fix what the culprit names: open port 80 to the Internet for HTTP-01 (or use DNS-01), create
    /// the `_acme-challenge` record or fix the DNS-01 provider credentials, exempt
    /// `/.well-known/acme-challenge/` from the CDN/WAF and HTTPS redirects; then let cert-manager
    /// retry (`cmctl renew`).
    pub(crate) struct CertificateNotReady {
        code: "TLS020", name: "certificate-not-ready", layer: Layer::Tls, severity: Severity::Error,
    }
}

/// What a Challenge's self-check error says is wrong, in words an operator acts on.
pub(super) fn challenge_hint(reason: &str) -> Option<&'static str> {
    let r = reason.to_ascii_lowercase();
    if r.contains("nxdomain") || r.contains("no such host") || r.contains("_acme-challenge") {
        Some("the name or the _acme-challenge TXT record does not resolve (DNS)")
    } else if r.contains("connection refused") {
        Some("nothing accepts connections on port 80 for the host: HTTP-01 needs port 80 reachable from the Internet")
    } else if r.contains("i/o timeout") || r.contains("timeout") || r.contains("no route to host") {
        Some("port 80 of the host does not answer (firewall, wrong address, or no listener)")
    } else if r.contains("wrong status code")
        || r.contains("did not get expected response")
        || r.contains("403")
        || r.contains("cloudflare")
        || r.contains("unauthorized")
    {
        Some(
            "something other than the solver answers /.well-known/acme-challenge/ (a CDN or WAF, an HTTPS \
             redirect, another Ingress, or the name points at another address)",
        )
    } else {
        None
    }
}

fn in_ns<'a, 'g, T>(
    all: &'a [(ObjId, &'g edgecheck_core::Object, &'g T)],
    ns: Option<&'a str>,
) -> impl Iterator<Item = &'a (ObjId, &'g edgecheck_core::Object, &'g T)> {
    all.iter().filter(move |(_, o, _)| o.namespace.as_deref() == ns)
}

impl CertificateNotReady {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        let all_crs = cx.graph.each::<CertificateRequest>();
        let all_orders = cx.graph.each::<AcmeOrder>();
        let all_challenges = cx.graph.each::<AcmeChallenge>();
        for (_, obj, cert) in cx.graph.each::<edgecheck_core::views::Certificate>() {
            let Some(ready) = cert.status.condition("Ready") else { continue };
            if ready.status != "False" {
                continue;
            }
            let reason = ready.reason.as_deref().unwrap_or("");
            if edgecheck_core::reasons::layer_for("Ready", reason).is_some_and(|l| l != Layer::Tls) {
                continue;
            }
            let ns = obj.namespace.as_deref();
            let mut related = Vec::new();
            let mut evidence = vec![format!("Ready=False {reason}: {}", ready.message.as_deref().unwrap_or("").trim())];
            let mut culprit: Option<String> = None;
            let mut fix =
                "look at the Certificate's CertificateRequest and Events (cmctl status certificate)".to_string();
            let crs: Vec<_> = in_ns(&all_crs, ns)
                .filter(|(_, _, cr)| {
                    cr.metadata.owner("Certificate") == Some(obj.name.as_str())
                        || cr.metadata.annotations.get("cert-manager.io/certificate-name").and_then(|v| v.as_str())
                            == Some(obj.name.as_str())
                })
                .collect();
            let orders: Vec<_> = in_ns(&all_orders, ns).collect();
            let challenges: Vec<_> = in_ns(&all_challenges, ns).collect();
            for (_, cro, cr) in &crs {
                related.push(cro.to_ref());
                if let Some(c) = cr.status.condition("Denied").filter(|c| c.status == "True") {
                    culprit.get_or_insert(format!(
                        "{} was denied: {}",
                        cro.to_ref(),
                        c.message.as_deref().unwrap_or("")
                    ));
                }
                if let Some(c) = cr.status.condition("Ready").filter(|c| c.status == "False") {
                    evidence.push(format!(
                        "{}: Ready=False {}: {}",
                        cro.to_ref(),
                        c.reason.as_deref().unwrap_or(""),
                        c.message.as_deref().unwrap_or("").trim()
                    ));
                    if c.reason.as_deref() == Some("Failed") {
                        culprit.get_or_insert(format!(
                            "{} failed: {}",
                            cro.to_ref(),
                            c.message.as_deref().unwrap_or("")
                        ));
                    }
                }
                for (_, oo, order) in
                    orders.iter().filter(|(_, _, o)| o.metadata.owner("CertificateRequest") == Some(cro.name.as_str()))
                {
                    related.push(oo.to_ref());
                    let state = order.status.state.as_deref().unwrap_or("pending");
                    evidence.push(format!(
                        "{}: state {state}{}",
                        oo.to_ref(),
                        order.status.reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default()
                    ));
                    for (_, cho, ch) in
                        challenges.iter().filter(|(_, _, c)| c.metadata.owner("Order") == Some(oo.name.as_str()))
                    {
                        related.push(cho.to_ref());
                        let cstate = ch.status.state.as_deref().unwrap_or("pending");
                        if cstate == "valid" {
                            continue;
                        }
                        let creason = ch.status.reason.as_deref().unwrap_or("").trim();
                        evidence.push(format!(
                            "{}: {} for {} is {cstate}: {creason}",
                            cho.to_ref(),
                            ch.spec.type_,
                            ch.spec.dns_name
                        ));
                        // The Challenge is the deepest object: it replaces any culprit found above.
                        culprit = Some(format!(
                            "{} ({} for {}) is {cstate}: {creason}",
                            cho.to_ref(),
                            ch.spec.type_,
                            ch.spec.dns_name
                        ));
                        if let Some(h) = challenge_hint(creason) {
                            evidence.push(format!("meaning: {h}"));
                            fix = format!("fix the challenge: {h}; then let cert-manager retry");
                        }
                    }
                    if culprit.is_none() && matches!(state, "invalid" | "errored" | "expired") {
                        culprit = Some(format!("{} is {state}", oo.to_ref()));
                    }
                }
            }
            let message = match &culprit {
                Some(c) => format!(
                    "{} is not Ready ({reason}): {c}; the Secret `{}` is not issued or renewed",
                    obj.to_ref(),
                    cert.spec.secret_name
                ),
                None => format!(
                    "{} is not Ready ({reason}): {}; the Secret `{}` is not issued or renewed",
                    obj.to_ref(),
                    ready.message.as_deref().unwrap_or("no message").trim(),
                    cert.spec.secret_name
                ),
            };
            let at = cert
                .status
                .conditions
                .iter()
                .position(|c| c.type_ == "Ready")
                .map_or_else(|| "status.conditions".to_string(), |i| format!("status.conditions[{i}]"));
            let mut b = out.at(obj, &at).message(message).related_all(related);
            for e in evidence {
                b = b.evidence(e);
            }
            b.fix(fix).emit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::challenge_hint;

    #[test]
    fn self_check_errors() {
        let refused = "Waiting for HTTP-01 challenge propagation: failed to perform self check GET request \
                       'http://shop.example.com/.well-known/acme-challenge/x': Get ...: dial tcp 203.0.113.7:80: \
                       connect: connection refused";
        assert!(challenge_hint(refused).unwrap().contains("port 80"));
        let nx =
            "DNS record for \"shop.example.com\" not yet propagated; NXDOMAIN for _acme-challenge.shop.example.com.";
        assert!(challenge_hint(nx).unwrap().contains("DNS"));
        let cdn = "did not get expected response when querying endpoint, expected \"x.y\" but got: <html>cloudflare";
        assert!(challenge_hint(cdn).unwrap().contains("CDN"));
        assert_eq!(challenge_hint("waiting for dns-01 challenge propagation"), None);
    }
}
