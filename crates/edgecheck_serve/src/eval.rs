//! One evaluation: the store's inventory and the latest probe of each claimed host through the same
//! engine call as `trace` (`analyze` with the observations and `Diagnose::Targets` of the claimed
//! hosts, so probe and objects are joined by the engine's one join), reduced to what the endpoints
//! serve: the per-host verdicts and certificates for `/metrics`, and the rendered reports.

use std::collections::{BTreeMap, BTreeSet};

use edgecheck_checks::diagnose::{ClaimIndex, Diagnose, TraceTarget, Verdict};
use edgecheck_checks::model::Model;
use edgecheck_checks::{Selection, Suppression};
use edgecheck_core::observation::{ConnectOutcome, DnsOutcome, HandshakeOutcome, HttpOutcome, TargetObservation};
use edgecheck_core::{Graph, Inventory, Layer, Options};
use edgecheck_report::{Format, Report, Style};

/// What the engine runs with (the CLI's selection, suppressions and options).
#[derive(Debug, Clone)]
pub struct Engine {
    /// Checks selected.
    pub selection: Selection,
    /// Suppressions from the config.
    pub suppressions: Vec<Suppression>,
    /// The engine's options; `complete` `None` is decided per evaluation (every kind read in every
    /// namespace).
    pub options: Options,
    /// A pinned clock (Unix seconds) for tests; else now.
    pub now: Option<i64>,
}

impl Engine {
    /// The time certificates are judged by.
    pub fn now(&self) -> i64 {
        self.now.unwrap_or_else(unix_now)
    }

    /// The options of an inventory whose completeness is `complete`.
    pub fn options(&self, complete: bool) -> Options {
        let mut o = self.options.clone();
        o.complete = o.complete.or(Some(complete));
        o
    }
}

/// The time now, Unix seconds.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// One claimed host's state.
#[derive(Debug, Clone, PartialEq)]
pub struct HostState {
    /// The host.
    pub host: String,
    /// The target diagnosed (`https://host/`).
    pub target: String,
    /// Reachable end to end (the verdict is not broken).
    pub ok: bool,
    /// The earliest failing layer, or `none`.
    pub layer: &'static str,
    /// The verdict (`ok`, `at-risk`, `broken`).
    pub verdict: &'static str,
    /// (notBefore, notAfter) of the served leaf certificate.
    pub served: Option<(i64, i64)>,
    /// (notBefore, notAfter) of the leaf in the Secret the inventory routes the host to.
    pub secret: Option<(i64, i64)>,
}

/// A probe phase's last result of one host: (phase, seconds, success).
pub type Phase = (&'static str, f64, bool);

/// What an evaluation leaves for the endpoints.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Per claimed host, by host name.
    pub hosts: Vec<HostState>,
    /// Findings by (code, severity).
    pub findings: BTreeMap<(String, &'static str), usize>,
    /// The claimed targets (what the probe loop probes and `/trace` accepts).
    pub targets: Vec<TraceTarget>,
    /// The claimed host names.
    pub claimed: BTreeSet<String>,
    /// Per host, the phases of its last probe.
    pub probes: BTreeMap<String, Vec<Phase>>,
    /// `/report.json`.
    pub json: String,
    /// `/report`.
    pub html: String,
    /// Seconds the evaluation took.
    pub duration: f64,
    /// When it finished, Unix seconds.
    pub timestamp: f64,
}

/// Evaluates an inventory with the observations of the last probes. Blocking (the engine runs on rayon).
pub fn evaluate(inventory: Inventory, complete: bool, engine: &Engine, observations: &[TargetObservation]) -> Snapshot {
    let start = std::time::Instant::now();
    let options = engine.options(complete);
    let now = engine.now();
    let graph = Graph::build(inventory, &options);
    let targets = claimed_targets(&graph, now);
    // Only the probes of hosts claimed now: a host no longer claimed is no endpoint to report.
    let observations: Vec<TargetObservation> =
        observations.iter().filter(|o| targets.iter().any(|t| observed_for(o, t))).cloned().collect();
    let observations = observations.as_slice();
    let analysis = edgecheck_checks::analyze(
        &graph,
        &options,
        now,
        &engine.selection,
        &engine.suppressions,
        observations,
        Diagnose::Targets(&targets),
    );
    let mut hosts: Vec<HostState> = Vec::new();
    for d in &analysis.diagnoses {
        let obs = observations.iter().find(|o| observed_for(o, &d.target));
        let served =
            obs.and_then(|o| o.tls.as_ref()).and_then(|t| t.chain.first()).map(|c| (c.not_before, c.not_after));
        let secret = d.nodes.iter().filter_map(|n| n.object.as_ref()).filter(|r| r.kind == "Secret").find_map(|r| {
            let id = graph.find_kind(&r.group_kind(), r.namespace.as_deref(), &r.name)?;
            let leaf = graph.obj(id).secret.as_ref()?.certs.first()?.clone();
            Some((leaf.not_before, leaf.not_after))
        });
        let ok = d.verdict != Verdict::Broken;
        hosts.push(HostState {
            host: d.target.host.clone(),
            target: d.target.target.clone(),
            ok,
            layer: if ok { "none" } else { d.layer.map_or("unknown", layer_name) },
            verdict: d.verdict.as_str(),
            served,
            secret,
        });
    }
    hosts.sort_by(|a, b| a.host.cmp(&b.host));
    let mut findings: BTreeMap<(String, &'static str), usize> = BTreeMap::new();
    for f in &analysis.findings {
        *findings.entry((f.meta.code.to_string(), f.severity.as_str())).or_default() += 1;
    }
    let probes = observations.iter().map(|o| (edgecheck_core::hostname::normalize(&o.host), phases(o))).collect();
    let [json, html] = render(&graph, &analysis, observations.len(), false, [Format::Json, Format::Html]);
    let claimed = targets.iter().map(|t| t.host.clone()).collect();
    Snapshot {
        hosts,
        findings,
        targets,
        claimed,
        probes,
        json,
        html,
        duration: start.elapsed().as_secs_f64(),
        timestamp: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64()),
    }
}

/// One trace, as `edgecheck trace --format json` prints it: the inventory and the observation of the
/// URL through the engine with `Diagnose::Targets` of that one target.
pub fn trace(
    inventory: Inventory,
    complete: bool,
    engine: &Engine,
    target: &TraceTarget,
    observations: &[TargetObservation],
) -> String {
    let options = engine.options(complete);
    let graph = Graph::build(inventory, &options);
    let targets = std::slice::from_ref(target);
    let analysis = edgecheck_checks::analyze(
        &graph,
        &options,
        engine.now(),
        &engine.selection,
        &engine.suppressions,
        observations,
        Diagnose::Targets(targets),
    );
    let [json] = render(&graph, &analysis, observations.len(), true, [Format::Json]);
    json
}

/// One analysis rendered in `formats`, as the CLI renders it (`trace` for a trace's report), without colour or
/// snippets: nothing is read from files when a request comes.
fn render<const N: usize>(
    graph: &Graph,
    analysis: &edgecheck_checks::Analysis,
    targets: usize,
    trace: bool,
    formats: [Format; N],
) -> [String; N] {
    let mut summary = analysis.summary(graph);
    summary.targets = targets;
    let objects = analysis.object_entries(graph);
    let report = Report {
        findings: &analysis.findings,
        objects: &objects,
        summary: &summary,
        version: env!("CARGO_PKG_VERSION"),
        render_tools: &[],
        group_by_object: false,
        diagnoses: &analysis.diagnoses,
        trace,
        observations: &[],
    };
    let style = Style { color: false, snippets: false, ..Style::default() };
    formats.map(|f| edgecheck_report::render_styled(&report, f, &style))
}

/// Every exact host the inventory claims, as `lint` and `scan` list them.
fn claimed_targets(graph: &Graph, now: i64) -> Vec<TraceTarget> {
    let model = Model::compute(graph, now);
    ClaimIndex::build(graph, &model).hosts()
}

/// Whether an observation is of the target (host and port, as the engine joins them).
pub fn observed_for(o: &TargetObservation, t: &TraceTarget) -> bool {
    edgecheck_core::hostname::normalize(&o.host) == t.host && o.port == t.port
}

/// The metric's name of a layer (the contract's `application` for the app layer).
pub fn layer_name(l: Layer) -> &'static str {
    match l {
        Layer::App => "application",
        other => other.as_str(),
    }
}

/// The phases of one probe: (phase, seconds, success). Phases not reached are left out.
pub fn phases(o: &TargetObservation) -> Vec<Phase> {
    let mut out: Vec<Phase> = Vec::new();
    if let Some(d) = o.dns.first() {
        let ok = o.dns.iter().any(|d| matches!(d.outcome, DnsOutcome::Answer | DnsOutcome::Static));
        out.push(("dns", o.dns.iter().map(|d| d.ms).fold(d.ms, f64::max) / 1000.0, ok));
    }
    if !o.connects.is_empty() {
        let ok = o.connects.iter().any(|c| c.outcome == ConnectOutcome::Connected);
        out.push(("connect", o.connects.iter().map(|c| c.ms).sum::<f64>() / 1000.0, ok));
    }
    if let Some(t) = &o.tls {
        out.push(("tls", t.ms / 1000.0, t.outcome == HandshakeOutcome::Completed && t.verified));
    }
    if let Some(h) = o.http.first().or(o.h2c.as_ref()) {
        if h.outcome != HttpOutcome::Skipped {
            let ok = h.outcome == HttpOutcome::Response && h.status.is_some_and(|s| s < 500);
            out.push(("http", h.ms / 1000.0, ok));
        }
    }
    let all = o.error.is_none() && !out.is_empty() && out.iter().all(|p| p.2);
    out.push(("total", o.total_ms / 1000.0, all));
    out
}
