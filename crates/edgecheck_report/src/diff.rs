//! `lint --diff-base`: what a change introduces, what it fixes, and the hosts whose verdict it changes, as
//! text, Markdown and the JSON diff document (docs/design.md "JSON output"). The comparison is the CLI's
//! (by [`crate::fingerprints`]); this only renders it.

use std::fmt::Write as _;

use edgecheck_checks::Summary;
use edgecheck_core::{Finding, Layer, Severity};
use serde_json::{json, Value};

use crate::text::{BOLD, DIM, GREEN, RED, RESET};
use crate::Style;

/// One side of a host's change: its verdict (`None`: the side's inventory does not claim it), and where it
/// breaks and why when it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSide {
    /// `broken`, `at-risk`, `ok`, ... ([`edgecheck_checks::diagnose::Verdict::as_str`]); `None` when absent.
    pub verdict: Option<&'static str>,
    /// The earliest failing layer.
    pub layer: Option<Layer>,
    /// The root cause's code.
    pub code: Option<&'static str>,
}

/// A host whose verdict the change changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostChange {
    /// `https://shop.example.com/`.
    pub target: String,
    /// The cluster whose inventory claims it, when the builds name one.
    pub cluster: Option<String>,
    /// On the base revision.
    pub before: HostSide,
    /// In the working tree.
    pub after: HostSide,
}

impl HostChange {
    /// Whether the change makes it worse: a worse verdict, or the same bad one for another root cause.
    pub fn worse(&self) -> bool {
        let (before, after) = (rank(self.before.verdict), rank(self.after.verdict));
        after < before || (after == before && self.after.code.is_some() && self.after.code != self.before.code)
    }
}

/// Verdicts from worst to best.
fn rank(v: Option<&str>) -> u8 {
    match v {
        Some("broken") => 0,
        Some("at-risk") => 1,
        Some("unknown" | "unclaimed") => 2,
        // A host the change adds healthy, or removes, is no worse.
        Some(_) | None => 3,
    }
}

/// Everything the diff report shows.
#[derive(Debug, Clone, Copy)]
pub struct DiffReport<'a> {
    /// The base revision as given (`origin/main`).
    pub base_ref: &'a str,
    /// Its commit.
    pub base: &'a str,
    /// Findings of the working tree the base does not have.
    pub introduced: &'a [Finding],
    /// Findings of the base the working tree no longer has.
    pub fixed: &'a [Finding],
    /// Hosts whose verdict changes.
    pub hosts: &'a [HostChange],
    /// The working tree's counts (`suppressed` includes the baseline's).
    pub summary: &'a Summary,
    /// The edgecheck version.
    pub version: &'a str,
    /// The render tools of the working tree's builds.
    pub render_tools: &'a [String],
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn side_text(s: &HostSide) -> String {
    let mut out = s.verdict.unwrap_or("absent").to_string();
    if let Some(l) = s.layer.filter(|_| matches!(s.verdict, Some("broken" | "at-risk"))) {
        let _ = write!(out, " at {l}");
    }
    if let Some(c) = s.code {
        let _ = write!(out, " ({c})");
    }
    out
}

/// One line per host: `https://shop.example.com/: ok → broken at tls (TLS003)`.
fn host_line(h: &HostChange) -> String {
    let cluster = h.cluster.as_deref().map(|c| format!(" [cluster {c}]")).unwrap_or_default();
    let line = format!("{}{cluster}: {} → {}", h.target, side_text(&h.before), side_text(&h.after));
    edgecheck_core::redact::controls(&line).into_owned()
}

/// `N introduced (E errors, W warnings, I infos), N fixed, N hosts changed`.
fn counts(d: &DiffReport<'_>) -> String {
    let count = |s| d.introduced.iter().filter(|f| f.severity == s).count();
    let (e, w, i) = (count(Severity::Error), count(Severity::Warning), count(Severity::Info));
    let mut line = format!(
        "{} introduced ({e} error{}, {w} warning{}, {i} info{}), {} fixed, {} host{} changed",
        d.introduced.len(),
        plural(e),
        plural(w),
        plural(i),
        d.fixed.len(),
        d.hosts.len(),
        plural(d.hosts.len())
    );
    if d.summary.suppressed > 0 {
        let _ = write!(line, " ({} suppressed)", d.summary.suppressed);
    }
    line
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

/// Text: the sections `introduced`, `fixed` and `hosts changed`, then one line of counts.
pub fn render_diff_text(d: &DiffReport<'_>, style: &Style) -> String {
    let paint = |code: &'static str, s: &str| if style.color { format!("{code}{s}{RESET}") } else { s.to_string() };
    let mut out = String::new();
    let base_ref = edgecheck_core::redact::controls(d.base_ref);
    let _ = writeln!(out, "{}\n", paint(DIM, &format!("compared with {base_ref} ({})", short(d.base))));
    let heading = |title: &str, n: usize| paint(BOLD, &format!("══ {title} ({n}) {}", "═".repeat(40)));
    if !d.introduced.is_empty() {
        let _ = writeln!(out, "{}", heading("introduced", d.introduced.len()));
        push_block(&mut out, &crate::text::findings_block(d.introduced, style));
    }
    if !d.fixed.is_empty() {
        let _ = writeln!(out, "{}", heading("fixed", d.fixed.len()));
        // The base's files are gone (its worktree is removed): no snippets of them.
        push_block(&mut out, &crate::text::findings_block(d.fixed, &Style { snippets: false, ..*style }));
    }
    if !d.hosts.is_empty() {
        let _ = writeln!(out, "{}", heading("hosts changed", d.hosts.len()));
        for h in d.hosts {
            let (mark, color) = if h.worse() { ("✗", RED) } else { ("✓", GREEN) };
            let _ = writeln!(out, "{} {}", paint(color, mark), host_line(h));
        }
        out.push('\n');
    }
    let line = counts(d);
    let _ = writeln!(out, "{}", if d.introduced.is_empty() { line } else { paint(RED, &line) });
    out
}

/// A section's findings, then one blank line.
fn push_block(out: &mut String, block: &str) {
    out.push_str(block.trim_end_matches('\n'));
    out.push_str("\n\n");
}

/// Markdown for a pull-request comment: the counts, the hosts changed, then a table of each section.
pub fn render_diff_markdown(d: &DiffReport<'_>) -> String {
    let cell = |s: &str| edgecheck_core::redact::controls(s).replace('|', "\\|").replace('\n', " ");
    let mut out = String::new();
    let icon = if d.introduced.is_empty() { "✅" } else { "❌" };
    let _ = writeln!(out, "## {icon} edgecheck: {}\n", counts(d));
    let _ = writeln!(out, "Compared with `{}` ({}).\n", cell(d.base_ref), short(d.base));
    if !d.hosts.is_empty() {
        let _ = writeln!(out, "### hosts changed\n");
        for h in d.hosts {
            let _ = writeln!(out, "- {} {}", if h.worse() { "🔴" } else { "🟢" }, cell(&host_line(h)));
        }
        out.push('\n');
    }
    for (title, findings) in [("introduced", d.introduced), ("fixed", d.fixed)] {
        if findings.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {title}\n");
        let _ = writeln!(out, "| severity | code | where | message |");
        let _ = writeln!(out, "|---|---|---|---|");
        for f in findings {
            let place = match (&f.file, f.line) {
                (Some(file), Some(line)) => format!("{file}:{line}"),
                (Some(file), None) => file.clone(),
                _ => f.object.to_string(),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                f.severity.as_str(),
                f.meta.code,
                cell(&place),
                cell(&f.message)
            );
        }
        out.push('\n');
    }
    out
}

fn side_json(s: &HostSide) -> Value {
    s.verdict.map_or(Value::Null, Value::from)
}

/// The JSON diff document: `{"version": 1, "tool", "diff": {"base", "base_ref", "introduced", "fixed",
/// "hosts"}, "summary"}`.
pub fn render_diff_json(d: &DiffReport<'_>) -> String {
    let mut tool = json!({"name": "edgecheck", "version": d.version});
    if !d.render_tools.is_empty() {
        tool["renderers"] = d.render_tools.into();
    }
    let hosts: Vec<Value> = d
        .hosts
        .iter()
        .map(|h| {
            // Where it breaks now; for a host the change mends, where it broke.
            let why = if h.after.code.is_some() || h.after.layer.is_some() { &h.after } else { &h.before };
            let mut v = json!({
                "target": h.target,
                "before": side_json(&h.before),
                "after": side_json(&h.after),
                "layer": why.layer.map(|l| l.as_str()),
                "code": why.code,
            });
            if let Some(c) = &h.cluster {
                v["cluster"] = c.clone().into();
            }
            v
        })
        .collect();
    let mut summary = crate::json::summary_json(d.summary);
    if let Value::Object(m) = &mut summary {
        m.insert("introduced".into(), d.introduced.len().into());
        m.insert("fixed".into(), d.fixed.len().into());
        m.insert("hosts_changed".into(), d.hosts.len().into());
    }
    let doc = json!({
        "version": 1,
        "tool": tool,
        "diff": {
            "base": d.base,
            "base_ref": d.base_ref,
            "introduced": d.introduced.iter().map(crate::json::finding_json).collect::<Vec<_>>(),
            "fixed": d.fixed.iter().map(crate::json::finding_json).collect::<Vec<_>>(),
            "hosts": hosts,
        },
        "summary": summary,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
