//! `edgecheck checks` and `edgecheck explain`.

use std::fmt::Write as _;

use edgecheck_checks::{all_checks, Check};
use serde_json::json;

/// The catalogue as text (a table), JSON or Markdown.
pub fn render_catalogue(format: crate::Format) -> String {
    let checks = all_checks();
    match format {
        crate::Format::Json | crate::Format::Sarif => {
            let v: Vec<_> = checks
                .iter()
                .map(|c| {
                    let m = c.meta();
                    json!({"code": m.code, "check": m.name, "layer": m.layer.as_str(), "severity": m.severity.as_str(), "summary": m.summary(), "documentation": m.documentation()})
                })
                .collect();
            let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
            s.push('\n');
            s
        }
        crate::Format::Markdown => {
            let mut s = String::from("| code | name | layer | severity | what it finds |\n|---|---|---|---|---|\n");
            for c in checks {
                let m = c.meta();
                let _ = writeln!(
                    s,
                    "| `{}` | {} | {} | {} | {} |",
                    m.code,
                    m.name,
                    m.layer,
                    m.severity,
                    m.summary().replace('|', "\\|")
                );
            }
            s
        }
        _ => {
            let mut s = String::new();
            for c in checks {
                let m = c.meta();
                let _ = writeln!(
                    s,
                    "{:<7} {:<9} {:<8} {:<40} {}",
                    m.code,
                    m.layer.as_str(),
                    m.severity.as_str(),
                    m.name,
                    m.summary()
                );
            }
            let _ = writeln!(s, "\n{} checks. `edgecheck explain CODE` prints one.", checks.len());
            s
        }
    }
}

/// One check's documentation.
pub fn render_explain(c: &dyn Check) -> String {
    let m = c.meta();
    format!(
        "# {} {}\n\nlayer: {} · default severity: {}\n\n{}\n",
        m.code,
        m.name,
        m.layer,
        m.severity,
        m.documentation()
    )
}
