//! HTML: one self-contained page. Each diagnosis's path is drawn as inline SVG with a small tree
//! layout (x by depth, y by leaf order, a parent centred on its children), followed by its summary,
//! its chain as text and its findings; the findings in no diagnosis come last.
//!
//! Nothing is fetched: no scripts, fonts, stylesheets or images from anywhere; the only links are
//! anchors within the page. Every piece of text is HTML-escaped.

use std::fmt::Write as _;

use edgecheck_checks::diagnose::{Branch, Diagnosis, NodeState};
use edgecheck_core::Finding;

use crate::dot::{chain_edge, diagnosis_findings, empty_path_note, on_chain, root_node, state_colors};
use crate::Report;

const BOX_W: f64 = 190.0;
const BOX_H: f64 = 54.0;
const COL: f64 = 222.0;
const ROW: f64 = 68.0;
const MARGIN: f64 = 12.0;
const LABEL_CHARS: usize = 27;

const STYLE: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;font-size:14px;margin:0;padding:16px 24px;color:#1d1d1d;background:#ffffff}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:16px;margin:0 0 6px;word-break:break-all}
h3{font-size:13px;margin:10px 0 4px;text-transform:uppercase;color:#555}
.counts{color:#444;margin:0 0 12px}
nav ul{margin:0 0 16px;padding-left:18px}
section{border:1px solid #d6d6d6;border-radius:6px;padding:12px 14px;margin:0 0 18px}
.summary{margin:0 0 8px}
.graph{overflow-x:auto;margin:0 0 6px}
.graph svg{max-width:100%;height:auto}
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
                "<li><a href=\"#d{di}\">{}</a> <span class=\"verdict {v}\">{v}</span></li>",
                esc(&d.target.target),
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

fn diagnosis(out: &mut String, findings: &[Finding], di: usize, d: &Diagnosis) {
    let v = d.verdict.as_str();
    let _ = writeln!(out, "<section class=\"diagnosis\" id=\"d{di}\">");
    let _ = writeln!(out, "<h2><span class=\"verdict {v}\">{v}</span>{}</h2>", esc(&d.target.target));
    let _ = writeln!(out, "<p class=\"summary\">{}</p>", esc(&d.summary));
    if d.nodes.is_empty() {
        let _ = writeln!(out, "<p class=\"nopath\">{}</p>", esc(empty_path_note(d)));
    } else {
        out.push_str("<div class=\"graph\">\n");
        svg(out, d);
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

/// Positions of the boxes: `(x, y)` of each node's top-left corner, and the drawing's size.
struct Layout {
    pos: Vec<(f64, f64)>,
    width: f64,
    height: f64,
}

/// x by depth, y by leaf order; an inner node sits midway between its first and last child.
/// Nodes whose parent is out of range, or who sit on a cycle, start trees of their own.
fn layout(d: &Diagnosis) -> Layout {
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
    let mut next_row = 0usize;
    let mut max_depth = 0usize;
    // Roots first, then anything a cycle kept unreachable.
    let mut starts = roots;
    starts.extend(0..n);
    for s in starts {
        if seen[s] {
            continue;
        }
        place(s, 0, &children, &mut seen, &mut pos, &mut next_row, &mut max_depth);
    }
    let rows = next_row.max(1);
    Layout {
        pos,
        width: 2.0 * MARGIN + max_depth as f64 * COL + BOX_W,
        height: 2.0 * MARGIN + (rows - 1) as f64 * ROW + BOX_H + 8.0,
    }
}

/// Places `i` and its subtree; returns the node's y.
fn place(
    i: usize,
    depth: usize,
    children: &[Vec<usize>],
    seen: &mut [bool],
    pos: &mut [(f64, f64)],
    next_row: &mut usize,
    max_depth: &mut usize,
) -> f64 {
    seen[i] = true;
    *max_depth = (*max_depth).max(depth);
    let x = MARGIN + depth as f64 * COL;
    let mut ys = Vec::new();
    for &c in &children[i] {
        if !seen[c] {
            ys.push(place(c, depth + 1, children, seen, pos, next_row, max_depth));
        }
    }
    let y = match (ys.first(), ys.last()) {
        (Some(a), Some(b)) => (a + b) / 2.0,
        _ => {
            let y = MARGIN + 4.0 + *next_row as f64 * ROW;
            *next_row += 1;
            y
        }
    };
    pos[i] = (x, y);
    y
}

fn svg(out: &mut String, d: &Diagnosis) {
    let lay = layout(d);
    let root = root_node(d);
    let chain = on_chain(d);
    let _ = writeln!(
        out,
        "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"request path of {}\">",
        esc(&d.target.target),
        w = lay.width,
        h = lay.height
    );
    // Edges first, so boxes cover their ends.
    for (i, node) in d.nodes.iter().enumerate() {
        let Some(p) = node.parent.filter(|&p| p < d.nodes.len() && p != i) else { continue };
        let (px, py) = lay.pos[p];
        let (cx, cy) = lay.pos[i];
        let (x1, y1) = (px + BOX_W, py + BOX_H / 2.0);
        let (x2, y2) = (cx, cy + BOX_H / 2.0);
        let mid = if x2 > x1 { x1 + (x2 - x1) / 2.0 } else { x1 + 10.0 };
        let thick = chain_edge(&chain, p, i);
        let (stroke, width) = if thick { ("#c62828", 4.0) } else { ("#777777", 1.5) };
        let dash = if node.branch != Branch::Request { " stroke-dasharray=\"6 4\"" } else { "" };
        let _ = writeln!(
            out,
            "<path class=\"edge{}\" d=\"M{x1} {y1} H{mid} V{y2} H{x2}\" fill=\"none\" stroke=\"{stroke}\" stroke-width=\"{width}\"{dash}/>",
            if thick { " chain" } else { "" }
        );
    }
    for (i, node) in d.nodes.iter().enumerate() {
        let (x, y) = lay.pos[i];
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
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"9\" fill=\"none\" stroke=\"#c62828\" stroke-width=\"2\"/>",
                x - 5.0,
                y - 5.0,
                BOX_W + 10.0,
                BOX_H + 10.0
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
            "<rect x=\"{x}\" y=\"{y}\" width=\"{BOX_W}\" height=\"{BOX_H}\" rx=\"6\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{width}\"{dash}/>"
        );
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"11.5\" font-weight=\"600\" fill=\"#111111\">{}</text>",
            x + 8.0,
            y + 17.0,
            esc(&short(&node.label))
        );
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#333333\">{} · {} · {}</text>",
            x + 8.0,
            y + 32.0,
            node.layer.as_str(),
            esc(node.role.as_str()),
            node.state.as_str()
        );
        if is_root {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" font-size=\"10\" font-weight=\"700\" fill=\"#c62828\">ROOT CAUSE</text>",
                x + 8.0,
                y + 46.0
            );
        } else if d.breaks_at == Some(i) {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" font-size=\"10\" font-weight=\"700\" fill=\"#c62828\">BREAKS HERE</text>",
                x + 8.0,
                y + 46.0
            );
        } else if let Some(first) = node.detail.first() {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#555555\">{}</text>",
                x + 8.0,
                y + 46.0,
                esc(&short(first))
            );
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
}

/// One line, at most [`LABEL_CHARS`] characters (the full text is in the node's `<title>`).
fn short(s: &str) -> String {
    let one: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if one.chars().count() <= LABEL_CHARS {
        one
    } else {
        let mut t: String = one.chars().take(LABEL_CHARS - 1).collect();
        t.push('…');
        t
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
        for bad in ["<script", "<link", "<img", "<iframe", "<object", "<embed", "@import", "url("] {
            assert!(!lower.contains(bad), "page contains {bad}");
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
        assert!(page.contains(&esc(&short(PLANTED_LABEL))));
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

    #[test]
    fn layout_is_a_tree() {
        let d = &diagnoses()[0];
        let lay = layout(d);
        // x by depth.
        assert_eq!(lay.pos[0].0, MARGIN);
        assert_eq!(lay.pos[1].0, MARGIN + COL);
        assert_eq!(lay.pos[5].0, MARGIN + 4.0 * COL);
        // Leaves get rows of their own; no two boxes overlap.
        for a in 0..d.nodes.len() {
            for b in a + 1..d.nodes.len() {
                let (pa, pb) = (lay.pos[a], lay.pos[b]);
                let apart = (pa.0 - pb.0).abs() >= BOX_W || (pa.1 - pb.1).abs() >= BOX_H;
                assert!(apart, "nodes {a} and {b} overlap: {pa:?} {pb:?}");
            }
        }
        // A parent is centred on its children.
        let (c1, c2) = (lay.pos[2].1, lay.pos[4].1);
        assert_eq!(lay.pos[1].1, (c1 + c2) / 2.0);
        assert!(lay.width >= lay.pos[5].0 + BOX_W);
    }

    #[test]
    fn layout_survives_bad_parents() {
        let mut d = diagnoses()[0].clone();
        d.nodes[0].parent = Some(3); // a cycle 0 → 1 → 2 → 3 → 0
        d.nodes[6].parent = Some(99);
        let lay = layout(&d);
        assert_eq!(lay.pos.len(), d.nodes.len());
        let page = {
            let mut s = String::new();
            svg(&mut s, &d);
            s
        };
        assert_eq!(page.matches("<rect x=").count(), d.nodes.len() + 1, "every box, and the root's outline");
    }
}
