//! `lint`: files and dumps.

use std::path::PathBuf;

use edgecheck_checks::{Selection, Suppression};
use edgecheck_core::{Graph, Inventory, LoadProblemKind, Severity};
use edgecheck_report::{Format, Report};

use crate::cli::{CheckArgs, ColorChoice, FailOn, LintArgs};
use crate::config;

/// Everything the check-running commands share, resolved from CLI and config.
pub struct Settings {
    pub selection: Selection,
    pub suppressions: Vec<Suppression>,
    pub fail_on: Option<Severity>,
    pub now: i64,
    pub format: Format,
    /// How text is laid out (colour, width, snippets).
    pub style: edgecheck_report::Style,
    /// `--output-file`: the report goes there instead of stdout.
    pub output_file: Option<PathBuf>,
}

/// The settings of a run: `format` and `color` are the command's, the rest the shared flags over the config.
pub fn settings(
    args: &CheckArgs,
    format: Format,
    color: ColorChoice,
    loaded: &config::Loaded,
) -> anyhow::Result<Settings> {
    let cfg = &loaded.options;
    let file = loaded.path.as_ref().map(|p| p.display().to_string());
    let mut selection = Selection {
        select: cfg.select.clone().unwrap_or_default(),
        unused_ignores: args.show_unused_ignores,
        ..Selection::default()
    };
    let mut suppressions = Vec::new();
    for e in cfg.ignore.iter().flatten() {
        match e.parse()? {
            (code, None | Some(config::Scoped { object: None, .. })) => selection.ignore.push(code),
            (code, Some(config::Scoped { object, reason, .. })) => {
                // A scoped code is checked as every selector is: one that names no check is an error.
                if !Selection::names_any(&code) {
                    anyhow::bail!(
                        "config ignore `{code}`: names no check, code prefix or layer (see `edgecheck checks`)"
                    );
                }
                suppressions.push(Suppression { code, object, reason, file: file.clone() });
            }
        }
    }
    if !args.select.is_empty() {
        selection.select = args.select.clone();
    }
    selection.ignore.extend(args.ignore.iter().cloned());
    if let Some(u) = selection.unknown().first() {
        anyhow::bail!("{u}");
    }
    let fail_on = match args.fail_on {
        Some(f) => f,
        None => match cfg.fail_on.as_deref() {
            None | Some("error") => FailOn::Error,
            Some("warning") => FailOn::Warning,
            Some("info") => FailOn::Info,
            Some("never") => FailOn::Never,
            Some(other) => anyhow::bail!("config fail-on `{other}`: expected error, warning, info or never"),
        },
    };
    let fail_on = match fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Info => Some(Severity::Info),
        FailOn::Never => None,
    };
    let now = match &args.now {
        Some(t) => {
            edgecheck_core::cert::parse_time(t).ok_or_else(|| anyhow::anyhow!("--now `{t}` is not an RFC 3339 time"))?
        }
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX)),
    };
    // A report written to a file is not shown on this terminal: no colour unless asked for, the default width.
    let to_file = args.output_file.is_some();
    let color = matches!(format, Format::Text | Format::Concise)
        && if to_file { color == ColorChoice::Always } else { color.enabled() };
    let width = if to_file { edgecheck_report::DEFAULT_WIDTH } else { super::terminal_width() };
    let style = edgecheck_report::Style { color, width, snippets: !args.no_snippets, verbose: false };
    Ok(Settings { selection, suppressions, fail_on, now, format, style, output_file: args.output_file.clone() })
}

pub fn run(args: &LintArgs, color: ColorChoice) -> anyhow::Result<u8> {
    if args.diff_base.is_some() {
        return super::diff::run(args, color);
    }
    // A baseline that does not parse is bad usage: said before anything is linted.
    let baseline = args.baseline.as_deref().map(super::diff::read_baseline).transpose()?;
    let format: Format = args.format.into();
    let mut parts = lint_parts(args, &args.paths, color, None)?;
    if parts.is_empty() {
        return Ok(2);
    }
    if let Some(file) = &args.write_baseline {
        return super::diff::write_baseline(file, &parts);
    }
    if let Some(baseline) = &baseline {
        super::diff::apply_baseline(&mut parts, baseline);
    }
    if parts.len() == 1 {
        let part = parts.swap_remove(0);
        let code = emit_part(&part);
        // The graph is large and the process is about to end: let the OS reclaim it instead of freeing
        // every node (a tenth of a large lint).
        std::mem::forget(part);
        return code;
    }
    let exit = parts.iter().any(Part::failed);
    emit_parts(&parts, format)?;
    Ok(u8::from(exit))
}

/// Lints `paths`: a part per root, or per cluster its builds target (none when nothing could be read),
/// each finding scoped to its root and cluster. `base` is set when `paths` are a base revision's worktree
/// (`--diff-base`): each root's configuration is then the working tree's.
pub(super) fn lint_parts(
    args: &LintArgs,
    paths: &[PathBuf],
    color: ColorChoice,
    base: Option<&super::diff::Worktree>,
) -> anyhow::Result<Vec<Part>> {
    let groups = if args.merge { vec![paths.to_vec()] } else { super::roots::split(paths) };
    // Several repositories: each is linted on its own (its configuration, its inventory) and reported as
    // a part of its own; so is each cluster a repository's builds target. The exit code is the worst part's.
    let mut parts: Vec<Part> = Vec::new();
    for g in &groups {
        // A root that reads nothing says why on stderr; the others are still reported.
        let mut group = lint_group(args, g, color, base)?;
        if groups.len() > 1 {
            let root = g.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
            group.iter_mut().for_each(|p| p.root = Some(root.clone()));
        }
        parts.extend(group);
    }
    for p in &mut parts {
        p.scope_findings();
    }
    Ok(parts)
}

/// One inventory linted (a root, or one cluster of it): its graph, analysis and settings.
pub(super) struct Part {
    pub(super) label: String,
    /// The root it is, when the run has several.
    pub(super) root: Option<String>,
    /// The cluster it is, when the builds name one.
    pub(super) cluster: Option<String>,
    pub(super) graph: Graph,
    pub(super) analysis: edgecheck_checks::Analysis,
    pub(super) settings: Settings,
}

impl Part {
    pub(super) fn failed(&self) -> bool {
        self.settings.fail_on.is_some_and(|t| self.analysis.findings.iter().any(|f| f.severity.reaches(t)))
    }

    /// Its root and cluster on each finding and diagnosis (JSON's flat `root` and `cluster`).
    fn scope_findings(&mut self) {
        for f in &mut self.analysis.findings {
            f.root.clone_from(&self.root);
            f.cluster.clone_from(&self.cluster);
        }
        for d in &mut self.analysis.diagnoses {
            d.root.clone_from(&self.root);
            d.cluster.clone_from(&self.cluster);
        }
    }

    /// `objects[]`, with its root and cluster: made as the report is written (none for a format that does
    /// not show it).
    pub(super) fn objects(&self, format: Format) -> PartObjects<'_> {
        PartObjects { part: self, listed: format.lists_objects() }
    }
}

/// A part's `objects[]`, entry by entry (a large lint does not hold the list).
pub(super) struct PartObjects<'a> {
    part: &'a Part,
    listed: bool,
}

impl std::fmt::Debug for PartObjects<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartObjects").field("label", &self.part.label).field("listed", &self.listed).finish()
    }
}

/// Several parts' `objects[]`, in part order.
#[derive(Debug)]
struct PartsObjects<'a>(Vec<PartObjects<'a>>);

impl edgecheck_report::ObjectSource for PartsObjects<'_> {
    fn each(&self, f: &mut dyn FnMut(&edgecheck_checks::ObjectEntry)) {
        self.0.iter().for_each(|p| edgecheck_report::ObjectSource::each(p, f));
    }
}

impl edgecheck_report::ObjectSource for PartObjects<'_> {
    fn each(&self, f: &mut dyn FnMut(&edgecheck_checks::ObjectEntry)) {
        if !self.listed {
            return;
        }
        let p = self.part;
        p.analysis.each_object_entry(&p.graph, |mut o| {
            o.root.clone_from(&p.root);
            o.cluster.clone_from(&p.cluster);
            f(&o);
        });
    }
}

/// Lints one group: one part, or one per cluster when its builds target several (docs/design.md "Builds");
/// none when it read nothing (the reasons are on stderr). `EDGECHECK_TIMINGS` prints each phase's time and
/// the peak RSS after it.
fn lint_group(
    args: &LintArgs,
    paths: &[PathBuf],
    color: ColorChoice,
    base: Option<&super::diff::Worktree>,
) -> anyhow::Result<Vec<Part>> {
    let first = paths.iter().find(|p| p.as_os_str() != "-").cloned().unwrap_or_else(|| PathBuf::from("."));
    let loaded = match base {
        None => config::discover(&first, args.check.config.as_deref(), args.check.no_config)?,
        // The working tree's configuration, found as for the working tree's copy of this root, and placed
        // in the worktree (its directory anchors `repo-urls` and relative tool paths).
        Some(wt) => {
            let head = config::discover(&wt.to_head(&first), args.check.config.as_deref(), args.check.no_config)?;
            config::Loaded { options: head.options, path: head.path.map(|p| wt.to_base(&p)), explicit: head.explicit }
        }
    };
    let settings = settings(&args.check, args.format.into(), color, &loaded)?;
    let load_opts = load_options(&loaded, args.max_file_size)?;
    let timings = std::env::var_os("EDGECHECK_TIMINGS").is_some();
    let t0 = std::time::Instant::now();
    let render_opts = super::builds::options(&args.render, &args.inventory, &loaded)?;
    let (inventory, errors) = edgecheck_load::load_paths(paths, &load_opts);
    let t_read = t0.elapsed();
    for e in &errors {
        eprintln!("edgecheck: {e}");
    }
    if errors.len() == paths.len() || nothing_read(&inventory, paths) {
        return Ok(Vec::new());
    }
    let inventory = super::builds::apply(inventory, &args.render, &render_opts)?;
    let label = paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
    // Builds for several clusters: each cluster is an inventory of its own, checked apart (the builds no
    // cluster claims, and the files of no cluster's tree, are in each).
    if render_opts.cluster.is_none() && inventory.clusters.len() > 1 && !args.merge {
        let mut parts = Vec::new();
        for c in &inventory.clusters {
            let opts = edgecheck_render::RenderOptions { cluster: Some(c.clone()), ..render_opts.clone() };
            let (again, _) = edgecheck_load::load_paths(paths, &load_opts);
            let inv = edgecheck_render::render(again, &opts);
            let settings = self::settings(&args.check, args.format.into(), color, &loaded)?;
            let mut part = analyze(args, &loaded, inv, settings, format!("{label} · cluster {c}"));
            part.cluster = Some(c.clone());
            parts.push(part);
        }
        return Ok(parts);
    }
    let one_cluster = match inventory.clusters.as_slice() {
        [c] => Some(c.clone()),
        _ => render_opts.cluster.clone(),
    };
    if timings {
        eprintln!(
            "timings: load {:?} (read {t_read:?}, builds {:?}); peak RSS after load {}",
            t0.elapsed(),
            t0.elapsed() - t_read,
            peak_rss()
        );
    }
    let mut part = analyze(args, &loaded, inventory, settings, label);
    part.cluster = one_cluster;
    Ok(vec![part])
}

/// One inventory's graph and analysis (`EDGECHECK_TIMINGS` prints each phase's time and the peak RSS after
/// it).
fn analyze(args: &LintArgs, loaded: &config::Loaded, inventory: Inventory, settings: Settings, label: String) -> Part {
    let t0 = std::time::Instant::now();
    let options = super::inventory::options(&args.inventory, &loaded.options, None);
    let graph = Graph::build(inventory, &options);
    let (t_graph, m_graph) = (t0.elapsed(), peak_rss());
    let mut analysis = edgecheck_checks::analyze(
        &graph,
        &options,
        settings.now,
        &settings.selection,
        &settings.suppressions,
        &[],
        edgecheck_checks::diagnose::Diagnose::Hosts,
    );
    // A finding at a chart template's line names where the values it reads are set.
    edgecheck_render::annotate_sources(&graph.rendered, &mut analysis.findings);
    if std::env::var_os("EDGECHECK_TIMINGS").is_some() {
        eprintln!("timings: graph {t_graph:?}, model+checks {:?}", t0.elapsed() - t_graph);
        eprintln!("peak RSS after: graph {m_graph}, model+checks {}", peak_rss());
    }
    Part { label, root: None, cluster: None, graph, analysis, settings }
}

/// One part reported alone.
fn emit_part(p: &Part) -> anyhow::Result<u8> {
    let summary = p.analysis.summary(&p.graph);
    let objects = p.objects(p.settings.format);
    let render_tools = super::builds::tools(&p.graph.rendered);
    let report = Report {
        findings: &p.analysis.findings,
        objects: &objects,
        summary: &summary,
        version: env!("CARGO_PKG_VERSION"),
        render_tools: &render_tools,
        group_by_object: false,
        diagnoses: &p.analysis.diagnoses,
        trace: false,
        observations: &[],
    };
    let s = &p.settings;
    super::write_report(&report, s.format, &s.style, s.output_file.as_deref())?;
    Ok(u8::from(p.failed()))
}

/// Several parts: text and Markdown show each part under its root; the other formats get one document that
/// holds every part (findings in part order; diagnoses point at them).
fn emit_parts(parts: &[Part], format: Format) -> anyhow::Result<()> {
    let version = env!("CARGO_PKG_VERSION");
    let output_file = parts.first().and_then(|p| p.settings.output_file.as_deref());
    if matches!(format, Format::Text | Format::Markdown) {
        let color = format == Format::Text && parts.first().is_some_and(|p| p.settings.style.color);
        let mut out = String::new();
        let mut total = edgecheck_checks::Summary::default();
        for p in parts {
            let summary = p.analysis.summary(&p.graph);
            add(&mut total, &summary);
            let objects = p.objects(format);
            let render_tools = super::builds::tools(&p.graph.rendered);
            let report = Report {
                findings: &p.analysis.findings,
                objects: &objects,
                summary: &summary,
                version,
                render_tools: &render_tools,
                group_by_object: false,
                diagnoses: &p.analysis.diagnoses,
                trace: false,
                observations: &[],
            };
            let label = edgecheck_core::redact::controls(&p.label).into_owned();
            out.push_str(&if format == Format::Text {
                format!("══ {label} {}\n", "═".repeat(60usize.saturating_sub(label.chars().count())))
            } else {
                format!("# {label}\n\n")
            });
            let style = edgecheck_report::Style { color, ..p.settings.style };
            out.push_str(&edgecheck_report::render_styled(&report, format, &style));
            out.push('\n');
        }
        let clusters = parts.iter().map(|p| &p.cluster).collect::<std::collections::HashSet<_>>().len();
        let roots = parts.iter().map(|p| &p.root).collect::<std::collections::HashSet<_>>().len();
        let what = match (roots == parts.len(), clusters == parts.len()) {
            (true, _) => "roots",
            (false, true) => "clusters",
            _ => "parts",
        };
        out.push_str(&format!(
            "{} {what}: {} error{}, {} warning{}, {} info{} in {} objects from {} files\n",
            parts.len(),
            total.errors,
            if total.errors == 1 { "" } else { "s" },
            total.warnings,
            if total.warnings == 1 { "" } else { "s" },
            total.infos,
            if total.infos == 1 { "" } else { "s" },
            total.objects,
            total.files
        ));
        return super::write_output(&out, output_file);
    }
    let mut findings = Vec::new();
    let mut diagnoses = Vec::new();
    let mut objects = PartsObjects(Vec::new());
    let mut total = edgecheck_checks::Summary::default();
    let mut rendered = Vec::new();
    for p in parts {
        rendered.extend(p.graph.rendered.iter().cloned());
        let offset = findings.len();
        findings.extend(p.analysis.findings.iter().cloned());
        diagnoses.extend(p.analysis.diagnoses.iter().cloned().map(|mut d| {
            d.shift_findings(offset);
            d
        }));
        objects.0.push(p.objects(format));
        add(&mut total, &p.analysis.summary(&p.graph));
    }
    let render_tools = super::builds::tools(&rendered);
    let report = Report {
        findings: &findings,
        objects: &objects,
        summary: &total,
        version,
        render_tools: &render_tools,
        group_by_object: false,
        diagnoses: &diagnoses,
        trace: false,
        observations: &[],
    };
    let style = parts.first().map(|p| p.settings.style).unwrap_or_default();
    super::write_report(&report, format, &edgecheck_report::Style { color: false, ..style }, output_file)
}

pub(super) fn add(total: &mut edgecheck_checks::Summary, s: &edgecheck_checks::Summary) {
    total.objects += s.objects;
    total.errors += s.errors;
    total.warnings += s.warnings;
    total.infos += s.infos;
    total.suppressed += s.suppressed;
    total.files += s.files;
    total.skipped_documents += s.skipped_documents;
    total.skipped_templates += s.skipped_templates;
    total.builds += s.builds;
    total.builds_not_rendered += s.builds_not_rendered;
    total.rendered_objects += s.rendered_objects;
    total.loose_objects += s.loose_objects;
}

/// The loader's options: the config's `repo-urls` (for the checkout the config sits in, and, when it was named
/// with `--config`, for a linted checkout outside it) and the file size limit (the flag, else the config's
/// `max-file-size`, else 64 MiB).
pub fn load_options(
    loaded: &config::Loaded,
    max_file_size: Option<u64>,
) -> anyhow::Result<edgecheck_load::LoadOptions> {
    let mut load_opts = edgecheck_load::LoadOptions::default();
    if let (Some(urls), Some(path)) = (&loaded.options.repo_urls, &loaded.path) {
        let dir = path.parent().map(PathBuf::from).unwrap_or_default();
        for u in urls {
            load_opts.repo_urls.push((dir.clone(), u.clone()));
        }
        // A configuration named with `--config` from elsewhere: its URLs are the linted checkout's.
        if loaded.explicit {
            load_opts.checkout_urls.clone_from(urls);
        }
    }
    load_opts.max_file_size = match (max_file_size, &loaded.options.max_file_size) {
        (Some(n), _) => n,
        (None, Some(size)) => size.bytes()?,
        (None, None) => edgecheck_load::DEFAULT_MAX_FILE_SIZE,
    };
    Ok(load_opts)
}

/// No file could be read (none found, or every one unreadable): says why on stderr and returns true, for
/// exit 2. A file that was read but does not parse counts as read (LOD001).
pub fn nothing_read(inv: &Inventory, paths: &[PathBuf]) -> bool {
    if inv.files > 0 {
        return false;
    }
    let unreadable: Vec<_> = inv
        .problems
        .iter()
        .filter(|p| matches!(p.kind, LoadProblemKind::Unreadable | LoadProblemKind::Binary))
        .collect();
    for p in &unreadable {
        let file = edgecheck_core::redact::controls(&p.file);
        eprintln!("edgecheck: {file}: {}", edgecheck_core::redact::controls(&p.message));
    }
    if unreadable.is_empty() {
        let templates = match inv.skipped_templates {
            0 => String::new(),
            n => format!(" ({n} Helm chart template{} skipped)", if n == 1 { "" } else { "s" }),
        };
        for p in paths.iter().filter(|p| p.is_dir()) {
            let p = p.to_string_lossy();
            eprintln!(
                "edgecheck: {}: no manifest (.yaml, .yml, .json) found{templates}",
                edgecheck_core::redact::controls(&p)
            );
        }
    }
    eprintln!("edgecheck: nothing to check: no file could be read");
    true
}

/// The process's peak resident set so far (`VmHWM`), for `EDGECHECK_TIMINGS`; `?` where unknown.
fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("VmHWM:").map(|v| v.trim().to_string())))
        .unwrap_or_else(|| "?".into())
}

pub fn emit(graph: &Graph, analysis: &edgecheck_checks::Analysis, s: &Settings) -> anyhow::Result<u8> {
    emit_with(graph, analysis, s, None)
}

/// Renders and returns the exit code; `observations` (probe) groups text by endpoint and counts them.
pub fn emit_with(
    graph: &Graph,
    analysis: &edgecheck_checks::Analysis,
    s: &Settings,
    observations: Option<&[edgecheck_core::observation::TargetObservation]>,
) -> anyhow::Result<u8> {
    let mut summary = analysis.summary(graph);
    summary.targets = observations.map_or(0, <[_]>::len);
    let by_target = observations.is_some();
    let objects = analysis.object_entries(graph);
    let render_tools = super::builds::tools(&graph.rendered);
    let report = Report {
        findings: &analysis.findings,
        objects: &objects,
        summary: &summary,
        version: env!("CARGO_PKG_VERSION"),
        render_tools: &render_tools,
        group_by_object: by_target,
        diagnoses: &analysis.diagnoses,
        trace: false,
        observations: observations.unwrap_or_default(),
    };
    super::write_report(&report, s.format, &s.style, s.output_file.as_deref())?;
    let failed = s.fail_on.is_some_and(|t| analysis.findings.iter().any(|f| f.severity.reaches(t)));
    Ok(u8::from(failed))
}
