//! Human text: findings grouped by layer in path order, each with file:line, evidence and fix, then a
//! one-line summary. Colours only when asked (the CLI asks on a TTY).

use std::fmt::Write as _;

use edgecheck_core::{Finding, Layer, Severity};

use crate::snippet::{Snippet, Sources};
use crate::wrap::{truncate, wrapped};
use crate::{Report, Style};

pub(crate) const RESET: &str = "\x1b[0m";
pub(crate) const BOLD: &str = "\x1b[1m";
pub(crate) const DIM: &str = "\x1b[2m";
pub(crate) const RED: &str = "\x1b[31m";
pub(crate) const GREEN: &str = "\x1b[32m";
pub(crate) const YELLOW: &str = "\x1b[33m";
const BLUE: &str = "\x1b[34m";
pub(crate) const CYAN: &str = "\x1b[36m";

/// Renders findings as text.
pub fn render_text(r: &Report<'_>, style: &Style) -> String {
    let color = style.color;
    let paint = |code: &'static str, s: &str| if color { format!("{code}{s}{RESET}") } else { s.to_string() };
    let mut sources = Sources::default();
    let mut out = String::new();
    if r.trace {
        // Each traced target: its path tree, then the findings on its path in full.
        let mut on_path: Vec<usize> = Vec::new();
        for d in r.diagnoses {
            out.push_str(&crate::trace_text::trace_tree(d, r.findings, style));
            let mut idx: Vec<usize> = d.nodes.iter().flat_map(|n| n.findings.iter().copied()).collect();
            idx.sort_unstable();
            idx.dedup();
            let findings: Vec<_> = idx.iter().filter_map(|&i| r.findings.get(i)).cloned().collect();
            out.push_str(&render_findings(&Report { findings: &findings, ..*r }, style, &mut sources));
            on_path.extend(idx);
        }
        on_path.sort_unstable();
        on_path.dedup();
        let elsewhere = r.findings.len().saturating_sub(on_path.len());
        if elsewhere > 0 {
            let note = format!(
                "{elsewhere} other finding{} in the inventory, not on this path (`edgecheck lint` lists them)",
                plural(elsewhere)
            );
            out.push_str(&paint(DIM, wrapped("", &note, 0, style.width).trim_end()));
            out.push('\n');
        }
        out.push_str(&summary_line(r, color));
        return out;
    }
    out.push_str(&crate::trace_text::hosts_section(r.diagnoses, r.findings, style));
    if r.group_by_object {
        let mut targets: Vec<&edgecheck_core::ObjectRef> = Vec::new();
        for f in r.findings {
            if !targets.contains(&&f.object) {
                targets.push(&f.object);
            }
        }
        if style.verbose {
            // Every probed endpoint, healthy or not, with what the probe saw.
            for o in r.observations {
                let _ = writeln!(out, "{}", paint(BOLD, &format!("══ {} ", o.target)));
                let findings: Vec<_> = r
                    .findings
                    .iter()
                    .filter(|f| f.object.is_endpoint() && endpoint_of(&f.object.name, o))
                    .cloned()
                    .collect();
                out.push_str(&crate::probe_text::observation(o, &findings, style));
                let sub = Report { findings: &findings, group_by_object: false, ..*r };
                out.push_str(&render_findings(&sub, style, &mut sources));
            }
            targets.retain(|t| !r.observations.iter().any(|o| t.is_endpoint() && endpoint_of(&t.name, o)));
        }
        for t in targets {
            let _ = writeln!(out, "{}", paint(BOLD, &format!("══ {} ", t.name)));
            let findings: Vec<_> = r.findings.iter().filter(|f| &f.object == t).cloned().collect();
            let sub = Report { findings: &findings, group_by_object: false, ..*r };
            out.push_str(&render_findings(&sub, style, &mut sources));
        }
    } else {
        out.push_str(&render_findings(r, style, &mut sources));
    }
    out.push_str(&summary_line(r, color));
    out
}

/// Whether an endpoint finding's name is this observation's (its URL, or its target when it has none).
fn endpoint_of(name: &str, o: &edgecheck_core::observation::TargetObservation) -> bool {
    name == if o.url.is_empty() { o.target.as_str() } else { o.url.as_str() }
}

/// One line per finding: `file:line:col: CODE message` (the column where the file can be read; an
/// endpoint or a live object in place of a file), then the summary line.
pub fn render_concise(r: &Report<'_>, style: &Style) -> String {
    let mut sources = Sources::default();
    let mut out = String::new();
    for f in r.findings {
        let place = place(f, &mut sources);
        let message = f.message.replace('\n', " ");
        let _ = writeln!(out, "{place}: {} {message}", f.meta.code);
    }
    out.push_str(&summary_line(r, style.color));
    out
}

/// `file:line:col` (the column of the marked field, when the file can be read), `file:line`, `file`, or
/// the object.
fn place(f: &Finding, sources: &mut Sources) -> String {
    match (&f.file, f.line) {
        (Some(file), Some(line)) => match sources.snippet(file, line, hides_value(f)) {
            Some(s) => format!("{file}:{line}:{}", s.column()),
            None => format!("{file}:{line}"),
        },
        (Some(file), None) => file.clone(),
        _ => f.object.to_string(),
    }
}

/// A parse or schema error (LOD001, a Secret's invalid data LOD003, a wrongly typed field LOD006) may be about
/// the value itself, which may be a credential typed wrongly: its snippet shows keys only. Other input
/// findings (a duplicate, a missing name, a build) point at keys and are shown as written.
pub(crate) fn hides_value(f: &Finding) -> bool {
    f.meta.layer == Layer::Input && matches!(f.meta.code, "LOD001" | "LOD003" | "LOD006")
}

/// Findings alone, grouped by layer as [`render_text`] shows them, without hosts or a summary line (the
/// sections of `lint --diff-base`); control characters escaped first.
pub(crate) fn findings_block(findings: &[Finding], style: &Style) -> String {
    let summary = edgecheck_checks::Summary::default();
    let r = Report {
        findings,
        objects: &Vec::new(),
        summary: &summary,
        version: "",
        render_tools: &[],
        group_by_object: false,
        diagnoses: &[],
        trace: false,
        observations: &[],
    };
    let escaped = crate::escape::Escaped::of(&r);
    let escaped_report = escaped.as_ref().map(|e| e.report(&r));
    render_findings(escaped_report.as_ref().unwrap_or(&r), style, &mut Sources::default())
}

fn render_findings(r: &Report<'_>, style: &Style, sources: &mut Sources) -> String {
    let color = style.color;
    let width = style.width;
    let paint = |code: &'static str, s: &str| if color { format!("{code}{s}{RESET}") } else { s.to_string() };
    let mut out = String::new();
    let mut layers: Vec<Layer> = r.findings.iter().map(|f| f.meta.layer).collect();
    layers.sort_by_key(|l| l.path_rank(false));
    layers.dedup();
    let rule = width.clamp(20, 64);
    for layer in layers {
        let _ = writeln!(
            out,
            "{}",
            paint(BOLD, &format!("── {layer} {}", "─".repeat(rule.saturating_sub(layer.as_str().len() + 4))))
        );
        let mut fs: Vec<_> = r.findings.iter().filter(|f| f.meta.layer == layer).collect();
        fs.sort_by(|a, b| (a.severity, &a.file, a.line, a.meta.code).cmp(&(b.severity, &b.file, b.line, b.meta.code)));
        for f in fs {
            let sev = match f.severity {
                Severity::Error => paint(RED, "error"),
                Severity::Warning => paint(YELLOW, "warning"),
                _ => paint(BLUE, "info"),
            };
            let head = format!("{sev}[{}] {}: ", paint(BOLD, f.meta.code), f.meta.name);
            out.push_str(&wrapped(&head, &f.message, 4, width));
            let snippet = match (&f.file, f.line, style.snippets) {
                (Some(file), Some(line), true) => sources.snippet(file, line, hides_value(f)),
                _ => None,
            };
            let notes: Vec<(&edgecheck_core::Note, Option<Snippet>)> = f
                .notes
                .iter()
                // A note on a field the fix must change shows its lines; one on a whole object, its place.
                .map(|n| {
                    (
                        n,
                        if style.snippets && n.label.is_some() {
                            sources.snippet(&n.file, n.line, false)
                        } else {
                            None
                        },
                    )
                })
                .collect();
            let gutter = std::iter::once(snippet.as_ref())
                .chain(notes.iter().map(|(_, s)| s.as_ref()))
                .flatten()
                .flat_map(|s| s.lines.iter().map(|l| l.number.to_string().len()))
                .max()
                .unwrap_or(1)
                .max(2);
            let pad = " ".repeat(gutter);
            let place = match (&f.file, f.line, &snippet) {
                (Some(file), Some(line), Some(s)) => format!("{file}:{line}:{}", s.column()),
                _ => place(f, sources),
            };
            let _ = writeln!(out, "{pad}{} {}", paint(DIM, "-->"), paint(CYAN, &place));
            if let Some(s) = &snippet {
                draw(&mut out, s, gutter, width, "", color);
            }
            for (n, s) in &notes {
                let what = match &n.label {
                    Some(label) => format!("{}: {label}", n.object),
                    None => n.object.to_string(),
                };
                match s {
                    Some(s) => {
                        let _ = writeln!(
                            out,
                            "{pad}{} {}",
                            paint(DIM, ":::"),
                            paint(CYAN, &format!("{}:{}:{}", n.file, n.line, s.column()))
                        );
                        draw(&mut out, s, gutter, width, &format!("note: {what}"), color);
                    }
                    None => {
                        let first =
                            format!("{pad}{} {}  ", paint(DIM, ":::"), paint(CYAN, &format!("{}:{}", n.file, n.line)));
                        out.push_str(&wrapped(&first, &format!("note: {what}"), gutter + 6, width));
                    }
                }
            }
            let indent = gutter + 1;
            let lead = " ".repeat(indent);
            for e in &f.evidence {
                out.push_str(&wrapped(&format!("{lead}{} ", paint(DIM, "│ evidence:")), e, indent + 4, width));
            }
            let unplaced: Vec<String> = f
                .related
                .iter()
                .filter(|r| !f.notes.iter().any(|n| &n.object == *r))
                .map(ToString::to_string)
                .collect();
            if !unplaced.is_empty() {
                out.push_str(&wrapped(
                    &format!("{lead}{} ", paint(DIM, "│ related:")),
                    &unplaced.join(", "),
                    indent + 4,
                    width,
                ));
            }
            if let Some(fix) = &f.fix {
                out.push_str(&wrapped(&format!("{lead}{} ", paint(DIM, "└ fix:")), fix, indent + 4, width));
            }
            if let Some(p) = &f.patch {
                for l in p.lines() {
                    let _ = writeln!(out, "{lead}     {l}");
                }
            }
            out.push('\n');
        }
    }
    out
}

/// Draws a snippet: ` n | line` rows, then the marked field under the last (with `label` after it).
fn draw(out: &mut String, s: &Snippet, gutter: usize, width: usize, label: &str, color: bool) {
    let paint = |code: &'static str, s: &str| if color { format!("{code}{s}{RESET}") } else { s.to_string() };
    let bar = paint(DIM, "|");
    let room = width.saturating_sub(gutter + 3).max(20);
    let _ = writeln!(out, "{} {bar}", " ".repeat(gutter));
    for l in &s.lines {
        let text = truncate(&l.text, room);
        let _ = writeln!(out, "{} {bar} {}", paint(DIM, &format!("{:>gutter$}", l.number)), text.trim_end());
    }
    let (from, to) = s.mark;
    let from = from.min(room.saturating_sub(1));
    let to = to.min(room).max(from + 1);
    let carets = paint(if label.is_empty() { RED } else { CYAN }, &"^".repeat(to - from));
    let mut mark = format!("{} {bar} {}{carets}", " ".repeat(gutter), " ".repeat(from));
    if !label.is_empty() {
        let used = gutter + 3 + to;
        let text = wrapped("", label, 0, width.saturating_sub(used + 1).max(20));
        let mut lines = text.lines();
        if let Some(first) = lines.next() {
            mark.push(' ');
            mark.push_str(&paint(CYAN, first));
        }
        let _ = writeln!(out, "{mark}");
        for l in lines {
            let _ = writeln!(out, "{} {bar} {} {}", " ".repeat(gutter), " ".repeat(to), paint(CYAN, l));
        }
    } else {
        let _ = writeln!(out, "{mark}");
    }
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

#[cfg(test)]
mod tests {
    use edgecheck_checks::find_check;
    use edgecheck_core::kind::K;
    use edgecheck_core::{Note, ObjectRef};

    use super::*;

    const MANIFEST: &str = "apiVersion: v1
kind: Secret
metadata:
  name: shop-tls
  namespace: shop
data:
  tls.key: UFJJVkFURS1LRVktQ0FOQVJZ
---
apiVersion: alibabacloud.com/v1
kind: AlbConfig
metadata:
  name: alb
spec:
  listeners:
  - port: 80
    protocol: HTTP
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  namespace: shop
spec:
  ingressClassName: alb
  tls: [{hosts: [shop.example.com], secretName: shop-tls}]
";

    /// A finding at the Ingress's `spec.tls`, a note at the AlbConfig's `spec.listeners` the fix changes,
    /// and a note at a line inside the Secret's `data`.
    fn report_over(file: &str, f: impl FnOnce(&Report<'_>) -> String) -> String {
        let at = |line: u32, object: ObjectRef, label: Option<&str>| Note {
            object,
            file: file.into(),
            line,
            label: label.map(str::to_string),
        };
        let alb = ObjectRef { api_version: None, kind: "AlbConfig".into(), namespace: None, name: "alb".into() };
        let secret = ObjectRef::new(K::SECRET, Some("shop"), "shop-tls");
        let findings = vec![Finding {
            meta: find_check("LSN030").expect("LSN030").meta(),
            severity: Severity::Error,
            object: ObjectRef::new(K::INGRESS, Some("shop"), "shop"),
            related: vec![alb.clone(), secret.clone()],
            file: Some(file.into()),
            line: Some(25),
            message: "Ingress `shop/shop` needs ALB listener 443/HTTPS, which AlbConfig `alb` does not define; \
                      requests to port 443 are not served"
                .into(),
            evidence: vec!["AlbConfig `alb` spec.listeners: 80/HTTP".into()],
            fix: Some("add `- port: 443` with `protocol: HTTPS` to AlbConfig `alb` spec.listeners".into()),
            patch: None,
            ignore_annotation: None,
            port: Some(443),
            hosts: Vec::new(),
            field: None,
            root: None,
            cluster: None,
            build: None,
            notes: vec![
                at(14, alb, Some("the listeners the fix adds to")),
                at(7, secret, Some("the key the certificate is read from")),
            ],
        }];
        let summary = edgecheck_checks::Summary { objects: 3, errors: 1, files: 1, ..Default::default() };
        f(&Report {
            findings: &findings,
            objects: &Vec::new(),
            summary: &summary,
            version: "t",
            group_by_object: false,
            diagnoses: &[],
            trace: false,
            render_tools: &[],
            observations: &[],
        })
    }

    #[test]
    fn snippets_mark_the_field_and_each_note_wrapped_to_the_width() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("alb.yaml");
        std::fs::write(&path, MANIFEST).expect("write");
        let file = path.to_string_lossy().into_owned();
        let style = Style { width: 72, ..Style::default() };
        let out = report_over(&file, |r| render_text(r, &style)).replace(&file, "alb.yaml");
        assert!(!out.contains("UFJJVkFURS1LRVktQ0FOQVJZ"), "a Secret value in a snippet:\n{out}");
        assert!(out.contains(" 7 |   tls.key: ***"), "{out}");
        assert!(out.lines().all(|l| l.chars().count() <= 72), "{out}");
        insta::assert_snapshot!(out);
        // Without snippets: the places only.
        let plain = report_over(&file, |r| render_text(r, &Style { snippets: false, ..style }));
        assert!(!plain.contains(" | "), "{plain}");
        assert!(plain.contains(&format!("  --> {file}:25:3\n")), "{plain}");
        assert!(plain.contains(&format!("  ::: {file}:14  note: AlbConfig `alb`")), "{plain}");
        // Concise: one line per finding, the column of the marked field.
        let concise = report_over(&file, |r| render_concise(r, &style)).replace(&file, "alb.yaml");
        assert_eq!(
            concise.lines().next(),
            Some("alb.yaml:25:3: LSN030 Ingress `shop/shop` needs ALB listener 443/HTTPS, which AlbConfig `alb` does not define; requests to port 443 are not served")
        );
        // A file that can no longer be read just has no snippet.
        std::fs::remove_file(&path).expect("remove");
        let gone = report_over(&file, |r| render_text(r, &style));
        assert!(gone.contains(&format!("  --> {file}:25\n")) && !gone.contains(" | "), "{gone}");
    }
}
