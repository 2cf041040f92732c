//! Markdown for pull-request comments: a summary line, then one section per layer in path order.

use std::fmt::Write as _;

use edgecheck_core::{Layer, Severity};

use edgecheck_checks::diagnose::Verdict;

use crate::Report;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Renders Markdown.
pub fn render_markdown(r: &Report<'_>) -> String {
    let s = r.summary;
    let mut out = String::new();
    let icon = if s.errors > 0 {
        "❌"
    } else if s.warnings > 0 {
        "⚠️"
    } else {
        "✅"
    };
    let _ = writeln!(
        out,
        "## {icon} edgecheck: {} errors, {} warnings, {} infos in {} objects\n",
        s.errors, s.warnings, s.infos, s.objects
    );
    let bad: Vec<_> = r.diagnoses.iter().filter(|d| matches!(d.verdict, Verdict::Broken | Verdict::AtRisk)).collect();
    if !bad.is_empty() {
        let _ = writeln!(out, "### hosts\n");
        let _ = writeln!(out, "| | host | breaks at | root cause | chain |");
        let _ = writeln!(out, "|---|---|---|---|---|");
        for d in bad {
            let icon = if d.verdict == Verdict::Broken { "🔴" } else { "🟡" };
            let root = d
                .root_cause
                .and_then(|i| r.findings.get(i))
                .map(|f| format!("`{}` {}", f.meta.code, cell(&f.message)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "| {icon} | `{}` | {} | {root} | {} |",
                d.target.target,
                d.layer.map(|l| l.as_str()).unwrap_or("-"),
                cell(&crate::trace_text::chain_line(d))
            );
        }
        out.push('\n');
    }
    let mut layers: Vec<Layer> = r.findings.iter().map(|f| f.meta.layer).collect();
    layers.sort_by_key(|l| l.path_rank(false));
    layers.dedup();
    for layer in layers {
        let _ = writeln!(out, "### {layer}\n");
        let _ = writeln!(out, "| | code | where | finding |");
        let _ = writeln!(out, "|---|---|---|---|");
        for f in r.findings.iter().filter(|f| f.meta.layer == layer) {
            let sev = match f.severity {
                Severity::Error => "🔴",
                Severity::Warning => "🟡",
                _ => "🔵",
            };
            let place = match (&f.file, f.line) {
                (Some(file), Some(line)) => format!("`{file}:{line}`"),
                (Some(file), None) => format!("`{file}`"),
                _ => cell(&f.object.to_string()),
            };
            let _ = writeln!(out, "| {sev} | `{}` {} | {place} | {} |", f.meta.code, f.meta.name, cell(&f.message));
        }
        out.push('\n');
        for f in r.findings.iter().filter(|f| f.meta.layer == layer && (!f.evidence.is_empty() || f.fix.is_some())) {
            let _ = writeln!(
                out,
                "<details><summary><code>{}</code> {}</summary>\n",
                f.meta.code,
                html_inline(&f.object.to_string())
            );
            for e in &f.evidence {
                let _ = writeln!(out, "- evidence: {}", cell(e));
            }
            if let Some(fix) = &f.fix {
                let _ = writeln!(out, "- **fix:** {}", cell(fix));
            }
            if let Some(p) = &f.patch {
                let _ = writeln!(out, "\n```yaml\n{}\n```", p.trim_end());
            }
            let _ = writeln!(out, "\n</details>\n");
        }
    }
    if r.findings.is_empty() {
        let _ = writeln!(out, "No findings.");
    }
    out
}

/// Text for inside HTML (GitHub renders no Markdown in `<summary>`): `<`, `>`, `&` escaped, and `code` spans
/// written as `<code>` elements.
fn html_inline(s: &str) -> String {
    let escaped = s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('|', "\\|");
    let mut out = String::with_capacity(escaped.len() + 16);
    for (i, part) in escaped.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str("<code>");
            out.push_str(part);
            out.push_str("</code>");
        } else {
            out.push_str(part);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::html_inline;

    #[test]
    fn summaries_hold_html_not_backticks() {
        assert_eq!(html_inline("Ingress `shop/web` <x>"), "Ingress <code>shop/web</code> &lt;x&gt;");
        assert_eq!(html_inline("a `b"), "a <code>b</code>");
    }
}
