//! SARIF 2.1.0: one rule per check (with its documentation), results with physical locations for files
//! and logical locations (`Kind/namespace/name`) for live objects and endpoints.

use edgecheck_checks::all_checks;
use edgecheck_core::Severity;
use serde_json::{json, Value};

use crate::Report;

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        _ => "note",
    }
}

/// Renders SARIF.
pub fn render_sarif(r: &Report<'_>) -> String {
    // The rules of the checks that fired, in catalogue order: a report of three findings does not carry the
    // whole catalogue's documentation (`edgecheck checks --format json` has it).
    let checks: Vec<_> =
        all_checks().iter().filter(|c| r.findings.iter().any(|f| f.meta.code == c.meta().code)).collect();
    let rules: Vec<Value> = checks
        .iter()
        .map(|c| {
            let m = c.meta();
            json!({
                "id": m.code,
                "name": m.name,
                "shortDescription": {"text": m.summary()},
                "fullDescription": {"text": m.summary()},
                "help": {"text": m.documentation(), "markdown": m.documentation()},
                "defaultConfiguration": {"level": level(m.severity)},
                "properties": {"layer": m.layer.as_str(), "tags": [m.layer.as_str()]},
            })
        })
        .collect();
    let prints = crate::identity::fingerprints(r.findings);
    let results: Vec<Value> = r
        .findings
        .iter()
        .zip(prints)
        .map(|(f, fingerprint)| {
            let index = checks.iter().position(|c| c.meta().code == f.meta.code).unwrap_or(0);
            let mut location = json!({
                "logicalLocations": [{"fullyQualifiedName": crate::identity::logical_name(&f.object), "kind": "resource"}],
            });
            if let Some(file) = &f.file {
                // Code scanning resolves URIs against the repository's top, wherever edgecheck ran.
                let mut phys = json!({"artifactLocation": {"uri": crate::paths::repo_relative(file)}});
                if let Some(line) = f.line {
                    phys["region"] = json!({"startLine": line});
                }
                location["physicalLocation"] = phys;
            }
            let mut text = f.message.clone();
            if let Some(fix) = &f.fix {
                text.push_str(&format!(" Fix: {fix}"));
            }
            let mut result = json!({
                "ruleId": f.meta.code,
                "ruleIndex": index,
                "level": level(f.severity),
                "message": {"text": text},
                "locations": [location],
                // What code scanning matches alerts across commits by: the finding's identity, not its line.
                "partialFingerprints": {"edgecheckIdentity/v1": fingerprint},
                "properties": {
                    "layer": f.meta.layer.as_str(),
                    "check": f.meta.name,
                    "evidence": f.evidence,
                    "related": f.related.iter().map(crate::object_ref_json).collect::<Vec<_>>(),
                },
            });
            // Which build rendered the object, and which root and cluster's inventory it is in.
            for (key, v) in [("build", &f.build), ("root", &f.root), ("cluster", &f.cluster)] {
                if let Some(v) = v {
                    result["properties"][key] = json!(v);
                }
            }
            result
        })
        .collect();
    // The render tools as SARIF tool components: `helm v3.17.1` is {name: helm, version: v3.17.1}.
    let extensions: Vec<Value> = r
        .render_tools
        .iter()
        .map(|t| match t.rsplit_once(' ') {
            Some((name, version)) if version.starts_with(|c: char| c == 'v' || c.is_ascii_digit()) => {
                json!({"name": name, "version": version})
            }
            _ => json!({"name": t}),
        })
        .collect();
    let mut doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "edgecheck",
                "version": r.version,
                "informationUri": "https://github.com/edgecheck/edgecheck",
                "rules": rules,
            }},
            "results": results,
        }],
    });
    if !extensions.is_empty() {
        doc["runs"][0]["tool"]["extensions"] = extensions.into();
    }
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}
