//! Human text: findings grouped by layer in path order, each with file:line, evidence and fix, then a
//! one-line summary. Colours only when asked (the CLI asks on a TTY).

use std::fmt::Write as _;

use edgecheck_core::{Layer, Severity};

use crate::Report;

pub(crate) const RESET: &str = "\x1b[0m";
pub(crate) const BOLD: &str = "\x1b[1m";
pub(crate) const DIM: &str = "\x1b[2m";
pub(crate) const RED: &str = "\x1b[31m";
pub(crate) const GREEN: &str = "\x1b[32m";
pub(crate) const YELLOW: &str = "\x1b[33m";
const BLUE: &str = "\x1b[34m";
pub(crate) const CYAN: &str = "\x1b[36m";

/// Renders findings as text.
pub fn render_text(r: &Report<'_>, color: bool) -> String {
    let paint = |code: &'static str, s: &str| if color { format!("{code}{s}{RESET}") } else { s.to_string() };
    let mut out = String::new();
    if r.trace {
        // Each traced target: its path tree, then the findings on its path in full.
        let mut on_path: Vec<usize> = Vec::new();
        for d in r.diagnoses {
            out.push_str(&crate::trace_text::trace_tree(d, r.findings, color));
            let mut idx: Vec<usize> = d.nodes.iter().flat_map(|n| n.findings.iter().copied()).collect();
            idx.sort_unstable();
            idx.dedup();
            let findings: Vec<_> = idx.iter().filter_map(|&i| r.findings.get(i)).cloned().collect();
            out.push_str(&render_findings(&Report { findings: &findings, ..*r }, color));
            on_path.extend(idx);
        }
        on_path.sort_unstable();
        on_path.dedup();
        let elsewhere = r.findings.len().saturating_sub(on_path.len());
        if elsewhere > 0 {
            let _ = writeln!(
                out,
                "{}",
                paint(
                    DIM,
                    &format!(
                        "{elsewhere} other finding{} in the inventory, not on this path (`edgecheck lint` lists them)",
                        plural(elsewhere)
                    )
                )
            );
        }
        out.push_str(&summary_line(r, color));
        return out;
    }
    out.push_str(&crate::trace_text::hosts_section(r.diagnoses, r.findings, color));
    if r.group_by_object {
        let mut targets: Vec<&edgecheck_core::ObjectRef> = Vec::new();
        for f in r.findings {
            if !targets.contains(&&f.object) {
                targets.push(&f.object);
            }
        }
        for t in targets {
            let _ = writeln!(out, "{}", paint(BOLD, &format!("══ {} ", t.name)));
            let findings: Vec<_> = r.findings.iter().filter(|f| &f.object == t).cloned().collect();
            let sub = Report { findings: &findings, group_by_object: false, ..*r };
            let body = render_findings(&sub, color);
            out.push_str(&body);
        }
    } else {
        out.push_str(&render_findings(r, color));
    }
    out.push_str(&summary_line(r, color));
    out
}

fn render_findings(r: &Report<'_>, color: bool) -> String {
    let paint = |code: &'static str, s: &str| if color { format!("{code}{s}{RESET}") } else { s.to_string() };
    let mut out = String::new();
    let mut layers: Vec<Layer> = r.findings.iter().map(|f| f.meta.layer).collect();
    layers.sort_by_key(|l| l.path_rank(false));
    layers.dedup();
    for layer in layers {
        let _ = writeln!(
            out,
            "{}",
            paint(BOLD, &format!("── {layer} {}", "─".repeat(60usize.saturating_sub(layer.as_str().len()))))
        );
        let mut fs: Vec<_> = r.findings.iter().filter(|f| f.meta.layer == layer).collect();
        fs.sort_by(|a, b| (a.severity, &a.file, a.line, a.meta.code).cmp(&(b.severity, &b.file, b.line, b.meta.code)));
        for f in fs {
            let sev = match f.severity {
                Severity::Error => paint(RED, "error"),
                Severity::Warning => paint(YELLOW, "warning"),
                _ => paint(BLUE, "info"),
            };
            let place = match (&f.file, f.line) {
                (Some(file), Some(line)) => format!("{file}:{line}"),
                (Some(file), None) => file.clone(),
                _ => f.object.to_string(),
            };
            let _ = writeln!(out, "{sev}[{}] {}  {}", paint(BOLD, f.meta.code), f.meta.name, paint(CYAN, &place));
            let _ = writeln!(out, "  {}", f.message);
            for e in &f.evidence {
                let _ = writeln!(out, "  {} {e}", paint(DIM, "│ evidence:"));
            }
            if !f.related.is_empty() {
                let rel: Vec<String> = f.related.iter().map(ToString::to_string).collect();
                let _ = writeln!(out, "  {} {}", paint(DIM, "│ related:"), rel.join(", "));
            }
            if let Some(fix) = &f.fix {
                let _ = writeln!(out, "  {} {fix}", paint(DIM, "└ fix:"));
            }
            if let Some(p) = &f.patch {
                for l in p.lines() {
                    let _ = writeln!(out, "      {l}");
                }
            }
            out.push('\n');
        }
    }
    out
}

fn summary_line(r: &Report<'_>, color: bool) -> String {
    let paint = |code: &'static str, s: &str| if color { format!("{code}{s}{RESET}") } else { s.to_string() };
    let mut out = String::new();
    let s = r.summary;
    let scope = if r.group_by_object {
        format!("{} endpoint{} probed", s.targets, plural(s.targets))
    } else {
        format!("{} object{} from {} file{}", s.objects, plural(s.objects), s.files, plural(s.files))
    };
    let mut line = format!(
        "{} error{}, {} warning{}, {} info{} in {scope}",
        s.errors,
        plural(s.errors),
        s.warnings,
        plural(s.warnings),
        s.infos,
        plural(s.infos),
    );
    let mut extra = Vec::new();
    let rendered = s.builds - s.builds_not_rendered;
    if rendered > 0 {
        extra.push(format!("{} rendered by {rendered} build{}", s.rendered_objects, plural(rendered)));
    }
    if s.builds_not_rendered > 0 {
        extra.push(format!("{} build{} not rendered", s.builds_not_rendered, plural(s.builds_not_rendered)));
    }
    if s.loose_objects > 0 {
        extra.push(format!("{} applied by no build", s.loose_objects));
    }
    if s.skipped_documents > 0 {
        extra.push(format!("{} non-Kubernetes document{} skipped", s.skipped_documents, plural(s.skipped_documents)));
    }
    if s.skipped_templates > 0 {
        extra.push(format!("{} template{} skipped", s.skipped_templates, plural(s.skipped_templates)));
    }
    if s.suppressed > 0 {
        extra.push(format!("{} suppressed", s.suppressed));
    }
    if !extra.is_empty() {
        line.push_str(&format!(" ({})", extra.join(", ")));
    }
    let painted = if s.errors > 0 {
        paint(RED, &line)
    } else if s.warnings > 0 {
        paint(YELLOW, &line)
    } else {
        line
    };
    let _ = writeln!(out, "{painted}");
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
