//! Graphviz: one `digraph`, one `cluster` per diagnosis. Nodes are coloured by state, side branches
//! are dashed, the chain's edges are drawn thick and the root cause has a double outline.
//!
//! The helpers at the bottom (root-cause node, chain membership, a diagnosis's findings) are shared
//! with the Mermaid and HTML renderers, so the three pictures agree.

use std::fmt::Write as _;

use edgecheck_checks::diagnose::{Branch, Diagnosis, NodeState, Verdict};

use crate::Report;

/// Renders every diagnosis as one Graphviz `digraph` (`dot -Tsvg`).
pub fn render_dot(report: &Report<'_>) -> String {
    let mut out = String::new();
    out.push_str("digraph edgecheck {\n");
    out.push_str("  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=12, compound=true];\n");
    out.push_str("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n");
    out.push_str("  edge [color=\"#555555\", arrowsize=0.7];\n");
    if report.diagnoses.is_empty() {
        out.push_str("  empty [label=\"no diagnoses\", shape=plaintext, style=\"\"];\n");
    }
    for (di, d) in report.diagnoses.iter().enumerate() {
        let root = root_node(d);
        let chain = on_chain(d);
        let _ = writeln!(out, "  subgraph cluster_{di} {{");
        let _ = writeln!(out, "    label={};", quote(&format!("{} ({})", d.target.target, d.verdict.as_str())));
        out.push_str("    style=\"rounded\";\n    color=\"#999999\";\n");
        if d.nodes.is_empty() {
            let _ = writeln!(out, "    d{di}none [label={}, shape=plaintext, style=\"\"];", quote(empty_path_note(d)));
        }
        for (ni, n) in d.nodes.iter().enumerate() {
            let (fill, stroke) = state_colors(n.state);
            let mut label = n.label.clone();
            let _ = write!(label, "\n{} · {}", n.layer.as_str(), n.state.as_str());
            if root == Some(ni) {
                label.push_str("\nroot cause");
            } else if d.breaks_at == Some(ni) {
                label.push_str("\nbreaks here");
            }
            let mut style = String::from("rounded,filled");
            if n.branch != Branch::Request {
                style.push_str(",dashed");
            }
            if n.state == NodeState::Missing {
                style.push_str(",bold");
            }
            let _ = write!(
                out,
                "    d{di}n{ni} [label={}, fillcolor=\"{fill}\", color=\"{stroke}\", style=\"{style}\"",
                quote(&label)
            );
            if root == Some(ni) {
                out.push_str(", peripheries=2, penwidth=2");
            } else if chain[ni] {
                out.push_str(", penwidth=2");
            }
            let _ = writeln!(out, ", tooltip={}];", quote(&format!("{} ({})", n.role, n.branch.as_str())));
        }
        for (ni, n) in d.nodes.iter().enumerate() {
            let Some(p) = n.parent.filter(|&p| p < d.nodes.len()) else { continue };
            let mut attrs = Vec::new();
            if chain_edge(&chain, p, ni) {
                attrs.push("penwidth=3, color=\"#c62828\"".to_string());
            }
            if n.branch != Branch::Request {
                attrs.push("style=dashed".to_string());
            }
            if attrs.is_empty() {
                let _ = writeln!(out, "    d{di}n{p} -> d{di}n{ni};");
            } else {
                let _ = writeln!(out, "    d{di}n{p} -> d{di}n{ni} [{}];", attrs.join(", "));
            }
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

/// A DOT quoted string: quotes and backslashes escaped, newlines as `\n` (centred lines), other
/// control characters dropped.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// What to draw for a diagnosis without path nodes (lint keeps only the verdict of a healthy host).
pub(crate) fn empty_path_note(d: &Diagnosis) -> &'static str {
    match d.verdict {
        Verdict::Ok => "nothing wrong found (edgecheck trace draws the path)",
        Verdict::Unclaimed => "no object claims this host",
        Verdict::Unknown => "who claims this host is unknown (a kind could not be listed)",
        _ => "no path",
    }
}

/// Fill and stroke colours of a state (shared by all diagram renderers).
pub(crate) fn state_colors(s: NodeState) -> (&'static str, &'static str) {
    match s {
        NodeState::Error | NodeState::Missing => ("#f8c4c4", "#c62828"),
        NodeState::Warning => ("#fde0b0", "#e07b00"),
        NodeState::Ok => ("#c8ebc9", "#2e7d32"),
        NodeState::Unknown => ("#e4e4e4", "#888888"),
    }
}

/// The node that carries the root cause: the one whose findings include it, else the last link of
/// the chain.
pub(crate) fn root_node(d: &Diagnosis) -> Option<usize> {
    let by_finding = d.root_cause.and_then(|rc| d.nodes.iter().position(|n| n.findings.contains(&rc)));
    by_finding.or_else(|| d.chain.last().map(|l| l.node)).filter(|&i| i < d.nodes.len())
}

/// Per node: whether a link of the chain is on it.
pub(crate) fn on_chain(d: &Diagnosis) -> Vec<bool> {
    let mut v = vec![false; d.nodes.len()];
    for l in &d.chain {
        if let Some(x) = v.get_mut(l.node) {
            *x = true;
        }
    }
    v
}

/// A tree edge is on the chain when both its ends are.
pub(crate) fn chain_edge(on_chain: &[bool], parent: usize, child: usize) -> bool {
    on_chain.get(parent).copied().unwrap_or(false) && on_chain.get(child).copied().unwrap_or(false)
}

/// The findings a diagnosis names (on its nodes, its chain, its root cause, consequences and
/// others on the path), sorted, each once.
pub(crate) fn diagnosis_findings(d: &Diagnosis) -> Vec<usize> {
    let mut v: Vec<usize> = d
        .nodes
        .iter()
        .flat_map(|n| n.findings.iter().copied())
        .chain(d.chain.iter().filter_map(|l| l.finding))
        .chain(d.root_cause)
        .chain(d.consequences.iter().copied())
        .chain(d.also.iter().copied())
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis_fixtures::with_report;

    #[test]
    fn quote_escapes() {
        assert_eq!(quote("a\"b\\c\nd\re"), "\"a\\\"b\\\\c\\nde\"");
    }

    #[test]
    fn dot_structure() {
        let out = with_report(render_dot);
        assert!(out.starts_with("digraph edgecheck {\n"));
        assert!(out.ends_with("}\n"));
        assert_eq!(out.matches("subgraph cluster_").count(), 2);
        assert!(out.contains("label=\"https://shop.example.com/ (broken)\""));
        // Braces balance (labels never hold a raw brace outside quotes, but count outside quotes).
        let (mut depth, mut in_str, mut esc) = (0i32, false, false);
        for c in out.chars() {
            match (in_str, esc, c) {
                (true, true, _) => esc = false,
                (true, false, '\\') => esc = true,
                (true, false, '"') => in_str = false,
                (false, _, '"') => in_str = true,
                (false, _, '{') => depth += 1,
                (false, _, '}') => depth -= 1,
                _ => {}
            }
            assert!(depth >= 0);
        }
        assert_eq!(depth, 0);
        assert!(!in_str, "every quoted string is closed");
        // The root cause: double outline and named in the label.
        let root = out.lines().find(|l| l.contains("peripheries=2")).expect("a root-cause node");
        assert!(root.contains("root cause"), "{root}");
        assert!(root.starts_with("    d0n5 "), "{root}");
        // Where the request path breaks, when that is not the root cause.
        assert!(
            out.contains("d0n3 [label=\"Service shop/web (not in the inventory)\\nbackend · missing\\nbreaks here\"")
        );
        assert_eq!(out.matches("breaks here").count(), 1);
        // The planted label is escaped.
        assert!(out.contains(r#"say \"hi\" \\ <script>alert(1)</script>\nsecond line"#), "{out}");
        // States and branches.
        assert!(out.contains("fillcolor=\"#f8c4c4\""));
        assert!(out.contains("fillcolor=\"#c8ebc9\""));
        assert!(out.contains("fillcolor=\"#fde0b0\""));
        assert!(out.contains("fillcolor=\"#e4e4e4\""));
        assert!(out.contains("d0n1 -> d0n4 [style=dashed]"), "a side branch's edge is dashed");
        assert!(out.contains("d0n2 -> d0n3 [penwidth=3"), "a chain edge is thick");
        assert!(out.contains("d1n0 -> d1n1;"));
        insta::assert_snapshot!(out);
    }

    #[test]
    fn dot_accepts_it() {
        let out = with_report(render_dot);
        let dot = ["/usr/bin/dot", "/usr/local/bin/dot"].into_iter().find(|p| std::path::Path::new(p).exists());
        let Some(dot) = dot else {
            panic!("graphviz `dot` is not installed: run scripts/test.sh (it installs graphviz)");
        };
        let mut child = std::process::Command::new(dot)
            .arg("-Tsvg")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run dot");
        {
            use std::io::Write as _;
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all(out.as_bytes()).expect("write");
        }
        let res = child.wait_with_output().expect("dot output");
        let stderr = String::from_utf8_lossy(&res.stderr);
        assert!(res.status.success(), "dot failed: {stderr}\n{out}");
        assert!(stderr.trim().is_empty(), "dot warned: {stderr}");
        let svg = String::from_utf8_lossy(&res.stdout);
        assert!(svg.contains("<svg"));
        assert!(svg.contains("root cause"));
        assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "dot keeps the label as text");
        assert_eq!(svg.matches("class=\"cluster\"").count(), 2);
    }
}
