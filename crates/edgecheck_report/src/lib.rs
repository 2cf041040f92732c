//! Renderers: pure functions from findings, objects and a summary to text, JSON (the DESIGN.md
//! contract), SARIF 2.1.0 and Markdown. No analysis happens here.

mod catalogue;
mod json;
mod markdown;
mod sarif;
mod text;

use edgecheck_checks::{ObjectEntry, Summary};
use edgecheck_core::Finding;

pub use catalogue::{render_catalogue, render_explain};
pub use json::{object_ref_json, render_json, write_json};
pub use markdown::render_markdown;
pub use sarif::render_sarif;
pub use text::render_text;

/// Everything a renderer may show.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// Findings, in output order.
    pub findings: &'a [Finding],
    /// `objects[]`.
    pub objects: &'a [ObjectEntry],
    /// Counts.
    pub summary: &'a Summary,
    /// Tool version, for SARIF.
    pub version: &'a str,
    /// Text groups by the finding's object first (a probe's targets), then by layer.
    pub group_by_object: bool,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Human text.
    Text,
    /// The JSON contract.
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// Markdown for PR comments.
    Markdown,
}

impl Format {
    /// Parses a format name.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "text" => Some(Format::Text),
            "json" => Some(Format::Json),
            "sarif" => Some(Format::Sarif),
            "markdown" | "md" => Some(Format::Markdown),
            _ => None,
        }
    }
}

/// Renders a report; `color` adds ANSI colours to text.
pub fn render(report: &Report<'_>, format: Format, color: bool) -> String {
    match format {
        Format::Text => render_text(report, color),
        Format::Json => render_json(report),
        Format::Sarif => render_sarif(report),
        Format::Markdown => render_markdown(report),
    }
}

/// Renders a report to `out`; JSON is streamed, the other formats are rendered and then written.
pub fn render_to(
    report: &Report<'_>,
    format: Format,
    color: bool,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Json => write_json(report, out),
        _ => out.write_all(render(report, format, color).as_bytes()),
    }
}

#[cfg(test)]
pub(crate) mod fixtures;

#[cfg(test)]
mod tests {
    use super::*;

    fn with_report<T>(f: impl FnOnce(&Report<'_>) -> T) -> T {
        let (findings, objects, summary) = (fixtures::findings(), fixtures::objects(), fixtures::summary());
        f(&Report {
            findings: &findings,
            objects: &objects,
            summary: &summary,
            version: "0.0.0-test",
            group_by_object: false,
        })
    }

    #[test]
    fn text() {
        let plain = with_report(|r| render_text(r, false));
        assert!(!plain.contains('\x1b'));
        assert!(plain.find("── input").is_some());
        assert!(plain.contains("1 error, 1 warning, 1 info in 12 objects from 4 files (1 non-Kubernetes document skipped, 3 Helm templates skipped, 2 suppressed)"));
        insta::assert_snapshot!(plain);
        assert!(with_report(|r| render_text(r, true)).contains("\x1b[31merror"));
    }

    #[test]
    fn json_follows_the_contract() {
        let out = with_report(render_json);
        let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
        assert_eq!(v["version"], 1);
        let f = &v["findings"][0];
        for key in
            ["code", "check", "layer", "severity", "object", "related", "file", "line", "message", "evidence", "fix"]
        {
            assert!(f.get(key).is_some(), "finding lacks {key}");
        }
        assert_eq!(f["code"], "LOD001");
        assert_eq!(f["layer"], "input");
        assert_eq!(
            v["findings"][1]["object"],
            serde_json::json!({"apiVersion": "v1", "kind": "Service", "namespace": "shop", "name": "web"})
        );
        assert!(v["findings"][2].get("file").is_none());
        assert_eq!(
            v["findings"][2]["object"],
            serde_json::json!({"kind": "Endpoint", "name": "https://shop.example.com/"})
        );
        let o = &v["objects"][0];
        assert_eq!(o["health"], "Degraded");
        assert_eq!(
            o["expected_conditions"][0]["parent"],
            serde_json::json!({"kind": "Gateway", "namespace": "edge", "name": "public", "sectionName": "https"})
        );
        assert_eq!(o["expected_conditions"][0]["status"], "False");
        assert_eq!(v["summary"]["objects"], 12);
        assert!(v["diagnoses"].is_array());
        insta::assert_snapshot!(out);
    }

    #[test]
    fn sarif_is_valid_against_the_schema() {
        let out = with_report(render_sarif);
        let doc: serde_json::Value = serde_json::from_str(&out).expect("json");
        let schema_path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/schemas/sarif-schema-2.1.0.json");
        let schema_text =
            std::fs::read_to_string(&schema_path).unwrap_or_else(|e| panic!("{}: {e}", schema_path.display()));
        let schema: serde_json::Value = serde_json::from_str(&schema_text).expect("schema");
        let validator = jsonschema::validator_for(&schema).expect("schema compiles");
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| format!("{e} at {}", e.instance_path)).collect();
        assert!(errors.is_empty(), "{errors:#?}");
        let results = doc["runs"][0]["results"].as_array().expect("results");
        assert_eq!(results.len(), 3);
        assert_eq!(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 14);
        assert_eq!(results[1]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"], "Service/shop/web");
        assert_eq!(results[2]["level"], "note");
        let rules = doc["runs"][0]["tool"]["driver"]["rules"].as_array().expect("rules");
        assert_eq!(rules.len(), edgecheck_checks::all_checks().len());
        let idx = results[0]["ruleIndex"].as_u64().expect("index") as usize;
        assert_eq!(rules[idx]["id"], "LOD001");
    }

    #[test]
    fn markdown() {
        let out = with_report(render_markdown);
        assert!(out.contains("pipes"));
        assert!(out.contains("\\| pipes"), "table cells escape pipes");
        insta::assert_snapshot!(out);
    }
}
