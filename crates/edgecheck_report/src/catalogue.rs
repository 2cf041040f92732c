//! `edgecheck checks` and `edgecheck explain`.

use std::fmt::Write as _;

use edgecheck_checks::{all_checks, Check};
use serde_json::json;

/// The catalogue as text (a table that fits `width` columns: the summary wraps in its column), JSON or
/// Markdown.
pub fn render_catalogue(format: crate::Format, width: usize) -> String {
    let checks = all_checks();
    match format {
        crate::Format::Json | crate::Format::Sarif => {
            let v: Vec<_> = checks
                .iter()
                .map(|c| {
                    let m = c.meta();
                    let severities: Vec<&str> = m.severities().iter().map(|s| s.as_str()).collect();
                    json!({"code": m.code, "check": m.name, "layer": m.layer.as_str(), "severity": m.severity.as_str(), "severities": severities, "summary": m.summary(), "documentation": m.documentation()})
                })
                .collect();
            let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
            s.push('\n');
            s
        }
        crate::Format::Markdown => {
            let mut s = String::from("| code | name | layer | severities | what it finds |\n|---|---|---|---|---|\n");
            for c in checks {
                let m = c.meta();
                let _ = writeln!(
                    s,
                    "| `{}` | {} | {} | {} | {} |",
                    m.code,
                    m.name,
                    m.layer,
                    severities(m),
                    m.summary().replace('|', "\\|")
                );
            }
            s
        }
        _ => {
            let mut s = String::new();
            let name_w = checks.iter().map(|c| c.meta().name.len()).max().unwrap_or(4);
            let sev_w = checks.iter().map(|c| severities(c.meta()).len()).max().unwrap_or(8);
            let _ =
                writeln!(s, "{:<7} {:<9} {:<sev_w$} {:<name_w$} what it finds", "code", "layer", "severity", "name");
            // The summary takes what is left; a terminal too narrow for it gets it on lines of its own.
            let lead = 7 + 1 + 9 + 1 + sev_w + 1 + name_w + 1;
            let indent = if width >= lead + 50 { lead } else { 8 };
            for c in checks {
                let m = c.meta();
                let row =
                    format!("{:<7} {:<9} {:<sev_w$} {:<name_w$} ", m.code, m.layer.as_str(), severities(m), m.name);
                let what = first_sentence(&m.summary());
                if indent == lead {
                    s.push_str(&crate::wrap::wrapped(&row, &what, indent, width));
                } else {
                    let _ = writeln!(s, "{}", row.trim_end());
                    s.push_str(&crate::wrap::wrapped(&" ".repeat(indent), &what, indent, width));
                }
            }
            let _ = writeln!(s, "\n{} checks. `edgecheck explain CODE` prints one.", checks.len());
            s
        }
    }
}

/// The first sentence of a summary (outside code spans and parentheses): the table's cell;
/// `edgecheck explain` has the rest.
fn first_sentence(s: &str) -> String {
    let (mut code, mut depth) = (false, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '`' => code = !code,
            '(' if !code => depth += 1,
            ')' if !code => depth = depth.saturating_sub(1),
            '.' if !code && depth == 0 && s[i + 1..].starts_with(' ') => return s[..=i].to_string(),
            _ => {}
        }
    }
    s.to_string()
}

/// One check's documentation.
pub fn render_explain(c: &dyn Check) -> String {
    let m = c.meta();
    format!(
        "# {} {}\n\nlayer: {} · severity: {}\n\n{}\n",
        m.code,
        m.name,
        m.layer,
        match m.also {
            [] => m.severity.to_string(),
            _ => format!(
                "{} (default), also {}",
                m.severity,
                m.severities()[1..].iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ),
        },
        m.documentation()
    )
}

/// The severities a check's findings may carry, the default first: `error/warning`.
fn severities(m: &edgecheck_core::CheckMeta) -> String {
    m.severities().iter().map(|s| s.as_str()).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_shows_every_severity_a_check_may_emit() {
        let text = render_catalogue(crate::Format::Text, 100);
        let line = |code: &str| text.lines().find(|l| l.starts_with(code)).unwrap_or_default().to_string();
        assert!(line("BKD010").contains(" warning/error "), "{}", line("BKD010"));
        assert!(line("TLS018").contains(" error/warning "), "{}", line("TLS018"));
        assert!(line("LOD004").contains(" warning "), "{}", line("LOD004"));
        let json: serde_json::Value = serde_json::from_str(&render_catalogue(crate::Format::Json, 100)).expect("json");
        let bkd010 = json.as_array().and_then(|a| a.iter().find(|c| c["code"] == "BKD010")).expect("BKD010");
        assert_eq!(bkd010["severity"], "warning");
        assert_eq!(bkd010["severities"], serde_json::json!(["warning", "error"]));
        let md = render_catalogue(crate::Format::Markdown, 100);
        assert!(
            md.contains("| `TLS018` | solver-class-missing | tls | error/warning |") || md.contains("| `TLS018` |"),
            "{md}"
        );
        assert!(md.lines().find(|l| l.starts_with("| `TLS018`")).is_some_and(|l| l.contains("| error/warning |")));
        // The table fits the width and names no internal function.
        let narrow = render_catalogue(crate::Format::Text, 100);
        assert!(narrow.lines().all(|l| l.chars().count() <= 100), "{narrow}");
        assert!(!narrow.contains("::") && !narrow.contains("layer_for"), "{narrow}");
        let explain = render_explain(edgecheck_checks::find_check("BKD010").expect("BKD010"));
        assert!(explain.contains("severity: warning (default), also error"), "{explain}");
    }
}
