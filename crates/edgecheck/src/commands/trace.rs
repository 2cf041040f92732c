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
    let s = settings(&args.check, args.format.into(), color, cfg)?;

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
        let (inventory, errors) = edgecheck_load::load_paths(&args.from, &load_opts);
        for e in &errors {
            eprintln!("edgecheck: {e}");
        }
        if errors.len() == args.from.len() || super::lint::nothing_read(&inventory, &args.from) {
            return Ok(2);
        }
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
    let analysis = edgecheck_checks::analyze(
        &graph,
        &options,
        s.now,
        &s.selection,
        &s.suppressions,
        &observations,
        diagnose::Diagnose::Targets(targets),
    );
    let diagnoses = &analysis.diagnoses;
    let mut summary = analysis.summary(&graph);
    summary.targets = observations.len();
    let objects = analysis.object_entries(&graph);
    let report = Report {
        findings: &analysis.findings,
        objects: &objects,
        summary: &summary,
        version: env!("CARGO_PKG_VERSION"),
        group_by_object: false,
        diagnoses,
        trace: true,
    };
    super::write_stdout(&edgecheck_report::render(&report, s.format, s.color))?;
    // The exit code follows the traced path: its findings at the fail level.
    let failed = s.fail_on.is_some_and(|threshold| {
        diagnoses.iter().any(|d| {
            d.verdict != Verdict::Ok
                && d.nodes
                    .iter()
                    .flat_map(|n| n.findings.iter())
                    .any(|&fi| analysis.findings.get(fi).is_some_and(|f| f.severity.reaches(threshold)))
        })
    });
    Ok(u8::from(failed))
}
