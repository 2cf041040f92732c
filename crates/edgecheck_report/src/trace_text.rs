//! Diagnoses as text: the path tree of a trace, and the "hosts" section that opens a lint report.

use std::fmt::Write as _;

use edgecheck_checks::diagnose::{Branch, Diagnosis, NodeState, Verdict};
use edgecheck_core::Finding;

use crate::text::{BOLD, CYAN, DIM, GREEN, RED, RESET, YELLOW};

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
pub(crate) fn hosts_section(diagnoses: &[Diagnosis], findings: &[Finding], color: bool) -> String {
    let paint = painter(color);
    let mut out = String::new();
    let bad: Vec<&Diagnosis> =
        diagnoses.iter().filter(|d| matches!(d.verdict, Verdict::Broken | Verdict::AtRisk)).collect();
    if bad.is_empty() {
        return out;
    }
    let _ = writeln!(out, "{}", paint(BOLD, &format!("── hosts {}", "─".repeat(56))));
    for d in &bad {
        let (mark, c) = if d.verdict == Verdict::Broken { ("✗", RED) } else { ("!", YELLOW) };
        let _ = writeln!(out, "{} {}  {}", paint(c, mark), paint(BOLD, &d.target.target), paint(c, &verdict_text(d)));
        if !d.chain.is_empty() {
            let _ = writeln!(out, "  {}", chain_line(d));
        }
        if let Some(f) = d.root_cause.and_then(|i| findings.get(i)) {
            let _ = writeln!(
                out,
                "  {} {} {}  {}",
                paint(DIM, "root cause:"),
                paint(BOLD, f.meta.code),
                f.message,
                paint(CYAN, &place(f))
            );
            if let Some(fix) = &f.fix {
                let _ = writeln!(out, "  {} {fix}", paint(DIM, "fix:"));
            }
        }
        for f in d.causes.iter().filter_map(|c| findings.get(c.root_cause)) {
            let _ = writeln!(
                out,
                "  {} {} {}  {}",
                paint(DIM, "also broken:"),
                paint(BOLD, f.meta.code),
                f.message,
                paint(CYAN, &place(f))
            );
            if let Some(fix) = &f.fix {
                let _ = writeln!(out, "    {} {fix}", paint(DIM, "fix:"));
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
pub(crate) fn trace_tree(d: &Diagnosis, findings: &[Finding], color: bool) -> String {
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
        let _ = writeln!(out, "  {}", paint(DIM, c));
    }
    if d.passthrough {
        let _ = writeln!(
            out,
            "  {}",
            paint(DIM, "TLS passes through to the backend: path order dns → listener → route → backend → tls → app")
        );
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
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    while let Some((ni, depth)) = stack.pop() {
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
        let indent = "   ".repeat(depth);
        let branch = if depth == 0 { String::new() } else { "└ ".to_string() };
        let _ = writeln!(
            out,
            "{:<9} {indent}{branch}{} {}{}{}",
            paint(DIM, &layer),
            paint(state_color(n.state), icon(n.state)),
            n.label,
            if codes.is_empty() { String::new() } else { format!("  {}", paint(BOLD, &codes.join(" "))) },
            marks
        );
        let pad = " ".repeat(9 + 1 + indent.len() + branch.chars().count() + 2);
        for line in &n.detail {
            let _ = writeln!(out, "{pad}{}", paint(DIM, line));
        }
        for &c in children[ni].iter().rev() {
            stack.push((c, depth + 1));
        }
    }
    out.push('\n');
    if let Some(f) = d.root_cause.and_then(|i| findings.get(i)) {
        let _ = writeln!(
            out,
            "{} {} {}  {}",
            paint(BOLD, "root cause:"),
            paint(BOLD, f.meta.code),
            f.meta.name,
            paint(CYAN, &place(f))
        );
        let _ = writeln!(out, "  {}", f.message);
        for e in &f.evidence {
            let _ = writeln!(out, "  {} {e}", paint(DIM, "│ evidence:"));
        }
        if let Some(fix) = &f.fix {
            let _ = writeln!(out, "  {} {fix}", paint(DIM, "└ fix:"));
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
            let _ = writeln!(out, "  {}{name} {}{code}", if i == 0 { "  " } else { "← " }, l.state);
        }
    }
    let list = |out: &mut String, title: &str, items: &[usize], with_fix: bool| {
        if items.is_empty() {
            return;
        }
        let _ = writeln!(out, "{}", paint(BOLD, title));
        for f in items.iter().filter_map(|&i| findings.get(i)) {
            let _ = writeln!(out, "  {} {} {}", f.severity.as_str(), paint(BOLD, f.meta.code), f.message);
            if let Some(fix) = f.fix.as_deref().filter(|_| with_fix) {
                let _ = writeln!(out, "    {} {fix}", paint(DIM, "└ fix:"));
            }
        }
    };
    list(&mut out, "explained by the root cause:", &d.consequences, false);
    // Independent causes, ranked (severity, then path order): fixing the root cause leaves each broken.
    for (i, c) in d.causes.iter().enumerate() {
        let Some(f) = findings.get(c.root_cause) else { continue };
        let _ = writeln!(
            out,
            "{} {} {}  {}",
            paint(BOLD, &format!("cause {} (independent):", i + 2)),
            paint(BOLD, f.meta.code),
            f.message,
            paint(CYAN, &place(f))
        );
        if let Some(fix) = &f.fix {
            let _ = writeln!(out, "  {} {fix}", paint(DIM, "└ fix:"));
        }
        if c.chain.len() > 1 {
            let links: Vec<String> = c.chain.iter().map(|l| format!("{} {}", l.object, l.state)).collect();
            let _ = writeln!(out, "  {} {}", paint(DIM, "chain:"), links.join(" ← "));
        }
        let also: Vec<&str> = c.explains.iter().filter_map(|&fi| findings.get(fi)).map(|f| f.meta.code).collect();
        if !also.is_empty() {
            let _ = writeln!(out, "  {} {}", paint(DIM, "explains:"), also.join(" "));
        }
    }
    list(&mut out, "also on this path:", &d.also, true);
    out.push('\n');
    out
}
