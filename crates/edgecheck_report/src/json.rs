//! The JSON contract of DESIGN.md: `{"version": 1, "findings", "diagnoses", "objects", "summary"}`.

use edgecheck_checks::model::{ExpectedCondition, ParentKey};
use edgecheck_core::{Finding, ObjectRef};
use serde_json::{json, Map, Value};

use crate::Report;

/// `{"apiVersion", "kind", "namespace", "name"}` with absent parts left out.
pub fn object_ref_json(r: &ObjectRef) -> Value {
    let mut m = Map::new();
    if let Some(a) = &r.api_version {
        m.insert("apiVersion".into(), a.clone().into());
    }
    m.insert("kind".into(), r.kind.clone().into());
    if let Some(ns) = &r.namespace {
        m.insert("namespace".into(), ns.clone().into());
    }
    m.insert("name".into(), r.name.clone().into());
    Value::Object(m)
}

/// One finding.
pub fn finding_json(f: &Finding) -> Value {
    let mut m = Map::new();
    m.insert("code".into(), f.meta.code.into());
    m.insert("check".into(), f.meta.name.into());
    m.insert("layer".into(), f.meta.layer.as_str().into());
    m.insert("severity".into(), f.severity.as_str().into());
    m.insert("object".into(), object_ref_json(&f.object));
    m.insert("related".into(), f.related.iter().map(object_ref_json).collect());
    if let Some(file) = &f.file {
        m.insert("file".into(), file.clone().into());
    }
    if let Some(line) = f.line {
        m.insert("line".into(), line.into());
    }
    m.insert("message".into(), f.message.clone().into());
    m.insert("evidence".into(), f.evidence.iter().cloned().map(Value::from).collect());
    if let Some(fix) = &f.fix {
        m.insert("fix".into(), fix.clone().into());
    }
    if let Some(p) = &f.patch {
        m.insert("patch".into(), p.clone().into());
    }
    Value::Object(m)
}

fn parent_json(p: &ParentKey) -> Value {
    let mut m = Map::new();
    if let Some(g) = &p.group {
        m.insert("group".into(), g.clone().into());
    }
    if let Some(k) = &p.kind {
        m.insert("kind".into(), k.clone().into());
    }
    if let Some(ns) = &p.namespace {
        m.insert("namespace".into(), ns.clone().into());
    }
    m.insert("name".into(), p.name.clone().into());
    if let Some(s) = &p.section_name {
        m.insert("sectionName".into(), s.clone().into());
    }
    if let Some(port) = p.port {
        m.insert("port".into(), port.into());
    }
    Value::Object(m)
}

fn condition_json(c: &ExpectedCondition) -> Value {
    let mut m = Map::new();
    if let Some(p) = &c.parent {
        m.insert("parent".into(), parent_json(p));
    }
    if let Some(l) = &c.listener {
        m.insert("listener".into(), l.clone().into());
    }
    m.insert("type".into(), c.condition_type.clone().into());
    m.insert("status".into(), if c.status { "True" } else { "False" }.into());
    m.insert("reason".into(), c.reason.clone().into());
    if !c.message.is_empty() {
        m.insert("message".into(), c.message.clone().into());
    }
    Value::Object(m)
}

/// The whole document.
pub fn render_json(r: &Report<'_>) -> String {
    let objects: Vec<Value> = r
        .objects
        .iter()
        .map(|o| {
            let Value::Object(mut m) = object_ref_json(&o.object) else { unreachable!("object_ref_json returns an object") };
            if let Some(h) = &o.health {
                m.insert("health".into(), h.status.as_str().into());
                m.insert("health_message".into(), h.message.clone().into());
            }
            if !o.expected_conditions.is_empty() {
                m.insert("expected_conditions".into(), o.expected_conditions.iter().map(condition_json).collect());
            }
            if !o.listeners.is_empty() {
                let ls: Vec<Value> = o
                    .listeners
                    .iter()
                    .map(|(n, s)| json!({"name": n, "attachedRoutes": s.attached_routes, "supportedKinds": s.supported_kinds}))
                    .collect();
                m.insert("listeners".into(), ls.into());
            }
            if let Some(f) = &o.file {
                m.insert("file".into(), f.clone().into());
            }
            if let Some(l) = o.line {
                m.insert("line".into(), l.into());
            }
            Value::Object(m)
        })
        .collect();
    let s = r.summary;
    let doc = json!({
        "version": 1,
        "findings": r.findings.iter().map(finding_json).collect::<Vec<_>>(),
        "diagnoses": [],
        "objects": objects,
        "summary": {
            "objects": s.objects, "errors": s.errors, "warnings": s.warnings, "infos": s.infos,
            "suppressed": s.suppressed, "files": s.files,
            "skipped_documents": s.skipped_documents, "skipped_templates": s.skipped_templates,
            "targets": s.targets,
        },
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}
