//! Mermaid: a `flowchart TD` with one `subgraph` per diagnosis, a `classDef` per state, side
//! branches as dotted edges, chain edges thick and the root cause outlined.
//!
//! Node ids are `d<diagnosis>n<node>`, unique across diagnoses. Labels are quoted and written with
//! Mermaid's entity codes (`#quot;`, `#91;`…), so no raw quote, bracket, brace, backtick, `<`, `>`,
//! `&` or `#` of the input reaches the diagram source.

use std::fmt::Write as _;

use edgecheck_checks::diagnose::{Branch, NodeState};

use crate::dot::{chain_edge, empty_path_note, on_chain, root_node, state_colors};
use crate::Report;

const STATES: [NodeState; 5] =
    [NodeState::Error, NodeState::Missing, NodeState::Warning, NodeState::Ok, NodeState::Unknown];

/// Renders every diagnosis as one Mermaid flowchart.
pub fn render_mermaid(report: &Report<'_>) -> String {
    let mut out = String::from("flowchart TD\n");
    if report.diagnoses.is_empty() {
        out.push_str("  empty[\"no diagnoses\"]\n");
    }
    let mut roots = Vec::new();
    let mut side = Vec::new();
    for (di, d) in report.diagnoses.iter().enumerate() {
        let root = root_node(d);
        let chain = on_chain(d);
        let title = format!("{} ({})", d.target.target, d.verdict.as_str());
        let _ = writeln!(out, "  subgraph d{di}[\"{}\"]", escape(&title));
        out.push_str("    direction LR\n");
        if d.nodes.is_empty() {
            let _ = writeln!(out, "    d{di}none[\"{}\"]", escape(empty_path_note(d)));
        }
        for (ni, n) in d.nodes.iter().enumerate() {
            let mut label = escape(&n.label);
            let _ = write!(label, "<br/>{} · {}", n.layer.as_str(), n.state.as_str());
            if root == Some(ni) {
                label.push_str("<br/><b>root cause</b>");
                roots.push(format!("d{di}n{ni}"));
            } else if d.breaks_at == Some(ni) {
                label.push_str("<br/><b>breaks here</b>");
            }
            if n.branch != Branch::Request {
                side.push(format!("d{di}n{ni}"));
            }
            let _ = writeln!(out, "    d{di}n{ni}[\"{label}\"]:::{}", n.state.as_str());
        }
        for (ni, n) in d.nodes.iter().enumerate() {
            let Some(p) = n.parent.filter(|&p| p < d.nodes.len()) else { continue };
            let arrow = if chain_edge(&chain, p, ni) {
                "==>"
            } else if n.branch != Branch::Request {
                "-.->"
            } else {
                "-->"
            };
            let _ = writeln!(out, "    d{di}n{p} {arrow} d{di}n{ni}");
        }
        out.push_str("  end\n");
    }
    for s in STATES {
        let (fill, stroke) = state_colors(s);
        let dash = if s == NodeState::Missing { ",stroke-dasharray:4 3" } else { "" };
        let _ = writeln!(out, "  classDef {} fill:{fill},stroke:{stroke},color:#111111{dash}", s.as_str());
    }
    out.push_str("  classDef side stroke-dasharray:5 4\n");
    out.push_str("  classDef rootcause stroke-width:4px\n");
    if !side.is_empty() {
        let _ = writeln!(out, "  class {} side", side.join(","));
    }
    if !roots.is_empty() {
        let _ = writeln!(out, "  class {} rootcause", roots.join(","));
    }
    out
}

/// A label's text in Mermaid's entity form; newlines become `<br/>`, other control characters
/// are dropped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '&' => out.push_str("#amp;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '[' => out.push_str("#91;"),
            ']' => out.push_str("#93;"),
            '{' => out.push_str("#123;"),
            '}' => out.push_str("#125;"),
            '`' => out.push_str("#96;"),
            '\\' => out.push_str("#92;"),
            '\n' => out.push_str("<br/>"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnosis_fixtures::with_report;

    #[test]
    fn escape_uses_entities() {
        assert_eq!(escape("a\"[b]{c}#<d>\\e\nf"), "a#quot;#91;b#93;#123;c#125;#35;#lt;d#gt;#92;e<br/>f");
    }

    #[test]
    fn mermaid_structure() {
        let out = with_report(render_mermaid);
        assert!(out.starts_with("flowchart TD\n"));
        assert_eq!(out.matches("\n  subgraph ").count(), 2);
        assert_eq!(out.matches("\n  end\n").count(), 2);
        for s in ["error", "missing", "warning", "ok", "unknown", "rootcause"] {
            assert!(out.contains(&format!("classDef {s} ")), "classDef {s}");
        }
        // Every node definition: an id, one quoted label with no raw quote or bracket inside, a class.
        let mut ids = std::collections::BTreeSet::new();
        for line in out.lines().filter(|l| l.starts_with("    d") && l.contains("[\"")) {
            let (id, rest) = line.trim().split_once('[').expect("id[");
            let label = rest.strip_prefix('"').and_then(|r| r.split_once("\"]:::")).map(|(l, _)| l);
            let label = label.unwrap_or_else(|| panic!("quoted label: {line}"));
            assert!(!label.contains(['"', '[', ']', '{', '}', '\n']), "{line}");
            assert!(ids.insert(id.to_string()), "node id {id} is unique");
        }
        assert_eq!(ids.len(), 12, "7 + 5 nodes");
        assert!(ids.contains("d0n0") && ids.contains("d1n0"));
        assert!(out.contains("#quot;hi#quot; #92; #lt;script#gt;alert(1)#lt;/script#gt;<br/>second line"));
        assert!(!out.contains("<script>"));
        assert!(out.contains("    d0n2 ==> d0n3\n"), "chain edge is thick");
        assert!(out.contains("    d0n1 -.-> d0n4\n"), "side branch is dotted");
        assert!(out.contains("    d1n0 --> d1n1\n"));
        assert!(out.contains("  class d0n5,d1n2 rootcause\n"));
        assert!(out.contains("d0n5[\"Job shop/migrate<br/>backend · error<br/><b>root cause</b>\"]:::error"));
        assert!(out.contains(
            "d0n3[\"Service shop/web (not in the inventory)<br/>backend · missing<br/><b>breaks here</b>\"]"
        ));
        insta::assert_snapshot!(out);
    }
}
