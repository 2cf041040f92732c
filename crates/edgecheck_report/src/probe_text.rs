//! `probe -v`: what the probe saw of one endpoint, as `dig`, `openssl s_client` and `curl -v` would show
//! it (answers, addresses tried, TLS version, cipher, ALPN, the chain, HTTP status and headers), and
//! whether the endpoint is healthy and why. Everything a server sent is shown with its control characters
//! escaped; cookie and authorization header values are not shown.

use std::fmt::Write as _;

use edgecheck_core::observation::{HandshakeOutcome, HttpOutcome, TargetObservation};
use edgecheck_core::{Finding, Severity};
use serde::Serialize;

use crate::text::{DIM, GREEN, RED, RESET, YELLOW};
use crate::wrap::wrapped;
use crate::Style;

/// A server's or resolver's text, safe to print: credentials masked, control characters escaped.
fn clean(s: &str) -> String {
    let masked = edgecheck_core::redact::credentials(s);
    edgecheck_core::redact::controls(&masked).into_owned()
}

/// An outcome's JSON name (`nx_domain`, `not_tls`).
fn name<T: Serialize>(t: &T) -> String {
    serde_json::to_value(t).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

fn date(t: i64) -> String {
    edgecheck_core::cert::format_time(t)
}

/// Headers whose values are credentials: shown by length only.
fn secret_header(h: &str) -> bool {
    matches!(h.to_ascii_lowercase().as_str(), "set-cookie" | "cookie" | "authorization" | "proxy-authorization")
}

/// One endpoint's observations, then the verdict.
pub(crate) fn observation(o: &TargetObservation, findings: &[Finding], style: &Style) -> String {
    let paint = |code: &'static str, s: &str| if style.color { format!("{code}{s}{RESET}") } else { s.to_string() };
    let w = style.width;
    let mut out = String::new();
    let mut line = |tag: &str, text: &str| {
        out.push_str(&wrapped(&format!("{} ", paint(DIM, &format!("{tag:<8}"))), text, 9, w));
    };
    for d in &o.dns {
        let mut t = format!("{} {} → {}", clean(&d.resolver), clean(&d.name), name(&d.outcome));
        if !d.cnames.is_empty() {
            let _ = write!(t, ", CNAME {}", d.cnames.iter().map(|c| clean(c)).collect::<Vec<_>>().join(" → "));
        }
        if !d.addresses.is_empty() {
            let _ = write!(t, ": {}", d.addresses.iter().map(|a| clean(a)).collect::<Vec<_>>().join(", "));
        }
        if let Some(x) = &d.detail {
            let _ = write!(t, " ({})", clean(x));
        }
        let _ = write!(t, " [{:.1} ms]", d.ms);
        line("dns", &t);
    }
    for c in &o.connects {
        let mut t = format!("{} {}", clean(&c.address), name(&c.outcome));
        if let Some(x) = &c.detail {
            let _ = write!(t, " ({})", clean(x));
        }
        let _ = write!(t, " [{:.1} ms]", c.ms);
        line("tcp", &t);
    }
    if let Some(t) = &o.tls {
        let mut s = format!("{} SNI {}", clean(&t.address), t.sni.as_deref().map_or("(none)".into(), clean));
        if t.outcome == HandshakeOutcome::Completed {
            let _ = write!(
                s,
                ": {}, cipher {}, ALPN {} (offered {})",
                t.version.as_deref().map_or("?".into(), clean),
                t.cipher.as_deref().map_or("?".into(), clean),
                t.alpn.as_deref().map_or("none".into(), clean),
                t.offered_alpn.iter().map(|a| clean(a)).collect::<Vec<_>>().join(",")
            );
        } else {
            let _ = write!(s, ": handshake {}", name(&t.outcome));
        }
        if let Some(x) = &t.detail {
            let _ = write!(s, " ({})", clean(x));
        }
        let _ = write!(s, " [{:.1} ms]", t.ms);
        line("tls", &s);
        for (i, c) in t.chain.iter().enumerate() {
            let mut names: Vec<String> = c.dns_names.iter().map(|n| clean(n)).collect();
            names.extend(c.ip_addresses.iter().map(|n| clean(n)));
            let sans = if names.is_empty() { "none".to_string() } else { names.join(", ") };
            let text = format!(
                "{i} subject {}; SANs {sans}; issuer {}; {} → {}; {} {} bits, {}{}",
                clean(&c.subject),
                clean(&c.issuer),
                date(c.not_before),
                date(c.not_after),
                clean(&c.key_algorithm),
                c.key_bits,
                clean(&c.signature_algorithm),
                if c.is_ca { ", CA" } else { "" }
            );
            line("  cert", &text);
        }
        if t.outcome == HandshakeOutcome::Completed {
            let v = if t.verified {
                format!("verified for {} (trust: {})", clean(&t.verify_name), clean(&t.trust))
            } else {
                let why: Vec<String> =
                    t.problems.iter().map(|p| clean(&serde_json::to_string(p).unwrap_or_default())).collect();
                format!("NOT verified for {} (trust: {}): {}", clean(&t.verify_name), clean(&t.trust), why.join("; "))
            };
            line("  verify", &v);
        }
    }
    for h in &o.http {
        let mut s = format!("{} {}", clean(&h.protocol), clean(&h.url));
        match (h.outcome, h.status) {
            (HttpOutcome::Response, Some(code)) => {
                let _ = write!(s, " → {code}, {} body bytes{}", h.body_len, if h.body_truncated { "+" } else { "" });
            }
            (outcome, _) => {
                let _ = write!(s, " → {}", name(&outcome));
            }
        }
        if let Some(x) = &h.detail {
            let _ = write!(s, " ({})", clean(x));
        }
        let _ = write!(s, " [{:.1} ms]", h.ms);
        line("http", &s);
        for (k, v) in &h.headers {
            let v = if secret_header(k) { format!("({} bytes, not shown)", v.len()) } else { clean(v) };
            line("  <", &format!("{}: {v}", clean(k)));
        }
    }
    if let Some(g) = &o.grpc {
        for (label, call) in [("native", &g.native), ("grpc-web", &g.web)] {
            if !call.attempted {
                continue;
            }
            let mut s = format!("{label}: HTTP {}", call.http_status.map_or("-".into(), |c| c.to_string()));
            if let Some(st) = call.grpc_status {
                let _ = write!(s, ", grpc-status {st}");
            }
            if let Some(m) = call.grpc_message.as_deref().or(call.detail.as_deref()) {
                let _ = write!(s, " ({})", clean(m));
            }
            line("grpc", &s);
        }
    }
    for l in &o.legacy {
        let verdict = match l.accepted {
            Some(true) => "accepted",
            Some(false) => "refused",
            None => "not checked",
        };
        let detail = l.detail.as_deref().map(|d| format!(" ({})", clean(d))).unwrap_or_default();
        line("legacy", &format!("{} {verdict}{detail}", clean(&l.version)));
    }
    if let Some(e) = &o.error {
        line("error", &clean(e));
    }
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    let warnings = findings.iter().filter(|f| f.severity == Severity::Warning).count();
    let verdict = if errors + warnings == 0 {
        paint(GREEN, &format!("✓ healthy: {}", why_healthy(o)))
    } else if errors > 0 {
        paint(RED, &format!("✗ broken: {errors} error{}, {warnings} warning{} below", s(errors), s(warnings)))
    } else {
        paint(YELLOW, &format!("! at risk: {warnings} warning{} below", s(warnings)))
    };
    out.push_str(&wrapped("", &verdict, 2, w));
    out.push('\n');
    out
}

fn s(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Why an endpoint with no error or warning is healthy: each layer that worked, as the probe saw it.
fn why_healthy(o: &TargetObservation) -> String {
    let mut why = Vec::new();
    if let Some(d) = o.dns.iter().find(|d| !d.addresses.is_empty()) {
        why.push(format!(
            "{} resolves ({})",
            clean(&d.name),
            d.addresses.iter().map(|a| clean(a)).collect::<Vec<_>>().join(", ")
        ));
    }
    let connected = o.connects.iter().filter(|c| name(&c.outcome) == "connected").count();
    if connected > 0 {
        why.push(format!(
            "connects to {connected} of {} address{}",
            o.connects.len(),
            if o.connects.len() == 1 { "" } else { "es" }
        ));
    }
    if let Some(t) = o.tls.as_ref().filter(|t| t.outcome == HandshakeOutcome::Completed) {
        let leaf = t.chain.first().map(|c| format!(", valid until {}", date(c.not_after))).unwrap_or_default();
        let version = t.version.as_deref().map_or("TLS".into(), clean);
        why.push(if t.verified {
            format!("{version}, the chain verifies for {}{leaf}", clean(&t.verify_name))
        } else {
            format!("{version} handshake completes")
        });
    }
    if let Some(h) = o.http.iter().rev().find(|h| h.status.is_some()) {
        why.push(format!("{} answers {}", clean(&h.protocol), h.status.unwrap_or_default()));
    }
    if why.is_empty() {
        "no check found a fault in what the probe saw".into()
    } else {
        format!("{}; no check found a fault", why.join("; "))
    }
}
