//! HTML: one self-contained page. Each diagnosis's path is drawn as inline SVG, an outline of boxes
//! (x by depth, one box under the other) joined by arrows from parent to child, each label wrapped
//! onto as many lines as it needs, never cut; then its summary, its chain as text and its findings;
//! the findings in no diagnosis come last. The page reads at 900 px wide: the drawing is narrow
//! (boxes indent, they do not spread sideways) and scales down only on smaller screens, and long
//! words in the text wrap.
//!
//! Nothing is fetched: no scripts, fonts, stylesheets or images from anywhere; the only links are
//! anchors within the page. Every piece of text is HTML-escaped.

use std::fmt::Write as _;

use edgecheck_checks::diagnose::{Branch, Diagnosis, NodeState};
use edgecheck_core::Finding;

use crate::dot::{chain_edge, diagnosis_findings, empty_path_note, on_chain, root_node, state_colors};
use crate::Report;

/// Every box's width: the outline only indents, so boxes can be wide enough for most names on one line.
const BOX_W: f64 = 360.0;
/// The indent per level of the tree.
const INDENT: f64 = 30.0;
/// Where a parent's edges leave its bottom, from its left side.
const TRUNK: f64 = 12.0;
/// The space between one box and the next.
const GAP: f64 = 14.0;
const MARGIN: f64 = 12.0;
const PAD_X: f64 = 10.0;
const PAD_Y: f64 = 6.0;
/// An arrowhead's length and width.
const ARROW: f64 = 10.0;
/// How many lines of a node's detail its box shows.
const DETAIL_LINES: usize = 3;
/// Edge colours: a plain edge, an edge of the chain.
const EDGE: &str = "#777777";
const CHAIN: &str = "#c62828";

const STYLE: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;font-size:14px;margin:0;padding:16px 24px;color:#1d1d1d;background:#ffffff;overflow-wrap:anywhere}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:16px;margin:0 0 6px;word-break:break-all}
h3{font-size:13px;margin:10px 0 4px;text-transform:uppercase;color:#555}
.counts{color:#444;margin:0 0 12px}
nav ul{margin:0 0 16px;padding-left:18px}
section{border:1px solid #d6d6d6;border-radius:6px;padding:12px 14px;margin:0 0 18px}
.summary{margin:0 0 8px}
.graph{overflow-x:auto;margin:0 0 6px}
.graph svg{display:block;max-width:100%;height:auto}
.graph svg text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}
.cols{display:flex;flex-wrap:wrap;gap:18px}
.cols>div{flex:1 1 420px;min-width:0}
.verdict{display:inline-block;border-radius:4px;padding:1px 7px;font-size:12px;margin-right:6px;color:#fff}
.verdict.broken{background:#c62828}.verdict.at-risk{background:#e07b00}.verdict.ok{background:#2e7d32}.verdict.unclaimed{background:#777}
.finding{border-left:4px solid #888;padding:4px 8px;margin:0 0 8px;background:#fafafa}
.finding.error{border-color:#c62828}.finding.warning{border-color:#e07b00}.finding.info{border-color:#1565c0}
.finding.root{outline:2px solid #c62828}
.finding .head{font-size:12px;color:#444}
.finding .msg{margin:2px 0}
.finding ul{margin:2px 0;padding-left:18px;font-size:12px;color:#333}
.finding .fix{margin:2px 0;font-size:13px}
.tag{font-size:11px;font-weight:bold;color:#c62828;margin-left:6px}
code{font-family:ui-monospace,Menlo,Consolas,monospace}
ol.chain{margin:0;padding-left:20px}
footer{color:#777;font-size:12px}
";

/// Renders the report as one self-contained HTML page.
pub fn render_html(report: &Report<'_>) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<title>edgecheck report</title>\n<style>");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<h1>edgecheck</h1>\n");
    let s = report.summary;
    let _ = writeln!(
        out,
        "<p class=\"counts\">{} error{}, {} warning{}, {} info in {} object{} from {} file{}; {} diagnos{}</p>",
        s.errors,
        plural(s.errors),
        s.warnings,
        plural(s.warnings),
        s.infos,
        s.objects,
        plural(s.objects),
        s.files,
        plural(s.files),
        report.diagnoses.len(),
        if report.diagnoses.len() == 1 { "is" } else { "es" }
    );
    if report.diagnoses.len() > 1 {
        out.push_str("<nav><ul>\n");
        for (di, d) in report.diagnoses.iter().enumerate() {
            let _ = writeln!(
                out,
                "<li><a href=\"#d{di}\">{}</a>{} <span class=\"verdict {v}\">{v}</span></li>",
                esc(&d.target.target),
                esc(&scope(d)),
                v = d.verdict.as_str()
            );
        }
        out.push_str("</ul></nav>\n");
    }
    for (di, d) in report.diagnoses.iter().enumerate() {
        diagnosis(&mut out, report.findings, di, d);
    }
    let mut placed = vec![false; report.findings.len()];
    for d in report.diagnoses {
        for i in diagnosis_findings(d) {
            if let Some(p) = placed.get_mut(i) {
                *p = true;
            }
        }
    }
    let others: Vec<usize> = (0..report.findings.len()).filter(|&i| !placed[i]).collect();
    if !others.is_empty() {
        out.push_str("<section id=\"other\">\n<h2>Findings in no diagnosis</h2>\n");
        for i in others {
            finding(&mut out, report.findings, i, false);
        }
        out.push_str("</section>\n");
    }
    if report.findings.is_empty() && report.diagnoses.is_empty() {
        out.push_str("<p>Nothing found.</p>\n");
    }
    let _ = writeln!(out, "<footer>edgecheck {}</footer>\n</body>\n</html>", esc(report.version));
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Whose inventory claims the host, when a run has several (` (cluster prod)`); empty otherwise.
fn scope(d: &Diagnosis) -> String {
    match (&d.root, &d.cluster) {
        (Some(r), Some(c)) => format!(" ({r}, cluster {c})"),
        (Some(r), None) => format!(" ({r})"),
        (None, Some(c)) => format!(" (cluster {c})"),
        (None, None) => String::new(),
    }
}

fn diagnosis(out: &mut String, findings: &[Finding], di: usize, d: &Diagnosis) {
    let v = d.verdict.as_str();
    let _ = writeln!(out, "<section class=\"diagnosis\" id=\"d{di}\">");
    let _ = writeln!(out, "<h2><span class=\"verdict {v}\">{v}</span>{}{}</h2>", esc(&d.target.target), esc(&scope(d)));
    let _ = writeln!(out, "<p class=\"summary\">{}</p>", esc(&d.summary));
    if d.nodes.is_empty() {
        let _ = writeln!(out, "<p class=\"nopath\">{}</p>", esc(empty_path_note(d)));
    } else {
        out.push_str("<div class=\"graph\">\n");
        svg(out, di, d);
        out.push_str("</div>\n");
    }
    out.push_str("<div class=\"cols\">\n<div>\n");
    if !d.chain.is_empty() {
        out.push_str("<h3>Chain (symptom → root cause)</h3>\n<ol class=\"chain\">\n");
        for l in &d.chain {
            let _ = writeln!(
                out,
                "<li>{} — {} <small>({})</small></li>",
                esc(&l.object.to_string()),
                esc(&l.state),
                l.layer.as_str()
            );
        }
        out.push_str("</ol>\n");
    }
    if let Some(fix) = d.fix(findings) {
        let _ = writeln!(out, "<h3>Fix</h3>\n<p>{}</p>", esc(fix));
    }
    if !d.claims.is_empty() {
        out.push_str("<h3>Claims</h3>\n<ul>\n");
        for c in &d.claims {
            let _ = writeln!(out, "<li>{}</li>", esc(c));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</div>\n<div>\n<h3>Findings</h3>\n");
    let fs = diagnosis_findings(d);
    if fs.is_empty() {
        out.push_str("<p>None.</p>\n");
    }
    for i in fs {
        finding(out, findings, i, d.root_cause == Some(i));
    }
    out.push_str("</div>\n</div>\n</section>\n");
}

fn finding(out: &mut String, findings: &[Finding], i: usize, root: bool) {
    let Some(f) = findings.get(i) else { return };
    let sev = f.severity.as_str();
    let _ = write!(out, "<div class=\"finding {sev}{}\">", if root { " root" } else { "" });
    let _ = write!(
        out,
        "<div class=\"head\"><code>{}</code> {} {sev} · {}",
        esc(f.code()),
        esc(f.meta.name),
        esc(&f.object.to_string())
    );
    if let Some(file) = &f.file {
        match f.line {
            Some(l) => {
                let _ = write!(out, " · <code>{}:{l}</code>", esc(file));
            }
            None => {
                let _ = write!(out, " · <code>{}</code>", esc(file));
            }
        }
    }
    if root {
        out.push_str("<span class=\"tag\">root cause</span>");
    }
    out.push_str("</div>");
    let _ = write!(out, "<p class=\"msg\">{}</p>", esc(&f.message));
    if !f.evidence.is_empty() {
        out.push_str("<ul>");
        for e in &f.evidence {
            let _ = write!(out, "<li>{}</li>", esc(e));
        }
        out.push_str("</ul>");
    }
    if let Some(fix) = &f.fix {
        let _ = write!(out, "<p class=\"fix\">Fix: {}</p>", esc(fix));
    }
    out.push_str("</div>\n");
}

/// Positions of the boxes: `(x, y)` of each node's top-left corner, each box's height, and the
/// drawing's size.
struct Layout {
    pos: Vec<(f64, f64)>,
    heights: Vec<f64>,
    width: f64,
    height: f64,
}

/// An outline, as the text trace draws it: x by depth, one box under the other in depth-first order,
/// each box as tall as its lines. Every box is [`BOX_W`] wide and the tree only indents by [`INDENT`]
/// per level, so a deep path stays narrow enough to read on a small screen. Nodes whose parent is
/// out of range, or who sit on a cycle, start trees of their own.
fn layout(d: &Diagnosis, heights: Vec<f64>) -> Layout {
    let n = d.nodes.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, node) in d.nodes.iter().enumerate() {
        match node.parent {
            Some(p) if p < n && p != i => children[p].push(i),
            _ => roots.push(i),
        }
    }
    let mut pos = vec![(0.0, 0.0); n];
    let mut seen = vec![false; n];
    let mut y = MARGIN;
    let mut max_depth = 0usize;
    // Roots first, then anything a cycle kept unreachable.
    let mut starts = roots;
    starts.extend(0..n);
    for s in starts {
        if seen[s] {
            continue;
        }
        let mut stack = vec![(s, 0usize)];
        seen[s] = true;
        while let Some((i, depth)) = stack.pop() {
            max_depth = max_depth.max(depth);
            pos[i] = (MARGIN + depth as f64 * INDENT, y);
            y += heights.get(i).copied().unwrap_or(0.0) + GAP;
            for &c in children[i].iter().rev() {
                if !seen[c] {
                    seen[c] = true;
                    stack.push((c, depth + 1));
                }
            }
        }
    }
    Layout { pos, heights, width: 2.0 * MARGIN + max_depth as f64 * INDENT + BOX_W, height: y - GAP + MARGIN }
}

fn svg(out: &mut String, di: usize, d: &Diagnosis) {
    let root = root_node(d);
    let chain = on_chain(d);
    let lines: Vec<Vec<Line>> = (0..d.nodes.len()).map(|i| node_lines(d, i, root == Some(i))).collect();
    let lay = layout(d, lines.iter().map(|l| box_height(l)).collect());
    let _ = writeln!(
        out,
        "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"request path of {}\">",
        esc(&d.target.target),
        w = lay.width,
        h = lay.height
    );
    // The arrowheads: the tip ARROW past the end of the edge, pointing the way the edge last runs.
    let arrow = format!("arrow{di}");
    let arrow_chain = format!("arrow{di}-chain");
    out.push_str("<defs>\n");
    for (id, fill) in [(&arrow, EDGE), (&arrow_chain, CHAIN)] {
        let _ = writeln!(
            out,
            "<marker id=\"{id}\" viewBox=\"0 0 {ARROW} {ARROW}\" refX=\"0\" refY=\"{half}\" markerWidth=\"{ARROW}\" markerHeight=\"{ARROW}\" markerUnits=\"userSpaceOnUse\" orient=\"auto\"><path d=\"M0 0L{ARROW} {half}L0 {ARROW}z\" fill=\"{fill}\"/></marker>",
            half = ARROW / 2.0
        );
    }
    out.push_str("</defs>\n");
    // Edges first, so boxes cover their ends; the chain's last, over the edges that share its trunk.
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for (i, node) in d.nodes.iter().enumerate() {
        if let Some(p) = node.parent.filter(|&p| p < d.nodes.len() && p != i) {
            edges.push((p, i));
        }
    }
    edges.sort_by_key(|&(p, i)| chain_edge(&chain, p, i));
    for (p, i) in edges {
        let (px, py) = lay.pos[p];
        let (cx, cy) = lay.pos[i];
        // Down from under the parent, then right into the child's left side.
        let (x1, y1) = (px + TRUNK, py + lay.heights[p]);
        let (x2, y2) = (cx - ARROW, cy + lay.heights[i] / 2.0);
        let thick = chain_edge(&chain, p, i);
        let (stroke, width, marker) = if thick { (CHAIN, 3.0, &arrow_chain) } else { (EDGE, 1.5, &arrow) };
        let dash = if d.nodes[i].branch != Branch::Request { " stroke-dasharray=\"6 4\"" } else { "" };
        let _ = writeln!(
            out,
            "<path class=\"edge{}\" d=\"M{x1} {y1} V{y2} H{x2}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"{width}\"{dash} marker-end=\"url(#{marker})\"/>",
            if thick { " chain" } else { "" }
        );
    }
    for (i, node) in d.nodes.iter().enumerate() {
        let (x, y) = lay.pos[i];
        let h = lay.heights[i];
        let (fill, stroke) = state_colors(node.state);
        let is_root = root == Some(i);
        let _ = writeln!(out, "<g class=\"node {}{}\">", node.state.as_str(), if is_root { " root" } else { "" });
        let mut title = node.label.clone();
        for line in &node.detail {
            title.push('\n');
            title.push_str(line);
        }
        let _ = writeln!(out, "<title>{}</title>", esc(&title));
        if is_root {
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"9\" fill=\"none\" stroke=\"{CHAIN}\" stroke-width=\"2\"/>",
                x - 5.0,
                y - 5.0,
                BOX_W + 10.0,
                h + 10.0
            );
        }
        let mut dash = "";
        if node.state == NodeState::Missing {
            dash = " stroke-dasharray=\"5 3\"";
        } else if node.branch != Branch::Request {
            dash = " stroke-dasharray=\"2 2\"";
        }
        let width = if is_root || chain[i] { 2.5 } else { 1.2 };
        let _ = writeln!(
            out,
            "<rect class=\"box\" x=\"{x}\" y=\"{y}\" width=\"{BOX_W}\" height=\"{h}\" rx=\"6\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{width}\"{dash}/>"
        );
        let mut top = y + PAD_Y;
        for l in &lines[i] {
            let f = l.font;
            // The baseline sits about a fifth of the line height above the line's bottom.
            let base = top + (f.line * 0.8).round();
            let bold = if f.weight == "400" { String::new() } else { format!(" font-weight=\"{}\"", f.weight) };
            let _ = writeln!(
                out,
                "<text class=\"{}\" x=\"{}\" y=\"{base}\" font-size=\"{}\"{bold} fill=\"{}\">{}</text>",
                f.class,
                x + PAD_X,
                f.size,
                f.fill,
                esc(&l.text)
            );
            top += f.line;
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
}

/// Where a box's text goes: one `<text>` per line, in a style of its own.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Font {
    class: &'static str,
    /// Font size in px.
    size: f64,
    /// Line height in px.
    line: f64,
    weight: &'static str,
    fill: &'static str,
}

/// The node's label (its object), wrapped and never cut.
const LABEL: Font = Font { class: "label", size: 13.0, line: 18.0, weight: "600", fill: "#111111" };
/// `layer · role · state`.
const META: Font = Font { class: "meta", size: 11.5, line: 16.0, weight: "400", fill: "#333333" };
/// ROOT CAUSE, BREAKS HERE.
const MARK: Font = Font { class: "mark", size: 11.5, line: 16.0, weight: "700", fill: "#c62828" };
/// The node's first detail line, at most [`DETAIL_LINES`] lines (all of it is in the `<title>`).
const DETAIL: Font = Font { class: "detail", size: 11.5, line: 16.0, weight: "400", fill: "#555555" };

/// One line of a box.
struct Line {
    font: Font,
    text: String,
}

/// The lines of node `i`'s box.
fn node_lines(d: &Diagnosis, i: usize, is_root: bool) -> Vec<Line> {
    let node = &d.nodes[i];
    let mut lines: Vec<Line> = wrap_px(&node.label, LABEL).into_iter().map(|text| Line { font: LABEL, text }).collect();
    let meta = format!("{} · {} · {}", node.layer.as_str(), node.role.as_str(), node.state.as_str());
    lines.extend(wrap_px(&meta, META).into_iter().map(|text| Line { font: META, text }));
    if is_root {
        lines.push(Line { font: MARK, text: "ROOT CAUSE".into() });
    } else if d.breaks_at == Some(i) {
        lines.push(Line { font: MARK, text: "BREAKS HERE".into() });
    } else if let Some(first) = node.detail.first() {
        let mut detail = wrap_px(first, DETAIL);
        if detail.len() > DETAIL_LINES {
            detail.truncate(DETAIL_LINES);
            if let Some(last) = detail.last_mut() {
                let max = inner_em(DETAIL);
                while !last.is_empty() && text_em(last) + char_em('…') > max {
                    last.pop();
                }
                last.push('…');
            }
        }
        lines.extend(detail.into_iter().map(|text| Line { font: DETAIL, text }));
    }
    lines
}

/// A box's height for its lines.
fn box_height(lines: &[Line]) -> f64 {
    2.0 * PAD_Y + lines.iter().map(|l| l.font.line).sum::<f64>()
}

/// The width inside a box, in ems of `font`.
fn inner_em(font: Font) -> f64 {
    (BOX_W - 2.0 * PAD_X) / font.size
}

/// `s` wrapped to the inside of a box in `font`.
fn wrap_px(s: &str, font: Font) -> Vec<String> {
    wrap(s, inner_em(font))
}

/// Wraps `s` into lines at most `max_em` wide (by [`text_em`]): at spaces (dropped); a word longer
/// than a line also after `/`, `.`, `-`, `_`, `:`, `,`, `=` (kept at the line's end), and a piece of
/// it longer than a line where it fills the line. Control characters become spaces. Nothing is left out: the lines hold every other
/// character of `s`, in order.
fn wrap(s: &str, max_em: f64) -> Vec<String> {
    let clean: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0.0;
    for word in clean.split(' ').filter(|w| !w.is_empty()) {
        // A word that fits on a line is not split: it goes on this line or starts the next.
        let w = text_em(word);
        if w <= max_em {
            let sep = if line.is_empty() { 0.0 } else { char_em(' ') };
            if used + sep + w > max_em {
                lines.push(std::mem::take(&mut line));
                used = 0.0;
            } else if sep > 0.0 {
                line.push(' ');
                used += sep;
            }
            line.push_str(word);
            used += w;
            continue;
        }
        for (k, piece) in pieces(word).into_iter().enumerate() {
            let sep = if k == 0 && !line.is_empty() { char_em(' ') } else { 0.0 };
            let w = text_em(piece);
            if !line.is_empty() && used + sep + w > max_em {
                lines.push(std::mem::take(&mut line));
                used = 0.0;
            } else if sep > 0.0 {
                line.push(' ');
                used += sep;
            }
            for c in piece.chars() {
                let cw = char_em(c);
                // A piece longer than a line: break it where the line is full.
                if !line.is_empty() && used + cw > max_em {
                    lines.push(std::mem::take(&mut line));
                    used = 0.0;
                }
                line.push(c);
                used += cw;
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `word` cut after each character a line may break after.
fn pieces(word: &str) -> Vec<&str> {
    let mut v = Vec::new();
    let mut start = 0;
    for (i, c) in word.char_indices() {
        if matches!(c, '/' | '.' | '-' | '_' | ':' | ',' | '=') {
            let end = i + c.len_utf8();
            v.push(&word[start..end]);
            start = end;
        }
    }
    if start < word.len() {
        v.push(&word[start..]);
    }
    v
}

/// The estimated width of `s` in ems.
fn text_em(s: &str) -> f64 {
    s.chars().map(char_em).sum()
}

/// A character's advance in ems, as DejaVu Sans Bold (the widest of the common sans-serif faces, and
/// what `system-ui` is on a Linux without other fonts) sets it, rounded up: estimates for other faces
/// err on the wide side, so a wrapped line does not overflow its box.
fn char_em(c: char) -> f64 {
    match c {
        'i' | 'j' | 'l' | 'I' | 'J' | '\'' | '|' | '/' | '\\' | ' ' => 0.38,
        '.' | ',' | ':' | ';' | '!' | '·' => 0.44,
        'f' | 't' | '-' | '(' | ')' | '[' | ']' | 'r' => 0.5,
        '"' | '*' | '_' | '`' | '?' | 's' | 'z' | 'c' => 0.6,
        'a' | 'e' | 'k' | 'o' | 'v' | 'x' | 'y' | 'L' => 0.69,
        'b' | 'd' | 'g' | 'h' | 'n' | 'p' | 'q' | 'u' | '0'..='9' | '$' | '{' | '}' => 0.72,
        'E' | 'F' | 'P' | 'T' | 'Y' | 'Z' | 'S' | 'C' => 0.74,
        'A' | 'B' | 'K' | 'R' | 'V' | 'X' | 'U' | 'G' | 'D' | 'H' | 'N' | 'O' | 'Q' => 0.86,
        '#' | '+' | '<' | '=' | '>' | '^' | '~' | '&' => 0.88,
        'm' | 'w' | 'M' | 'W' | '%' | '@' => 1.11,
        c if c.is_ascii() => 0.88,
        _ => 1.2,
    }
}

/// HTML-escapes text for element content and quoted attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis_fixtures::{diagnoses, with_report, PLANTED_LABEL};

    /// Values of every `name="…"` attribute in the page.
    fn attribute_values<'a>(page: &'a str, name: &str) -> Vec<&'a str> {
        let needle = format!(" {name}=\"");
        let mut v = Vec::new();
        let mut rest = page;
        while let Some(i) = rest.find(&needle) {
            rest = &rest[i + needle.len()..];
            let end = rest.find('"').unwrap_or(rest.len());
            v.push(&rest[..end]);
        }
        v
    }

    #[test]
    fn html_is_self_contained() {
        let page = with_report(render_html);
        for attr in ["src", "href", "xlink:href", "action", "srcset", "poster", "data"] {
            for v in attribute_values(&page, attr) {
                assert!(v.starts_with('#'), "{attr}=\"{v}\" leaves the page");
            }
        }
        let lower = page.to_ascii_lowercase();
        for bad in ["<script", "<link", "<img", "<iframe", "<object", "<embed", "@import"] {
            assert!(!lower.contains(bad), "page contains {bad}");
        }
        // `url(` only names an element of the page (the arrowheads' markers).
        let urls: Vec<&str> = lower.split("url(").skip(1).collect();
        assert!(!urls.is_empty(), "the edges reference their markers");
        for u in urls {
            assert!(u.starts_with('#'), "url({}) leaves the page", &u[..u.len().min(40)]);
        }
        // The targets' own text is the only place a URL appears.
        let urls = page.matches("://").count();
        let targets =
            page.matches("https://shop.example.com/").count() + page.matches("http://api.example.com/").count();
        assert_eq!(urls, targets, "every URL on the page is a target's text");
    }

    #[test]
    fn html_escapes_everything() {
        let page = with_report(render_html);
        assert!(!page.contains("<script>alert(1)</script>"), "planted script is escaped");
        assert!(
            page.contains("Job `shop/migrate` failed: &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quoted&quot;")
        );
        assert!(page.contains("<title>Certificate shop/web say &quot;hi&quot; \\ &lt;script&gt;alert(1)&lt;/script&gt;\nsecond line\nnotAfter 2026-06-10</title>"));
        // The planted label, wrapped: every line escaped, the newline a space, nothing lost.
        let lines = wrap_px(PLANTED_LABEL, LABEL);
        assert!(lines.len() > 1, "{lines:?}");
        for l in &lines {
            assert!(page.contains(&format!("font-weight=\"600\" fill=\"#111111\">{}</text>", esc(l))), "{l}");
        }
        assert!(!lines.concat().chars().any(char::is_control));
        assert_eq!(lines.concat().replace(' ', ""), PLANTED_LABEL.replace([' ', '\n'], ""));
    }

    #[test]
    fn a_diagnosis_says_whose_inventory_it_is() {
        let page = with_report(|r| {
            let mut diagnoses = r.diagnoses.to_vec();
            diagnoses[0].cluster = Some("prod <eu>".into());
            render_html(&Report { diagnoses: &diagnoses, ..*r })
        });
        assert_eq!(page.matches(" (cluster prod &lt;eu&gt;)").count(), 2, "the nav entry and the heading");
    }

    #[test]
    fn html_content() {
        let page = with_report(render_html);
        assert_eq!(page.matches("<svg ").count(), 2);
        assert_eq!(page.matches("<section class=\"diagnosis\"").count(), 2);
        // Root cause: one outline and one tag per diagnosis, on the Job of the first.
        assert_eq!(page.matches("ROOT CAUSE</text>").count(), 2);
        assert_eq!(page.matches("<g class=\"node error root\">").count(), 1);
        assert_eq!(page.matches("<g class=\"node warning root\">").count(), 1);
        assert_eq!(page.matches("<span class=\"tag\">root cause</span>").count(), 2);
        // Where the path breaks (d0's Service; d1 breaks at its root cause, marked once).
        assert_eq!(page.matches("BREAKS HERE</text>").count(), 1);
        // Chain edges are thick: d0 has HTTPRoute→Service→Job, d1 a single link (no edge).
        assert_eq!(page.matches("class=\"edge chain\"").count(), 2);
        // Every edge ends in an arrowhead: 6 edges in d0, 4 in d1; two markers defined per drawing.
        assert_eq!(page.matches(" marker-end=\"url(#arrow").count(), 10);
        assert_eq!(page.matches("<marker ").count(), 4);
        // Not probed: the application is drawn unknown (grey), not fine.
        assert_eq!(page.matches("<g class=\"node unknown\">").count(), 2);
        assert_eq!(page.matches("fill=\"#e4e4e4\"").count(), 2);
        assert!(
            page.contains("<li>HTTPRoute `shop/web` — ResolvedRefs=False BackendNotFound <small>(route)</small></li>")
        );
        assert!(page.contains("<code>BKD001</code> backend-service-missing error · HTTPRoute `shop/web` · <code>apps/shop/route.yaml:12</code>"));
        assert!(page.contains("<li>condition Failed=True BackoffLimitExceeded</li>"));
        assert!(page.contains("<p class=\"fix\">Fix: fix the Job&#39;s input and re-run it</p>"));
        assert!(page.contains("https://shop.example.com/: broken at backend"));
        // Findings in no diagnosis: LOD001 and the endpoint info, after the diagnoses.
        let other = &page[page.find("<section id=\"other\">").expect("other section")..];
        assert!(other.contains("<code>LOD001</code>"));
        assert!(other.contains("an endpoint finding without a file"));
        assert!(!other.contains("BKD001"));
        insta::assert_snapshot!(page);
    }

    /// The label lines of each `<g class="node …">` of `svg`, in order, unescaped.
    fn label_lines(svg: &str) -> Vec<Vec<String>> {
        svg.split("<g class=\"node ")
            .skip(1)
            .map(|g| {
                let g = &g[..g.find("</g>").expect("group ends")];
                g.split("<text class=\"label\"")
                    .skip(1)
                    .map(|t| {
                        let t = &t[t.find('>').expect("tag ends") + 1..t.find("</text>").expect("text ends")];
                        t.replace("&lt;", "<")
                            .replace("&gt;", ">")
                            .replace("&quot;", "\"")
                            .replace("&#39;", "'")
                            .replace("&amp;", "&")
                    })
                    .collect()
            })
            .collect()
    }

    fn drawn(d: &Diagnosis) -> String {
        let mut s = String::new();
        svg(&mut s, 0, d);
        s
    }

    #[test]
    fn wrap_breaks_at_separators_and_hard_breaks_only_long_tokens() {
        // (text, width in ems, lines)
        let table: &[(&str, f64, &[&str])] = &[
            ("", 10.0, &[""]),
            ("Job shop/migrate", 30.0, &["Job shop/migrate"]),
            // At spaces first; the space where a line breaks is dropped, a word that fits is not split.
            ("Gateway edge/public listener https :443", 12.0, &["Gateway", "edge/public listener", "https :443"]),
            ("HTTPRoute team-payments/checkout", 15.0, &["HTTPRoute", "team-payments/checkout"]),
            // A word longer than a line breaks after `/`, `-` and `.`, which stay at the end of the line.
            (
                "HTTPRoute team-payments/checkout-frontend-canary",
                14.0,
                &["HTTPRoute team-", "payments/checkout-", "frontend-canary"],
            ),
            ("api.internal.eu-west-1.example.com", 12.0, &["api.internal.eu-", "west-1.example.", "com"]),
            // A piece longer than a line is broken where the line is full, and only it.
            ("Secret a/0123456789abcdef0123456789 x", 8.0, &["Secret a/", "0123456789a", "bcdef012345", "6789 x"]),
            // Control characters are spaces; runs of spaces collapse.
            ("one\ntwo\tthree   four", 30.0, &["one two three four"]),
            // Narrower than a character: one character a line, never a loop.
            ("abc", 0.1, &["a", "b", "c"]),
        ];
        for (text, width, want) in table {
            let got = wrap(text, *width);
            assert_eq!(got, *want, "wrap({text:?}, {width})");
            for l in &got {
                assert!(text_em(l) <= *width || l.chars().count() == 1, "{l:?} wider than {width}");
            }
        }
    }

    #[test]
    fn long_labels_wrap_whole_inside_their_boxes() {
        let mut d = diagnoses()[0].clone();
        let long = [
            "HTTPRoute identity-production-eu-west-1/zitadel-login-console-and-api-routes",
            "Service identity-production-eu-west-1/zitadel-primary-backend (not in the inventory)",
            "Secret identity/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "very-long-subdomain-for-the-identity-provider.eu-west-1.customer-facing.example.com",
        ];
        for (n, label) in [2, 3, 5, 0].into_iter().zip(long) {
            d.nodes[n].label = label.into();
        }
        let s = drawn(&d);
        assert!(!s.contains('…'), "nothing cut: {s}");
        let labels = label_lines(&s);
        assert_eq!(labels.len(), d.nodes.len());
        let lay =
            layout(&d, (0..d.nodes.len()).map(|i| box_height(&node_lines(&d, i, root_node(&d) == Some(i)))).collect());
        for (i, lines) in labels.iter().enumerate() {
            let label = &d.nodes[i].label;
            assert_eq!(lines.concat().replace(' ', ""), label.replace([' ', '\n'], ""), "node {i}: {lines:?}");
            if label.chars().count() > 60 {
                assert!(lines.len() >= 2, "{label} wraps: {lines:?}");
            }
            for l in lines {
                assert!(LABEL.size * text_em(l) <= BOX_W - 2.0 * PAD_X, "{l:?} fits its box");
            }
            // Each box is as tall as its lines, and inside the drawing.
            let (x, y) = lay.pos[i];
            assert!(lay.heights[i] >= 2.0 * PAD_Y + lines.len() as f64 * LABEL.line + META.line);
            assert!(x >= 0.0 && x + BOX_W <= lay.width && y >= 0.0 && y + lay.heights[i] <= lay.height);
        }
        // The hash is hard-broken; the names break at their dashes, slashes and dots.
        assert!(labels[5].len() >= 3, "{:?}", labels[5]);
        assert!(labels[0].iter().rev().skip(1).all(|l| l.ends_with(['.', '-'])), "{:?}", labels[0]);
    }

    #[test]
    fn edges_carry_arrowheads_from_parent_to_child() {
        let d = &diagnoses()[0];
        let s = drawn(d);
        let defs = &s[s.find("<defs>").expect("defs")..s.find("</defs>").expect("defs end")];
        assert_eq!(defs.matches("<marker id=\"arrow0\"").count(), 1);
        assert_eq!(defs.matches("<marker id=\"arrow0-chain\"").count(), 1);
        assert_eq!(s.matches("<marker ").count(), 2, "defined once");
        let edges: Vec<&str> = s.lines().filter(|l| l.starts_with("<path class=\"edge")).collect();
        assert_eq!(edges.len(), d.nodes.iter().filter(|n| n.parent.is_some()).count());
        let lay =
            layout(d, (0..d.nodes.len()).map(|i| box_height(&node_lines(d, i, root_node(d) == Some(i)))).collect());
        for e in &edges {
            let chain = e.starts_with("<path class=\"edge chain\"");
            let want = if chain { "marker-end=\"url(#arrow0-chain)\"" } else { "marker-end=\"url(#arrow0)\"" };
            assert!(e.contains(want), "{e}");
            // The path ends running right, an arrowhead short of a child's left side, at its middle.
            let d_attr = &e[e.find(" d=\"").expect("d") + 4..];
            let d_attr = &d_attr[..d_attr.find('"').expect("d ends")];
            let (v, h) = d_attr.rsplit_once(" H").expect("ends with H");
            let end_x: f64 = h.parse().expect("x");
            let end_y: f64 = v.rsplit_once('V').expect("V").1.parse().expect("y");
            let start_x: f64 = d_attr[1..].split(' ').next().expect("x").parse().expect("x");
            assert!(end_x > start_x, "runs right: {d_attr}");
            let child = (0..d.nodes.len()).find(|&i| {
                let (x, y) = lay.pos[i];
                x == end_x + ARROW && y + lay.heights[i] / 2.0 == end_y
            });
            assert!(child.is_some(), "{d_attr} ends at a child");
        }
    }

    #[test]
    fn layout_is_an_outline() {
        let d = &diagnoses()[0];
        let heights: Vec<f64> = (0..d.nodes.len()).map(|i| 40.0 + i as f64).collect();
        let lay = layout(d, heights.clone());
        // x by depth.
        assert_eq!(lay.pos[0].0, MARGIN);
        assert_eq!(lay.pos[1].0, MARGIN + INDENT);
        assert_eq!(lay.pos[5].0, MARGIN + 4.0 * INDENT);
        // Depth first: a parent above its children, each child right under the one before's subtree.
        let order: Vec<usize> = {
            let mut o: Vec<usize> = (0..d.nodes.len()).collect();
            o.sort_by(|a, b| lay.pos[*a].1.total_cmp(&lay.pos[*b].1));
            o
        };
        assert_eq!(order, [0, 1, 2, 3, 5, 6, 4]);
        for w in order.windows(2) {
            assert_eq!(lay.pos[w[1]].1, lay.pos[w[0]].1 + heights[w[0]] + GAP, "no overlap, no hole");
        }
        assert_eq!(lay.width, 2.0 * MARGIN + 4.0 * INDENT + BOX_W);
        assert_eq!(lay.height, lay.pos[4].1 + heights[4] + MARGIN);
        // Narrow enough for a 900 px window at full size, however deep the path goes here.
        assert!(lay.width < 600.0);
    }

    #[test]
    fn layout_survives_bad_parents() {
        let mut d = diagnoses()[0].clone();
        d.nodes[0].parent = Some(3); // a cycle 0 → 1 → 2 → 3 → 0
        d.nodes[6].parent = Some(99);
        let lay = layout(&d, vec![50.0; d.nodes.len()]);
        assert_eq!(lay.pos.len(), d.nodes.len());
        let mut ys: Vec<f64> = lay.pos.iter().map(|p| p.1).collect();
        ys.sort_by(f64::total_cmp);
        assert!(ys.windows(2).all(|w| w[1] - w[0] >= 50.0 + GAP), "no two boxes overlap: {ys:?}");
        let page = drawn(&d);
        assert_eq!(page.matches("<rect class=\"box\"").count(), d.nodes.len(), "every box");
        assert_eq!(page.matches("<rect x=").count(), 1, "the root's outline");
    }
}
