//! `probe`: the data plane only. Observations become findings through the same catalogue as lint.

use std::net::IpAddr;

use anyhow::Context as _;
use edgecheck_core::{Graph, Inventory, Options};

use edgecheck_core::observation::TargetObservation;

use crate::cli::{ColorChoice, ProbeArgs, ProbeOpts};
use crate::config;

pub fn run(args: &ProbeArgs, color: ColorChoice) -> anyhow::Result<u8> {
    let loaded = config::discover(std::path::Path::new("."), args.check.config.as_deref(), args.check.no_config)?;
    let mut s = super::lint::settings(&args.check, args.format.into(), color, &loaded)?;
    s.style.verbose = args.verbose;
    let observations = probe(&args.targets, &args.probe, s.now)?;
    let options = Options::default();
    let graph = Graph::build(Inventory::default(), &options);
    let analysis = edgecheck_checks::analyze(
        &graph,
        &options,
        s.now,
        &s.selection,
        &s.suppressions,
        &observations,
        edgecheck_checks::diagnose::Diagnose::Nothing,
    );
    super::lint::emit_with(&graph, &analysis, &s, Some(&observations))
}

/// Probes `targets` with the probe options; saves the observations when asked.
pub fn probe(targets: &[String], p: &ProbeOpts, now: i64) -> anyhow::Result<Vec<TargetObservation>> {
    let mut opts = edgecheck_probe::ProbeOptions {
        cacert: p.cacert.clone(),
        sni: p.sni.clone(),
        alpn: p.alpn.clone(),
        timeout: p.timeout,
        dns_server: p.dns_server.clone(),
        concurrency: p.concurrency.max(1),
        grpc: p.grpc,
        legacy: p.legacy,
        max_redirects: p.max_redirects,
        now: Some(now),
        ..edgecheck_probe::ProbeOptions::default()
    };
    for r in &p.resolve {
        opts.resolve.push(parse_resolve(r)?);
    }
    if let Some(ca) = &opts.cacert {
        edgecheck_load::read::check_regular_file(ca, edgecheck_load::DEFAULT_MAX_FILE_SIZE)
            .map_err(|e| anyhow::anyhow!("--cacert {}: {e}", ca.display()))?;
    }
    let observations = edgecheck_probe::probe_blocking(targets, &opts);
    if let Some(path) = &p.save_observations {
        let text = serde_json::to_string_pretty(&observations)?;
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(observations)
}

/// curl's `HOST:PORT:ADDR` (ADDR may be `[v6]`).
pub fn parse_resolve(s: &str) -> anyhow::Result<(String, u16, IpAddr)> {
    let bad = || anyhow::anyhow!("--resolve `{s}`: expected HOST:PORT:ADDR");
    let (host, rest) = s.split_once(':').ok_or_else(bad)?;
    let (port, addr) = rest.split_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    let addr: IpAddr = addr.trim_start_matches('[').trim_end_matches(']').parse().map_err(|_| bad())?;
    Ok((host.to_string(), port, addr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve() {
        assert_eq!(parse_resolve("shop.example.com:443:127.0.0.1").unwrap().1, 443);
        assert_eq!(parse_resolve("a:8443:[::1]").unwrap().2, "::1".parse::<IpAddr>().unwrap());
        assert!(parse_resolve("a:443").is_err());
    }
}
