//! Renderers: pure functions from findings, objects and a summary to text, JSON (the docs/design.md
//! contract), SARIF 2.1.0, Markdown, GitHub Actions annotations, GitLab Code Quality, and the diagnoses'
//! path graphs as Graphviz, Mermaid and a self-contained HTML page. No analysis happens here.

mod catalogue;
mod diff;
mod dot;
mod escape;
mod github;
mod gitlab;
mod html;
mod identity;
mod json;
mod markdown;
mod mermaid;
mod paths;
mod probe_text;
mod sarif;
mod snippet;
mod text;
mod trace_text;
mod wrap;

use edgecheck_checks::diagnose::Diagnosis;
use edgecheck_checks::{ObjectEntry, Summary};
use edgecheck_core::Finding;

pub use catalogue::{render_catalogue, render_explain};
pub use diff::{render_diff_json, render_diff_markdown, render_diff_text, DiffReport, HostChange, HostSide};
pub use dot::render_dot;
pub use github::render_github;
pub use gitlab::render_gitlab;
pub use html::render_html;
pub use identity::{finding_identity, fingerprints};
pub use json::{object_ref_json, render_json, write_json};
pub use markdown::render_markdown;
pub use mermaid::render_mermaid;
pub use sarif::render_sarif;
pub use text::{render_concise, render_text};

/// Everything a renderer may show.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// Findings, in output order.
    pub findings: &'a [Finding],
    /// `objects[]` (only JSON shows it): a list, or entries made one at a time as they are written.
    pub objects: &'a dyn ObjectSource,
    /// Counts.
    pub summary: &'a Summary,
    /// The edgecheck version, for JSON's `tool` and SARIF's `tool.driver`.
    pub version: &'a str,
    /// The render tools that built what was checked, as they name their versions (`helm v3.17.1`,
    /// `kubectl kustomize v5.5.0`): JSON's `tool.renderers`, SARIF's `tool.extensions`.
    pub render_tools: &'a [String],
    /// Text groups by the finding's object first (a probe's targets), then by layer.
    pub group_by_object: bool,
    /// Diagnoses: one per traced URL (`trace`), or one per host the inventory claims (`lint`, `scan`).
    pub diagnoses: &'a [Diagnosis],
    /// The report is a trace: text draws the path tree of `diagnoses[0]` first.
    pub trace: bool,
    /// What the probe saw (`probe`): `probe -v` text shows each endpoint's, JSON has them as `observations`.
    pub observations: &'a [edgecheck_core::observation::TargetObservation],
}

/// Where `objects[]` comes from. A lint of a large repository has an entry per object; [`ObjectSource::each`]
/// lets the caller make each one as it is written instead of holding the whole list (#17).
pub trait ObjectSource: std::fmt::Debug {
    /// Calls `f` with each entry, in order.
    fn each(&self, f: &mut dyn FnMut(&ObjectEntry));
}

impl ObjectSource for [ObjectEntry] {
    fn each(&self, f: &mut dyn FnMut(&ObjectEntry)) {
        self.iter().for_each(f);
    }
}

impl ObjectSource for Vec<ObjectEntry> {
    fn each(&self, f: &mut dyn FnMut(&ObjectEntry)) {
        self.iter().for_each(f);
    }
}

/// How the human text is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// ANSI colours.
    pub color: bool,
    /// The width text wraps to (the terminal's, or 100 when not a terminal).
    pub width: usize,
    /// Source snippets (the finding's YAML line and the one before, the field marked), read from the files
    /// when rendering.
    pub snippets: bool,
    /// `probe -v`: every endpoint's observations (what dig, openssl s_client and curl -v would show).
    pub verbose: bool,
}

impl Default for Style {
    fn default() -> Self {
        Style { color: false, width: DEFAULT_WIDTH, snippets: true, verbose: false }
    }
}

/// The width of text that is not written to a terminal.
pub const DEFAULT_WIDTH: usize = 100;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Human text.
    Text,
    /// One line per finding, `file:line:col: CODE message`, for grep and editors.
    Concise,
    /// The JSON contract.
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// Markdown for PR comments.
    Markdown,
    /// Graphviz DOT of the diagnoses' path graphs.
    Dot,
    /// A Mermaid flowchart of the diagnoses' path graphs.
    Mermaid,
    /// One self-contained HTML page: path graphs as SVG, findings, chains.
    Html,
    /// GitHub Actions workflow commands: one annotation per finding.
    Github,
    /// GitLab Code Quality JSON.
    Gitlab,
}

impl Format {
    /// True for the formats that list every object (`objects[]` in JSON); the others show counts only, so
    /// a lint in them does not build the list (#17: a tenth of a large lint's memory).
    pub fn lists_objects(self) -> bool {
        self == Format::Json
    }

    /// Parses a format name.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "text" => Some(Format::Text),
            "concise" => Some(Format::Concise),
            "json" => Some(Format::Json),
            "sarif" => Some(Format::Sarif),
            "markdown" | "md" => Some(Format::Markdown),
            "dot" => Some(Format::Dot),
            "mermaid" => Some(Format::Mermaid),
            "html" => Some(Format::Html),
            "github" => Some(Format::Github),
            "gitlab" => Some(Format::Gitlab),
            _ => None,
        }
    }
}

/// Renders a report; `color` adds ANSI colours to text (the other [`Style`] settings their defaults).
pub fn render(report: &Report<'_>, format: Format, color: bool) -> String {
    render_styled(report, format, &Style { color, ..Style::default() })
}

/// Renders a report in a [`Style`].
pub fn render_styled(report: &Report<'_>, format: Format, style: &Style) -> String {
    // The JSON formats keep strings exact: JSON escapes control characters itself, losslessly.
    match format {
        Format::Json => return render_json(report),
        Format::Sarif => return render_sarif(report),
        Format::Gitlab => return render_gitlab(report),
        _ => {}
    }
    // The human formats print names and status text: control characters become visible escapes first.
    let escaped = escape::Escaped::of(report);
    let escaped_report = escaped.as_ref().map(|e| e.report(report));
    let report = escaped_report.as_ref().unwrap_or(report);
    match format {
        Format::Text => render_text(report, style),
        Format::Concise => render_concise(report, style),
        Format::Json => render_json(report),
        Format::Sarif => render_sarif(report),
        Format::Markdown => render_markdown(report),
        Format::Dot => render_dot(report),
        Format::Mermaid => render_mermaid(report),
        Format::Html => render_html(report),
        Format::Github => render_github(report),
        Format::Gitlab => render_gitlab(report),
    }
}

/// Renders a report to `out`; JSON is streamed, the other formats are rendered and then written.
pub fn render_to(
    report: &Report<'_>,
    format: Format,
    style: &Style,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Json => write_json(report, out),
        _ => out.write_all(render_styled(report, format, style).as_bytes()),
    }
}

#[cfg(test)]
pub(crate) mod fixtures;

#[cfg(test)]
pub(crate) mod diagnosis_fixtures;

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
            diagnoses: &[],
            trace: false,
            render_tools: &[],
            observations: &[],
        })
    }

    #[test]
    fn text() {
        let plain = with_report(|r| render_text(r, &Style::default()));
        assert!(!plain.contains('\x1b'));
        assert!(plain.find("── input").is_some());
        assert!(plain.contains("1 error, 1 warning, 1 info in 12 objects from 4 files (1 non-Kubernetes document skipped, 3 templates skipped, 2 suppressed)"));
        insta::assert_snapshot!(plain);
        assert!(with_report(|r| render_text(r, &Style { color: true, ..Style::default() })).contains("\x1b[31merror"));
    }

    #[test]
    fn json_follows_the_contract() {
        let out = with_report(render_json);
        let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
        assert_eq!(v["version"], 1);
        assert_eq!(v["tool"], serde_json::json!({"name": "edgecheck", "version": "0.0.0-test"}));
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
        let schema_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("resources/sarif-schema-2.1.0.json");
        let schema_text =
            std::fs::read_to_string(&schema_path).unwrap_or_else(|e| panic!("{}: {e}", schema_path.display()));
        let schema: serde_json::Value = serde_json::from_str(&schema_text).expect("schema");
        let validator = jsonschema::validator_for(&schema).expect("schema compiles");
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| format!("{e} at {}", e.instance_path)).collect();
        assert!(errors.is_empty(), "{errors:#?}");
        assert_eq!(doc["runs"][0]["tool"]["driver"]["version"], "0.0.0-test");
        let results = doc["runs"][0]["results"].as_array().expect("results");
        assert_eq!(results.len(), 3);
        assert!(results.iter().all(|r| r["partialFingerprints"]["edgecheckIdentity/v1"].is_string()));
        assert_eq!(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 14);
        assert_eq!(results[1]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"], "Service/shop/web");
        assert_eq!(results[2]["level"], "note");
        let rules = doc["runs"][0]["tool"]["driver"]["rules"].as_array().expect("rules");
        // Only the rules of the checks that fired (three findings of three checks).
        let fired: std::collections::BTreeSet<&str> = results.iter().filter_map(|r| r["ruleId"].as_str()).collect();
        assert_eq!(rules.len(), fired.len());
        assert!(rules.iter().all(|rule| rule["id"].as_str().is_some_and(|id| fired.contains(id))));
        let idx = results[0]["ruleIndex"].as_u64().expect("index") as usize;
        assert_eq!(rules[idx]["id"], "LOD001");
    }

    /// The render tools' versions: JSON's `tool.renderers`, SARIF's `tool.extensions` (still valid SARIF).
    #[test]
    fn render_tools_are_named_with_their_versions() {
        let (findings, objects, summary) = (fixtures::findings(), fixtures::objects(), fixtures::summary());
        let tools = ["helm v3.17.1".to_string(), "kubectl kustomize v5.5.0".to_string(), "kustomize".to_string()];
        let r = Report {
            findings: &findings,
            objects: &objects,
            summary: &summary,
            version: "1.2.3",
            render_tools: &tools,
            group_by_object: false,
            diagnoses: &[],
            trace: false,
            observations: &[],
        };
        let v: serde_json::Value = serde_json::from_str(&render_json(&r)).expect("json");
        assert_eq!(v["tool"]["renderers"], serde_json::json!(tools));
        let sarif: serde_json::Value = serde_json::from_str(&render_sarif(&r)).expect("sarif");
        assert_eq!(
            sarif["runs"][0]["tool"]["extensions"],
            serde_json::json!([{"name": "helm", "version": "v3.17.1"}, {"name": "kubectl kustomize", "version": "v5.5.0"},
                               {"name": "kustomize"}])
        );
        let errors = validate("resources/sarif-schema-2.1.0.json", &sarif);
        assert!(errors.is_empty(), "{errors:#?}");
    }

    #[test]
    fn diagram_formats_parse_and_dispatch() {
        assert_eq!(Format::parse("dot"), Some(Format::Dot));
        assert_eq!(Format::parse("mermaid"), Some(Format::Mermaid));
        assert_eq!(Format::parse("html"), Some(Format::Html));
        diagnosis_fixtures::with_report(|r| {
            assert_eq!(render(r, Format::Dot, true), render_dot(r));
            assert_eq!(render(r, Format::Mermaid, true), render_mermaid(r));
            assert_eq!(render(r, Format::Html, true), render_html(r));
        });
        // A healthy host from lint has a verdict and no path nodes: a note, not an empty picture.
        let findings = diagnosis_fixtures::findings();
        let mut diagnoses = diagnosis_fixtures::diagnoses();
        let mut healthy = diagnoses[1].clone();
        healthy.verdict = edgecheck_checks::diagnose::Verdict::Ok;
        (healthy.nodes, healthy.chain, healthy.root_cause, healthy.breaks_at) = (vec![], vec![], None, None);
        diagnoses.push(healthy);
        let (objects, summary) = (fixtures::objects(), fixtures::summary());
        let r = Report {
            findings: &findings,
            objects: &objects,
            summary: &summary,
            version: "t",
            group_by_object: false,
            diagnoses: &diagnoses,
            trace: false,
            render_tools: &[],
            observations: &[],
        };
        let note = "nothing wrong found (edgecheck trace draws the path)";
        assert!(render_dot(&r).contains(&format!("    d2none [label=\"{note}\", shape=plaintext")));
        assert!(render_mermaid(&r).contains(&format!("    d2none[\"{note}\"]")));
        assert!(render_html(&r).contains(&format!("<p class=\"nopath\">{note}</p>")));
        // Without diagnoses each still renders a valid, non-empty document.
        let dot = with_report(render_dot);
        assert!(dot.contains("no diagnoses") && dot.ends_with("}\n"));
        assert!(with_report(render_mermaid).contains("no diagnoses"));
        let html = with_report(render_html);
        assert!(html.contains("Findings in no diagnosis") && html.ends_with("</html>\n"));
    }

    #[test]
    fn github_annotations() {
        let out = with_report(|r| render_styled(r, Format::Github, &Style::default()));
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("::error file=apps/shop/ingress.yaml,line=14,title=LOD001 "), "{out}");
        assert!(lines[1].starts_with("::warning file=apps/shop/svc.yaml,line=3,title=LOD004 "), "{out}");
        // A finding without a file: an annotation without one, its object in the title.
        assert!(lines[2].starts_with("::notice title=LOD004 "), "{out}");
        assert!(!lines[2].contains("file="), "{out}");
        insta::assert_snapshot!(out);
    }

    #[test]
    fn github_annotations_escape_control_characters() {
        let mut findings = fixtures::findings();
        findings[0].message = format!("evil {}]0;title{} name", '\u{1b}', '\u{7}');
        let (objects, summary) = (fixtures::objects(), fixtures::summary());
        let r = Report {
            findings: &findings,
            objects: &objects,
            summary: &summary,
            version: "t",
            group_by_object: false,
            diagnoses: &[],
            trace: false,
            render_tools: &[],
            observations: &[],
        };
        let out = render(&r, Format::Github, false);
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out}");
        assert!(out.contains("evil \\u{1b}]0;title\\u{7} name"), "{out}");
    }

    /// The GitLab report has the shape GitLab documents (resources/gitlab-code-quality.schema.json) and
    /// unique fingerprints.
    #[test]
    fn gitlab_code_quality() {
        let out = with_report(|r| render(r, Format::Gitlab, false));
        let doc: serde_json::Value = serde_json::from_str(&out).expect("json");
        let errors = validate("resources/gitlab-code-quality.schema.json", &doc);
        assert!(errors.is_empty(), "{errors:#?}");
        let issues = doc.as_array().expect("array");
        assert_eq!(issues.len(), 3);
        assert_eq!(issues[0]["severity"], "critical");
        assert_eq!(issues[0]["location"]["path"], "apps/shop/ingress.yaml");
        assert_eq!(issues[0]["location"]["lines"]["begin"], 14);
        assert_eq!(issues[1]["severity"], "major");
        assert_eq!(issues[2]["severity"], "info");
        assert_eq!(issues[2]["location"]["path"], "Endpoint/https://shop.example.com/");
        let prints: std::collections::BTreeSet<&str> =
            issues.iter().filter_map(|i| i["fingerprint"].as_str()).collect();
        assert_eq!(prints.len(), 3);
        // The fingerprints are SARIF's partial fingerprints: one identity for both.
        let sarif: serde_json::Value = serde_json::from_str(&with_report(render_sarif)).expect("sarif");
        for (i, result) in sarif["runs"][0]["results"].as_array().expect("results").iter().enumerate() {
            assert_eq!(result["partialFingerprints"]["edgecheckIdentity/v1"], issues[i]["fingerprint"]);
        }
        // A shape the documentation rejects is rejected by the schema (the test tests something).
        let bad = serde_json::json!([{"description": "x", "check_name": "X", "fingerprint": "f", "severity": "error",
                                       "location": {"path": "a.yaml", "lines": {"begin": 1}}}]);
        assert!(!validate("resources/gitlab-code-quality.schema.json", &bad).is_empty());
        insta::assert_snapshot!(out);
    }

    fn validate(schema: &str, doc: &serde_json::Value) -> Vec<String> {
        let schema_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(schema);
        let schema_text =
            std::fs::read_to_string(&schema_path).unwrap_or_else(|e| panic!("{}: {e}", schema_path.display()));
        let schema: serde_json::Value = serde_json::from_str(&schema_text).expect("schema");
        let validator = jsonschema::validator_for(&schema).expect("schema compiles");
        validator.iter_errors(doc).map(|e| format!("{e} at {}", e.instance_path)).collect()
    }

    #[test]
    fn markdown() {
        let out = with_report(render_markdown);
        assert!(out.contains("pipes"));
        assert!(out.contains("\\| pipes"), "table cells escape pipes");
        insta::assert_snapshot!(out);
    }
}
