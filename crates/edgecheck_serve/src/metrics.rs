//! `/metrics`: the Prometheus text exposition format 0.0.4. Every metric is documented in
//! `docs/metrics.md`; label values are bounded by the inventory (claimed hosts, check codes, kinds,
//! layers, phases, HTTP status codes).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::eval::Snapshot;

/// Counters kept across evaluations.
#[derive(Debug, Default, Clone)]
pub struct Counters {
    /// Watch restarts per kind.
    pub watch_restarts: BTreeMap<String, u64>,
    /// API errors per (kind, code).
    pub api_errors: BTreeMap<(String, String), u64>,
    /// Probes per result (`ok`, `failed`).
    pub probes_ok: u64,
    /// Probes that failed.
    pub probes_failed: u64,
    /// Evaluations done.
    pub evaluations: u64,
}

/// Everything `/metrics` shows at one moment.
pub struct Exposition<'a> {
    /// The latest evaluation (none before the first).
    pub snapshot: Option<&'a Snapshot>,
    /// The counters.
    pub counters: &'a Counters,
    /// Objects per kind now.
    pub objects: &'a BTreeMap<String, usize>,
    /// Ready (first full sync and evaluation done).
    pub ready: bool,
}

/// A label value escaped as the format asks (`\`, `"`, newline).
fn esc(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

fn head(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn num(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else if v.is_nan() {
        "NaN".into()
    } else if v > 0.0 {
        "+Inf".into()
    } else {
        "-Inf".into()
    }
}

/// Renders the exposition.
pub fn render(e: &Exposition<'_>) -> String {
    let mut out = String::new();
    head(&mut out, "edgecheck_build_info", "gauge", "The edgecheck version serving these metrics (always 1).");
    let _ = writeln!(out, "edgecheck_build_info{{version=\"{}\"}} 1", esc(env!("CARGO_PKG_VERSION")));

    head(
        &mut out,
        "edgecheck_ready",
        "gauge",
        "1 after the first full sync of every watched kind and the first evaluation.",
    );
    let _ = writeln!(out, "edgecheck_ready {}", u8::from(e.ready));

    head(&mut out, "edgecheck_inventory_objects", "gauge", "Objects in the inventory per watched kind.");
    for (kind, n) in e.objects {
        let _ = writeln!(out, "edgecheck_inventory_objects{{kind=\"{}\"}} {n}", esc(kind));
    }

    let c = e.counters;
    head(&mut out, "edgecheck_watch_restarts_total", "counter", "Watches restarted after an error, per kind.");
    for (kind, n) in &c.watch_restarts {
        let _ = writeln!(out, "edgecheck_watch_restarts_total{{kind=\"{}\"}} {n}", esc(kind));
    }
    head(
        &mut out,
        "edgecheck_api_errors_total",
        "counter",
        "Failed API requests per kind and code (HTTP status or transport).",
    );
    for ((kind, code), n) in &c.api_errors {
        let _ = writeln!(out, "edgecheck_api_errors_total{{kind=\"{}\",code=\"{}\"}} {n}", esc(kind), esc(code));
    }
    head(
        &mut out,
        "edgecheck_probes_total",
        "counter",
        "Probes of claimed hosts, per result (ok: every phase succeeded).",
    );
    let _ = writeln!(out, "edgecheck_probes_total{{result=\"ok\"}} {}", c.probes_ok);
    let _ = writeln!(out, "edgecheck_probes_total{{result=\"failed\"}} {}", c.probes_failed);
    head(
        &mut out,
        "edgecheck_evaluations_total",
        "counter",
        "Evaluations of the inventory (checks and diagnoses) done.",
    );
    let _ = writeln!(out, "edgecheck_evaluations_total {}", c.evaluations);

    let Some(s) = e.snapshot else { return out };
    head(&mut out, "edgecheck_evaluation_duration_seconds", "gauge", "Wall time of the last evaluation.");
    let _ = writeln!(out, "edgecheck_evaluation_duration_seconds {}", num(s.duration));
    head(
        &mut out,
        "edgecheck_last_evaluation_timestamp_seconds",
        "gauge",
        "When the last successful evaluation finished (Unix time).",
    );
    let _ = writeln!(out, "edgecheck_last_evaluation_timestamp_seconds {}", num(s.timestamp));

    head(
        &mut out,
        "edgecheck_host_ok",
        "gauge",
        "Per claimed host: 1 when reachable end to end, 0 when broken; layer is the earliest failing layer (none when ok).",
    );
    for h in &s.hosts {
        let _ =
            writeln!(out, "edgecheck_host_ok{{host=\"{}\",layer=\"{}\"}} {}", esc(&h.host), h.layer, u8::from(h.ok));
    }
    head(
        &mut out,
        "edgecheck_certificate_expiry_timestamp_seconds",
        "gauge",
        "notAfter of the host's leaf certificate: source served (the probe's) or secret (the Secret the inventory routes the host to).",
    );
    for h in &s.hosts {
        for (source, dates) in [("served", h.served), ("secret", h.secret)] {
            if let Some((_, not_after)) = dates {
                let _ = writeln!(
                    out,
                    "edgecheck_certificate_expiry_timestamp_seconds{{host=\"{}\",source=\"{source}\"}} {not_after}",
                    esc(&h.host)
                );
            }
        }
    }
    head(
        &mut out,
        "edgecheck_certificate_not_before_timestamp_seconds",
        "gauge",
        "notBefore of the host's leaf certificate: source served or secret.",
    );
    for h in &s.hosts {
        for (source, dates) in [("served", h.served), ("secret", h.secret)] {
            if let Some((not_before, _)) = dates {
                let _ = writeln!(
                    out,
                    "edgecheck_certificate_not_before_timestamp_seconds{{host=\"{}\",source=\"{source}\"}} {not_before}",
                    esc(&h.host)
                );
            }
        }
    }
    head(&mut out, "edgecheck_findings", "gauge", "Findings of the latest evaluation per check code and severity.");
    for ((code, severity), n) in &s.findings {
        let _ = writeln!(out, "edgecheck_findings{{code=\"{}\",severity=\"{severity}\"}} {n}", esc(code));
    }
    head(
        &mut out,
        "edgecheck_probe_duration_seconds",
        "gauge",
        "Duration of each phase of the host's last probe (dns, connect, tls, http, total).",
    );
    for (host, phases) in &s.probes {
        for (phase, secs, _) in phases {
            let _ = writeln!(
                out,
                "edgecheck_probe_duration_seconds{{host=\"{}\",phase=\"{phase}\"}} {}",
                esc(host),
                num(*secs)
            );
        }
    }
    head(
        &mut out,
        "edgecheck_probe_success",
        "gauge",
        "Whether each phase of the host's last probe succeeded (1) or not (0).",
    );
    for (host, phases) in &s.probes {
        for (phase, _, ok) in phases {
            let _ =
                writeln!(out, "edgecheck_probe_success{{host=\"{}\",phase=\"{phase}\"}} {}", esc(host), u8::from(*ok));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::HostState;

    #[test]
    fn exposition_escapes_and_types_every_family() {
        let snap = Snapshot {
            hosts: vec![HostState {
                host: "a\"b\\c\n.example".into(),
                target: "https://x/".into(),
                ok: false,
                layer: "tls",
                verdict: "broken",
                served: Some((1, 2)),
                secret: None,
            }],
            ..Snapshot::default()
        };
        let counters = Counters { probes_failed: 3, ..Counters::default() };
        let objects = BTreeMap::from([("Ingress.networking.k8s.io".to_string(), 2usize)]);
        let text = render(&Exposition { snapshot: Some(&snap), counters: &counters, objects: &objects, ready: true });
        assert!(text.contains("edgecheck_host_ok{host=\"a\\\"b\\\\c\\n.example\",layer=\"tls\"} 0"), "{text}");
        assert!(text.contains(
            "edgecheck_certificate_expiry_timestamp_seconds{host=\"a\\\"b\\\\c\\n.example\",source=\"served\"} 2"
        ));
        assert!(!text.contains("source=\"secret\""));
        assert!(text.contains("edgecheck_probes_total{result=\"failed\"} 3"));
        assert!(text.contains("edgecheck_inventory_objects{kind=\"Ingress.networking.k8s.io\"} 2"));
        // Every sample's family has a TYPE line before it.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let name = line.split(['{', ' ']).next().unwrap_or_default();
            assert!(text.contains(&format!("# TYPE {name} ")), "{name}");
        }
        assert_eq!(num(f64::NAN), "NaN");
    }
}
