//! `trace`: one URL through every layer. Objects from files (`--from`) or a cluster, the probe's
//! observations (live, replayed with `--observations`, or none with `--no-probe`), the whole
//! catalogue over both, then the diagnosis of that URL: the path tree and the root cause first.

use std::path::PathBuf;

use anyhow::Context as _;
use edgecheck_checks::diagnose::{self, TraceTarget, Verdict};
use edgecheck_core::observation::TargetObservation;
use edgecheck_core::Graph;
use edgecheck_report::Report;

use crate::cli::{ColorChoice, TraceArgs};
use crate::commands::lint::settings;
use crate::config;

pub fn run(args: &TraceArgs, color: ColorChoice) -> anyhow::Result<u8> {
    let Some(target) = TraceTarget::parse(&args.url) else {
        anyhow::bail!(
            "`{}` is not a URL edgecheck can trace (https://host[:port]/path, http://, grpc://, grpcs://)",
            args.url
        );
    };
    let start = args.from.iter().find(|p| p.as_os_str() != "-").cloned().unwrap_or_else(|| PathBuf::from("."));
    let loaded = config::discover(&start, args.check.config.as_deref(), args.check.no_config)?;
    let cfg = &loaded.options;
    let s = settings(&args.check, args.format.into(), color, &loaded)?;

    let (graph, options) = if args.from.is_empty() {
        match super::scan::scan_graph(&args.cluster, args.inventory.namespace.clone(), &args.inventory, cfg) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("edgecheck: {e}");
                eprintln!("edgecheck: to trace without a cluster, give the objects with --from PATH");
                return Ok(2);
            }
        }
    } else {
        let load_opts = super::lint::load_options(&loaded, args.max_file_size)?;
        let render_opts = super::builds::options(&args.render, &args.inventory, &loaded)?;
        let (inventory, errors) = edgecheck_load::load_paths(&args.from, &load_opts);
        for e in &errors {
            eprintln!("edgecheck: {e}");
        }
        if errors.len() == args.from.len() || super::lint::nothing_read(&inventory, &args.from) {
            return Ok(2);
        }
        let inventory = super::builds::apply(inventory, &args.render, &render_opts)?;
        let options = super::inventory::options(&args.inventory, cfg, None);
        (Graph::build(inventory, &options), options)
    };

    let observations: Vec<TargetObservation> = if let Some(path) = &args.observations {
        let text = edgecheck_load::read::read_regular_file(path, edgecheck_load::DEFAULT_MAX_FILE_SIZE)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let text = String::from_utf8_lossy(&text);
        serde_json::from_str(&text).with_context(|| format!("{}: not saved observations", path.display()))?
    } else if args.no_probe {
        Vec::new()
    } else {
        super::probe::probe(std::slice::from_ref(&args.url), &args.probe, s.now)?
    };

    let targets = std::slice::from_ref(&target);
    let mut analysis = edgecheck_checks::analyze(
        &graph,
        &options,
        s.now,
        &s.selection,
        &s.suppressions,
        &observations,
        diagnose::Diagnose::Targets(targets),
    );
    // As `lint` does: a finding at a chart template or a kustomize-built field names the values or the patch.
    edgecheck_render::annotate_sources(&graph.rendered, &mut analysis.findings);
    let diagnoses = &analysis.diagnoses;
    let mut summary = analysis.summary(&graph);
    summary.targets = observations.len();
    let objects = analysis.object_entries(&graph);
    let render_tools = super::builds::tools(&graph.rendered);
    let report = Report {
        findings: &analysis.findings,
        objects: &objects,
        summary: &summary,
        version: env!("CARGO_PKG_VERSION"),
        render_tools: &render_tools,
        group_by_object: false,
        diagnoses,
        trace: true,
        observations: &[],
    };
    super::write_output(&edgecheck_report::render_styled(&report, s.format, &s.style), s.output_file.as_deref())?;
    // A host no object claims is an answer to a different question: say so, with the hosts that are.
    if diagnoses.first().is_some_and(|d| d.verdict == Verdict::Unclaimed) {
        let claimed: Vec<String> =
            diagnose::ClaimIndex::build(&graph, &analysis.model).hosts().into_iter().map(|t| t.host).collect();
        eprintln!("edgecheck: {}", not_claimed(&target.host, &claimed));
        // Exit 1, as a broken path is, unless `--fail-on never`.
        return Ok(u8::from(s.fail_on.is_some()));
    }
    // The exit code follows the traced path: its findings at the fail level. A host whose claim is unknown
    // (a kind that could claim it was not listed) is not a pass either.
    let failed = s.fail_on.is_some_and(|threshold| {
        diagnoses.iter().any(|d| {
            d.verdict == Verdict::Unknown
                || d.verdict != Verdict::Ok
                    && d.nodes
                        .iter()
                        .flat_map(|n| n.findings.iter())
                        .any(|&fi| analysis.findings.get(fi).is_some_and(|f| f.severity.reaches(threshold)))
        })
    });
    Ok(u8::from(failed))
}

/// "`host` is not claimed", with the claimed hosts nearest to it.
fn not_claimed(host: &str, claimed: &[String]) -> String {
    let host = edgecheck_core::redact::controls(host);
    if claimed.is_empty() {
        return format!("{host} is not claimed by any object (the inventory claims no host)");
    }
    let near = nearest(&host, claimed, 3);
    format!("{host} is not claimed by any object; the nearest claimed: {}", near.join(", "))
}

/// The `n` hosts of `claimed` nearest to `host`: most trailing labels shared first (the same zone),
/// then the fewest edits (a typo).
fn nearest(host: &str, claimed: &[String], n: usize) -> Vec<String> {
    let labels: Vec<&str> = host.rsplit('.').collect();
    let shared = |c: &str| c.rsplit('.').zip(&labels).take_while(|(a, b)| a == *b).count();
    let mut ranked: Vec<(std::cmp::Reverse<usize>, usize, &String)> =
        claimed.iter().map(|c| (std::cmp::Reverse(shared(c)), edit_distance(host, c), c)).collect();
    // A typo of the whole name beats a shared zone.
    ranked.sort_by_key(|&(sh, d, c)| (d > 2, if d > 2 { sh } else { std::cmp::Reverse(0) }, d, c));
    ranked.into_iter().take(n).map(|(_, _, c)| c.clone()).collect()
}

/// Levenshtein distance over bytes (host names are ASCII once normalised).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_claimed_hosts_typos_first_then_the_same_zone() {
        let claimed: Vec<String> =
            ["api.example.com", "shop.example.com", "grafana.lab.internal", "www.example.org"].map(String::from).into();
        assert_eq!(nearest("shop.exmple.com", &claimed, 2), ["shop.example.com", "api.example.com"]);
        assert_eq!(nearest("billing.example.com", &claimed, 2), ["api.example.com", "shop.example.com"]);
        assert_eq!(nearest("prometheus.lab.internal", &claimed, 1), ["grafana.lab.internal"]);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert!(not_claimed("x.example", &[]).contains("claims no host"));
    }
}
