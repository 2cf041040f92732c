//! The JSON contract of DESIGN.md: `{"version": 1, "findings", "diagnoses", "objects", "summary"}`.

use edgecheck_checks::diagnose::Diagnosis;
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

/// One diagnosis: DESIGN.md's `target`, `root_cause` (index into `findings`) and `chain`, plus the
/// verdict, the failing layer, the path graph (`nodes`, each with its `parent`) and the findings the
/// root cause explains.
pub fn diagnosis_json(d: &Diagnosis) -> Value {
    let chain: Vec<Value> = d
        .chain
        .iter()
        .map(|l| {
            let Value::Object(mut m) = object_ref_json(&l.object) else {
                unreachable!("object_ref_json returns an object")
            };
            m.insert("state".into(), l.state.clone().into());
            m.insert("layer".into(), l.layer.as_str().into());
            if let Some(f) = l.finding {
                m.insert("finding".into(), f.into());
            }
            m.insert("node".into(), l.node.into());
            Value::Object(m)
        })
        .collect();
    let nodes: Vec<Value> = d
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let mut m = Map::new();
            m.insert("id".into(), i.into());
            m.insert("role".into(), n.role.into());
            m.insert("label".into(), n.label.clone().into());
            m.insert("layer".into(), n.layer.as_str().into());
            m.insert("branch".into(), n.branch.as_str().into());
            m.insert("state".into(), n.state.as_str().into());
            m.insert("parent".into(), n.parent.map_or(Value::Null, Value::from));
            if let Some(o) = &n.object {
                m.insert("object".into(), object_ref_json(o));
            }
            if let Some(f) = &n.file {
                m.insert("file".into(), f.clone().into());
            }
            if let Some(l) = n.line {
                m.insert("line".into(), l.into());
            }
            m.insert("detail".into(), n.detail.iter().cloned().map(Value::from).collect());
            m.insert("findings".into(), n.findings.iter().copied().map(Value::from).collect());
            Value::Object(m)
        })
        .collect();
    json!({
        "target": d.target.target,
        "host": d.target.host,
        "port": d.target.port,
        "verdict": d.verdict.as_str(),
        "layer": d.layer.map(|l| l.as_str()),
        "passthrough": d.passthrough,
        "summary": d.summary,
        "root_cause": d.root_cause,
        "breaks_at": d.breaks_at,
        "chain": chain,
        "consequences": d.consequences,
        "also": d.also,
        "claims": d.claims,
        "nodes": nodes,
    })
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
        "diagnoses": r.diagnoses.iter().map(diagnosis_json).collect::<Vec<_>>(),
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
