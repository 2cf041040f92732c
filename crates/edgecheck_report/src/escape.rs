//! The human formats (text, Markdown, HTML, DOT, Mermaid, GitHub annotations) print names, messages and status text that came
//! from objects and servers: a name holding `\e]0;…\a\e[2J` would retitle or clear the terminal of whoever
//! reads the report. Before such a format renders, every string in the report has its control characters
//! written as escapes ([`edgecheck_core::redact::controls`]). JSON, SARIF and GitLab keep the strings as they are:
//! JSON escapes control characters itself, losslessly.

use std::borrow::Cow;

use edgecheck_checks::diagnose::Diagnosis;
use edgecheck_core::{Finding, ObjectRef};

use crate::Report;

/// Copies of the report's findings and diagnoses, escaped.
pub(crate) struct Escaped {
    findings: Vec<Finding>,
    diagnoses: Vec<Diagnosis>,
}

impl Escaped {
    /// Escapes what `r` holds; `None` when nothing needs it (the common case: no copy).
    pub(crate) fn of(r: &Report<'_>) -> Option<Escaped> {
        let dirty = r.findings.iter().any(finding_dirty) || r.diagnoses.iter().any(diagnosis_dirty);
        dirty.then(|| Escaped {
            findings: r.findings.iter().map(finding).collect(),
            diagnoses: r.diagnoses.iter().map(diagnosis).collect(),
        })
    }

    /// The report over the escaped copies.
    pub(crate) fn report<'a>(&'a self, r: &Report<'a>) -> Report<'a> {
        Report { findings: &self.findings, diagnoses: &self.diagnoses, ..*r }
    }
}

fn dirty(s: &str) -> bool {
    matches!(edgecheck_core::redact::controls(s), Cow::Owned(_))
}

fn ref_dirty(r: &ObjectRef) -> bool {
    dirty(&r.kind)
        || dirty(&r.name)
        || r.namespace.as_deref().is_some_and(dirty)
        || r.api_version.as_deref().is_some_and(dirty)
}

fn finding_dirty(f: &Finding) -> bool {
    ref_dirty(&f.object)
        || f.related.iter().any(ref_dirty)
        || f.file.as_deref().is_some_and(dirty)
        || dirty(&f.message)
        || f.evidence.iter().any(|e| dirty(e))
        || f.fix.as_deref().is_some_and(dirty)
        || f.patch.as_deref().is_some_and(dirty)
        || f.notes.iter().any(|n| ref_dirty(&n.object) || dirty(&n.file) || n.label.as_deref().is_some_and(dirty))
}

fn diagnosis_dirty(d: &Diagnosis) -> bool {
    dirty(&d.target.target)
        || dirty(&d.target.host)
        || dirty(&d.target.path)
        || dirty(&d.summary)
        || d.claims.iter().any(|c| dirty(c))
        || d.chain.iter().any(|l| ref_dirty(&l.object) || dirty(&l.state))
        || d.nodes.iter().any(|n| {
            dirty(&n.label)
                || n.object.as_ref().is_some_and(ref_dirty)
                || n.file.as_deref().is_some_and(dirty)
                || n.detail.iter().any(|x| dirty(x))
        })
}

/// Newlines and tabs stay: each format lays them out (a DOT label's line break, a patch's lines).
fn line(s: &str) -> String {
    edgecheck_core::redact::controls(s).into_owned()
}

fn object_ref(r: &ObjectRef) -> ObjectRef {
    ObjectRef {
        api_version: r.api_version.as_deref().map(line),
        kind: line(&r.kind),
        namespace: r.namespace.as_deref().map(line),
        name: line(&r.name),
    }
}

fn finding(f: &Finding) -> Finding {
    Finding {
        object: object_ref(&f.object),
        related: f.related.iter().map(object_ref).collect(),
        file: f.file.as_deref().map(line),
        message: line(&f.message),
        evidence: f.evidence.iter().map(|e| line(e)).collect(),
        fix: f.fix.as_deref().map(line),
        patch: f.patch.as_deref().map(line),
        root: f.root.as_deref().map(line),
        cluster: f.cluster.as_deref().map(line),
        notes: f
            .notes
            .iter()
            .map(|n| edgecheck_core::Note {
                object: object_ref(&n.object),
                file: line(&n.file),
                label: n.label.as_deref().map(line),
                ..n.clone()
            })
            .collect(),
        ..f.clone()
    }
}

fn diagnosis(d: &Diagnosis) -> Diagnosis {
    let mut d = d.clone();
    d.target.target = line(&d.target.target);
    d.target.host = line(&d.target.host);
    d.target.path = line(&d.target.path);
    d.summary = line(&d.summary);
    d.claims = d.claims.iter().map(|c| line(c)).collect();
    for l in &mut d.chain {
        l.object = object_ref(&l.object);
        l.state = line(&l.state);
    }
    for n in &mut d.nodes {
        n.label = line(&n.label);
        n.object = n.object.as_ref().map(object_ref);
        n.file = n.file.as_deref().map(line);
        n.detail = n.detail.iter().map(|x| line(x)).collect();
    }
    d
}
