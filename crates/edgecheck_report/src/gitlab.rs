//! GitLab Code Quality: a JSON array of issues (the Code Climate subset GitLab documents): `description`,
//! `check_name`, `fingerprint`, `severity` (info, minor, major, critical, blocker) and `location` with
//! `path` and `lines.begin`. GitLab shows the issues a merge request adds or resolves by comparing the
//! fingerprints of the two branches' reports: the fingerprint is the finding's identity
//! ([`crate::identity`]), never its line.
//!
//! GitLab needs a path for every issue: a finding without a file (a live object, an endpoint) is placed
//! at its object's name (`Ingress/shop/web`), line 1.

use edgecheck_core::{Finding, Severity};
use serde_json::{json, Value};

use crate::Report;

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "critical",
        Severity::Warning => "major",
        _ => "info",
    }
}

fn issue(f: &Finding, fingerprint: String) -> Value {
    let (path, line) = match &f.file {
        // GitLab resolves `path` against the repository's top, wherever edgecheck ran.
        Some(file) => (crate::paths::repo_relative(file), f.line.unwrap_or(1)),
        None => (crate::identity::logical_name(&f.object), 1),
    };
    let mut body = f.message.clone();
    for e in &f.evidence {
        body.push_str(&format!("\n- {e}"));
    }
    if let Some(fix) = &f.fix {
        body.push_str(&format!("\n\nFix: {fix}"));
    }
    json!({
        "type": "issue",
        "engine_name": "edgecheck",
        "check_name": f.meta.code,
        "description": format!("{} {}: {}", f.meta.code, f.meta.name, f.message),
        "content": {"body": body},
        "categories": ["Bug Risk"],
        "fingerprint": fingerprint,
        "severity": severity(f.severity),
        "location": {"path": path, "lines": {"begin": line}},
    })
}

/// Renders the report (JSON keeps strings exact, as the JSON and SARIF formats do).
pub fn render_gitlab(r: &Report<'_>) -> String {
    let prints = crate::identity::fingerprints(r.findings);
    let issues: Vec<Value> = r.findings.iter().zip(prints).map(|(f, p)| issue(f, p)).collect();
    let mut out = serde_json::to_string_pretty(&issues).unwrap_or_default();
    out.push('\n');
    out
}
