//! Diagnoses as text: the path tree of a trace, and the "hosts" section that opens a lint report.

use std::fmt::Write as _;

use edgecheck_checks::diagnose::{Branch, Diagnosis, NodeState, Verdict};
use edgecheck_core::Finding;

use crate::text::{BOLD, CYAN, DIM, GREEN, RED, RESET, YELLOW};
use crate::wrap::{wrapped, wrapped_under};
use crate::Style;

fn painter(color: bool) -> impl Fn(&'static str, &str) -> String {
    move |code, s| if color { format!("{code}{s}{RESET}") } else { s.to_string() }
}

fn icon(s: NodeState) -> &'static str {
    match s {
        NodeState::Error | NodeState::Missing => "✗",
        NodeState::Warning => "!",
        NodeState::Ok => "✓",
        NodeState::Unknown => "?",
    }
}

fn state_color(s: NodeState) -> &'static str {
    match s {
        NodeState::Error | NodeState::Missing => RED,
        NodeState::Warning => YELLOW,
        NodeState::Ok => GREEN,
        NodeState::Unknown => DIM,
    }
}

fn verdict_text(d: &Diagnosis) -> String {
    match (d.verdict, d.layer) {
        (Verdict::Broken, Some(l)) => format!("broken at {l}"),
        (Verdict::AtRisk, Some(l)) => format!("at risk at {l}"),
        (Verdict::Ok, _) => "ok".into(),
        (Verdict::Unclaimed, _) => "not claimed by any object".into(),
        (Verdict::Unknown, _) => "unknown: kinds that could claim it were not listed".into(),
        (_, None) => d.verdict.as_str().into(),
    }
}

fn place(f: &Finding) -> String {
    match (&f.file, f.line) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        (Some(file), None) => file.clone(),
        _ => f.object.to_string(),
    }
}

/// The chain on one line, symptom first: `A Degraded ← B ResolvedRefs=False ← C missing`.
pub(crate) fn chain_line(d: &Diagnosis) -> String {
    d.chain
        .iter()
        .map(|l| {
            let name = match &l.object.namespace {
                Some(ns) => format!("{} {ns}/{}", l.object.kind, l.object.name),
                None => format!("{} {}", l.object.kind, l.object.name),
            };
            format!("{name} {}", l.state)
        })
        .collect::<Vec<_>>()
        .join(" ← ")
}

/// The opening section of a lint or scan report: broken hosts first, each with its chain, root
/// cause and fix; hosts with nothing wrong are counted.
pub(crate) fn hosts_section(diagnoses: &[Diagnosis], findings: &[Finding], style: &Style) -> String {
    let (color, w) = (style.color, style.width);
    let paint = painter(color);
    let mut out = String::new();
    let bad: Vec<&Diagnosis> =
        diagnoses.iter().filter(|d| matches!(d.verdict, Verdict::Broken | Verdict::AtRisk)).collect();
    if bad.is_empty() {
        return out;
    }
    let _ = writeln!(out, "{}", paint(BOLD, &format!("── hosts {}", "─".repeat(w.clamp(20, 65).saturating_sub(9)))));
    for d in &bad {
        let (mark, c) = if d.verdict == Verdict::Broken { ("✗", RED) } else { ("!", YELLOW) };
        let _ = writeln!(out, "{} {}  {}", paint(c, mark), paint(BOLD, &d.target.target), paint(c, &verdict_text(d)));
        if !d.chain.is_empty() {
            out.push_str(&wrapped("  ", &chain_line(d), 4, w));
        }
        if let Some(f) = d.root_cause.and_then(|i| findings.get(i)) {
            let first = format!("  {} {} ", paint(DIM, "root cause:"), paint(BOLD, f.meta.code));
            out.push_str(&wrapped(&first, &f.message, 4, w));
            let _ = writeln!(out, "    {} {}", paint(DIM, "-->"), paint(CYAN, &place(f)));
            if let Some(fix) = &f.fix {
                out.push_str(&wrapped(&format!("    {} ", paint(DIM, "fix:")), fix, 6, w));
            }
        }
        for f in d.causes.iter().filter_map(|c| findings.get(c.root_cause)) {
            let first = format!("  {} {} ", paint(DIM, "also broken:"), paint(BOLD, f.meta.code));
            out.push_str(&wrapped(&first, &f.message, 4, w));
            let _ = writeln!(out, "    {} {}", paint(DIM, "-->"), paint(CYAN, &place(f)));
            if let Some(fix) = &f.fix {
                out.push_str(&wrapped(&format!("    {} ", paint(DIM, "fix:")), fix, 6, w));
            }
        }
    }
    let ok = diagnoses.iter().filter(|d| d.verdict == Verdict::Ok).count();
    if ok > 0 {
        let _ = writeln!(
            out,
            "{} {ok} other host{} with nothing wrong found",
            paint(GREEN, "✓"),
            if ok == 1 { "" } else { "s" }
        );
    }
    out.push('\n');
    out
}

/// One trace: header, the path tree, the root cause with its fix, the chain, what the root cause
/// explains and the other problems on the path.
pub(crate) fn trace_tree(d: &Diagnosis, findings: &[Finding], style: &Style) -> String {
    let (color, w) = (style.color, style.width);
    let paint = painter(color);
    let mut out = String::new();
    let vc = match d.verdict {
        Verdict::Broken => RED,
        Verdict::AtRisk => YELLOW,
        Verdict::Ok => GREEN,
        Verdict::Unclaimed | Verdict::Unknown => DIM,
    };
    let _ =
        writeln!(out, "{} {} — {}", paint(BOLD, "trace"), paint(BOLD, &d.target.target), paint(vc, &verdict_text(d)));
    for c in &d.claims {
        out.push_str(&paint(DIM, wrapped("  ", c, 4, w).trim_end()));
        out.push('\n');
    }
    if d.passthrough {
        let note = "TLS passes through to the backend: path order dns → listener → route → backend → tls → app";
        out.push_str(&paint(DIM, wrapped("  ", note, 4, w).trim_end()));
        out.push('\n');
    }
    out.push('\n');
    let root_node = d.chain.iter().find(|l| l.finding == d.root_cause).map(|l| l.node);
    let breaks = d.breaks_at;
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); d.nodes.len()];
    for (i, n) in d.nodes.iter().enumerate() {
        if let Some(p) = n.parent {
            children[p].push(i);
        }
    }
    // Depth first; `lead` draws the node's own connector, `below` the bars of what hangs under it.
    let mut stack: Vec<(usize, String, String)> =
        if d.nodes.is_empty() { Vec::new() } else { vec![(0, String::new(), String::new())] };
    let mut seen = vec![false; d.nodes.len()];
    while let Some((ni, lead, below)) = stack.pop() {
        if std::mem::replace(&mut seen[ni], true) {
            continue;
        }
        let n = &d.nodes[ni];
        let layer =
            if n.branch == Branch::Request { n.layer.as_str().to_string() } else { n.branch.as_str().to_string() };
        let codes: Vec<&str> = n.findings.iter().filter_map(|&fi| findings.get(fi)).map(|f| f.meta.code).collect();
        let mut marks = String::new();
        if Some(ni) == breaks {
            marks.push_str(&paint(RED, "  ◀ breaks here"));
        }
        if Some(ni) == root_node && root_node != breaks {
            marks.push_str(&paint(RED, "  ◀ root cause"));
        } else if Some(ni) == root_node {
            marks.push_str(&paint(RED, " (root cause)"));
        }
        let kids = &children[ni];
        let bar = if kids.is_empty() { "  " } else { "│ " };
        let under = format!("{:<9} {}", "", paint(DIM, &format!("{below}{bar}")));
        let first = format!(
            "{} {}{} ",
            paint(DIM, &format!("{layer:<9}")),
            paint(DIM, &lead),
            paint(state_color(n.state), icon(n.state))
        );
        let codes = if codes.is_empty() { String::new() } else { format!("  {}", paint(BOLD, &codes.join(" "))) };
        out.push_str(&wrapped_under(&first, &under, &format!("{}{codes}{marks}", n.label), w));
        for line in &n.detail {
            out.push_str(&wrapped_under(&under, &under, &paint(DIM, line), w));
        }
        for (k, &c) in kids.iter().enumerate().rev() {
            let last = k + 1 == kids.len();
            let (l, b) = if last { ("└─ ", "   ") } else { ("├─ ", "│  ") };
            stack.push((c, format!("{below}{l}"), format!("{below}{b}")));
        }
    }
    out.push('\n');
    if let Some(f) = d.root_cause.and_then(|i| findings.get(i)) {
        let _ = writeln!(out, "{} {} {}", paint(BOLD, "root cause:"), paint(BOLD, f.meta.code), f.meta.name);
        let _ = writeln!(out, "  {} {}", paint(DIM, "-->"), paint(CYAN, &place(f)));
        out.push_str(&wrapped("  ", &f.message, 2, w));
        for e in &f.evidence {
            out.push_str(&wrapped(&format!("  {} ", paint(DIM, "│ evidence:")), e, 6, w));
        }
        if let Some(fix) = &f.fix {
            out.push_str(&wrapped(&format!("  {} ", paint(DIM, "└ fix:")), fix, 6, w));
        }
    } else if d.verdict == Verdict::Ok {
        let _ = writeln!(out, "{}", paint(GREEN, "nothing wrong found on the path"));
    }
    if d.chain.len() > 1 {
        let _ = writeln!(out, "{}", paint(BOLD, "chain (symptom first):"));
        for (i, l) in d.chain.iter().enumerate() {
            let name = match &l.object.namespace {
                Some(ns) => format!("{} {ns}/{}", l.object.kind, l.object.name),
                None => format!("{} {}", l.object.kind, l.object.name),
            };
            let code =
                l.finding.and_then(|fi| findings.get(fi)).map(|f| format!("  [{}]", f.meta.code)).unwrap_or_default();
            let first = format!("  {}", if i == 0 { "  " } else { "← " });
            out.push_str(&wrapped(&first, &format!("{name} {}{code}", l.state), 6, w));
        }
    }
    let list = |out: &mut String, title: &str, items: &[usize], with_fix: bool| {
        if items.is_empty() {
            return;
        }
        let _ = writeln!(out, "{}", paint(BOLD, title));
        for f in items.iter().filter_map(|&i| findings.get(i)) {
            let first = format!("  {} {} ", f.severity.as_str(), paint(BOLD, f.meta.code));
            out.push_str(&wrapped(&first, &f.message, 4, w));
            if let Some(fix) = f.fix.as_deref().filter(|_| with_fix) {
                out.push_str(&wrapped(&format!("    {} ", paint(DIM, "└ fix:")), fix, 8, w));
            }
        }
    };
    list(&mut out, "explained by the root cause:", &d.consequences, false);
    // Independent causes, ranked (severity, then path order): fixing the root cause leaves each broken.
    for (i, c) in d.causes.iter().enumerate() {
        let Some(f) = findings.get(c.root_cause) else { continue };
        let first =
            format!("{} {} ", paint(BOLD, &format!("cause {} (independent):", i + 2)), paint(BOLD, f.meta.code));
        out.push_str(&wrapped(&first, &f.message, 2, w));
        let _ = writeln!(out, "  {} {}", paint(DIM, "-->"), paint(CYAN, &place(f)));
        if let Some(fix) = &f.fix {
            out.push_str(&wrapped(&format!("  {} ", paint(DIM, "└ fix:")), fix, 6, w));
        }
        if c.chain.len() > 1 {
            let links: Vec<String> = c.chain.iter().map(|l| format!("{} {}", l.object, l.state)).collect();
            out.push_str(&wrapped(&format!("  {} ", paint(DIM, "chain:")), &links.join(" ← "), 4, w));
        }
        let also: Vec<&str> = c.explains.iter().filter_map(|&fi| findings.get(fi)).map(|f| f.meta.code).collect();
        if !also.is_empty() {
            out.push_str(&wrapped(&format!("  {} ", paint(DIM, "explains:")), &also.join(" "), 4, w));
        }
    }
    list(&mut out, "also on this path:", &d.also, true);
    out.push('\n');
    out
}
