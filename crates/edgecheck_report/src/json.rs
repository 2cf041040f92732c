//! The JSON contract of docs/design.md: `{"version": 1, "tool", "findings", "diagnoses", "objects",
//! "summary"}`; its JSON Schema is docs/schema/edgecheck.schema.json.

use edgecheck_checks::diagnose::Diagnosis;
use edgecheck_checks::model::{ExpectedCondition, ParentKey};
use edgecheck_checks::{ObjectEntry, Summary};
use edgecheck_core::{Finding, ObjectRef};
use serde::ser::{Serialize, SerializeMap as _, Serializer};
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
    let related = f.related.iter().map(|r| {
        let mut v = object_ref_json(r);
        if let (Some(n), Value::Object(m)) = (f.notes.iter().find(|n| &n.object == r), &mut v) {
            m.insert("file".into(), n.file.clone().into());
            m.insert("line".into(), n.line.into());
            if let Some(label) = &n.label {
                m.insert("note".into(), label.clone().into());
            }
        }
        v
    });
    m.insert("related".into(), related.collect());
    if let Some(file) = &f.file {
        m.insert("file".into(), file.clone().into());
    }
    if let Some(line) = f.line {
        m.insert("line".into(), line.into());
    }
    if let Some(build) = &f.build {
        m.insert("build".into(), build.clone().into());
    }
    if let Some(root) = &f.root {
        m.insert("root".into(), root.clone().into());
    }
    if let Some(cluster) = &f.cluster {
        m.insert("cluster".into(), cluster.clone().into());
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
        m.insert("group".into(), g.as_str().into());
    }
    if let Some(k) = &p.kind {
        m.insert("kind".into(), k.as_str().into());
    }
    if let Some(ns) = &p.namespace {
        m.insert("namespace".into(), ns.as_str().into());
    }
    m.insert("name".into(), p.name.as_str().into());
    if let Some(s) = &p.section_name {
        m.insert("sectionName".into(), s.as_str().into());
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
    m.insert("type".into(), c.condition_type.as_str().into());
    m.insert("status".into(), if c.status { "True" } else { "False" }.into());
    m.insert("reason".into(), c.reason.as_str().into());
    if !c.message.is_empty() {
        m.insert("message".into(), c.message.clone().into());
    }
    Value::Object(m)
}

/// One link of a chain: the object's reference, its state, layer, finding and node.
fn link_json(l: &edgecheck_checks::diagnose::ChainLink) -> Value {
    let mut m = match object_ref_json(&l.object) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    m.insert("state".into(), l.state.clone().into());
    m.insert("layer".into(), l.layer.as_str().into());
    if let Some(f) = l.finding {
        m.insert("finding".into(), f.into());
    }
    m.insert("node".into(), l.node.into());
    Value::Object(m)
}

/// One diagnosis: docs/design.md's `target`, `root_cause` (index into `findings`) and `chain`, plus the
/// verdict, the failing layer, the path graph (`nodes`, each with its `parent`) and the findings the
/// root cause explains.
pub fn diagnosis_json(d: &Diagnosis) -> Value {
    let chain: Vec<Value> = d.chain.iter().map(link_json).collect();
    let nodes: Vec<Value> = d
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let mut m = Map::new();
            m.insert("id".into(), i.into());
            m.insert("role".into(), n.role.as_str().into());
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
    let mut out = json!({
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
        "causes": d.causes.iter().map(|c| json!({
            "root_cause": c.root_cause,
            "breaks_at": c.breaks_at,
            "chain": c.chain.iter().map(link_json).collect::<Vec<_>>(),
            "explains": c.explains,
        })).collect::<Vec<_>>(),
        "also": d.also,
        "claims": d.claims,
        "nodes": nodes,
    });
    // As on findings: which of a run's inventories claims the host.
    if let Some(m) = out.as_object_mut() {
        if let Some(r) = &d.root {
            m.insert("root".into(), r.clone().into());
        }
        if let Some(c) = &d.cluster {
            m.insert("cluster".into(), c.clone().into());
        }
    }
    out
}

/// The whole document.
pub fn render_json(r: &Report<'_>) -> String {
    let mut out = Vec::with_capacity(4096);
    // Writing to a Vec cannot fail.
    let _ = write_json(r, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// The whole document, streamed to `out` (what [`render_json`] returns, without building it in memory
/// first: on a large repository the document as a `Value` tree was several times the size of the text).
pub fn write_json(r: &Report<'_>, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &Doc(r))?;
    out.write_all(b"\n")
}

/// `diagnoses[]`, one diagnosis at a time.
struct Diagnoses<'a>(&'a [Diagnosis]);

impl Serialize for Diagnoses<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq as _;
        let mut seq = ser.serialize_seq(Some(self.0.len()))?;
        for d in self.0 {
            seq.serialize_element(&diagnosis_json(d))?;
        }
        seq.end()
    }
}

/// `{"version", "tool", "findings", "diagnoses", "objects", "observations" (probe), "summary"}`, in that
/// order.
struct Doc<'a>(&'a Report<'a>);

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let s = r.summary;
        let mut m = ser.serialize_map(None)?;
        m.serialize_entry("version", &1)?;
        let mut tool = json!({"name": "edgecheck", "version": r.version});
        if !r.render_tools.is_empty() {
            tool["renderers"] = r.render_tools.into();
        }
        m.serialize_entry("tool", &tool)?;
        m.serialize_entry("findings", &Findings(r.findings))?;
        m.serialize_entry("diagnoses", &Diagnoses(r.diagnoses))?;
        m.serialize_entry("objects", &Objects(r.objects))?;
        if !r.observations.is_empty() {
            m.serialize_entry("observations", r.observations)?;
        }
        m.serialize_entry("summary", &SummaryJson(s))?;
        m.end()
    }
}

struct Findings<'a>(&'a [Finding]);

impl Serialize for Findings<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq(self.0.iter().map(finding_json))
    }
}

struct Objects<'a>(&'a dyn crate::ObjectSource);

impl Serialize for Objects<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq as _;
        let mut seq = ser.serialize_seq(None)?;
        let mut failed = None;
        self.0.each(&mut |o| {
            if failed.is_none() {
                failed = seq.serialize_element(&ObjectJson(o)).err();
            }
        });
        match failed {
            Some(e) => Err(e),
            None => seq.end(),
        }
    }
}

/// One entry of `objects[]`: the object reference's fields, then health, expected conditions,
/// listeners, file and line, each only when there is something to say.
struct ObjectJson<'a>(&'a ObjectEntry);

impl Serialize for ObjectJson<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let o = self.0;
        let r = &o.object;
        let mut m = ser.serialize_map(None)?;
        if let Some(a) = &r.api_version {
            m.serialize_entry("apiVersion", a)?;
        }
        m.serialize_entry("kind", &r.kind)?;
        if let Some(ns) = &r.namespace {
            m.serialize_entry("namespace", ns)?;
        }
        m.serialize_entry("name", &r.name)?;
        if let Some(h) = &o.health {
            m.serialize_entry("health", h.status.as_str())?;
            m.serialize_entry("health_message", &h.message)?;
        }
        if !o.expected_conditions.is_empty() {
            let cs: Vec<Value> = o.expected_conditions.iter().map(condition_json).collect();
            m.serialize_entry("expected_conditions", &cs)?;
        }
        if !o.listeners.is_empty() {
            let ls: Vec<Value> = o
                .listeners
                .iter()
                .map(|(n, s)| json!({"name": n, "attachedRoutes": s.attached_routes, "supportedKinds": s.supported_kinds}))
                .collect();
            m.serialize_entry("listeners", &ls)?;
        }
        if let Some(f) = &o.file {
            m.serialize_entry("file", f)?;
        }
        if let Some(l) = o.line {
            m.serialize_entry("line", &l)?;
        }
        if let Some(b) = &o.build {
            m.serialize_entry("build", b)?;
        }
        if let Some(r) = &o.root {
            m.serialize_entry("root", r)?;
        }
        if let Some(c) = &o.cluster {
            m.serialize_entry("cluster", c)?;
        }
        m.end()
    }
}

struct SummaryJson<'a>(&'a Summary);

impl Serialize for SummaryJson<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let s = self.0;
        let mut m = ser.serialize_map(Some(13))?;
        m.serialize_entry("objects", &s.objects)?;
        m.serialize_entry("errors", &s.errors)?;
        m.serialize_entry("warnings", &s.warnings)?;
        m.serialize_entry("infos", &s.infos)?;
        m.serialize_entry("suppressed", &s.suppressed)?;
        m.serialize_entry("files", &s.files)?;
        m.serialize_entry("skipped_documents", &s.skipped_documents)?;
        m.serialize_entry("skipped_templates", &s.skipped_templates)?;
        m.serialize_entry("targets", &s.targets)?;
        m.serialize_entry("builds", &s.builds)?;
        m.serialize_entry("builds_not_rendered", &s.builds_not_rendered)?;
        m.serialize_entry("rendered_objects", &s.rendered_objects)?;
        m.serialize_entry("loose_objects", &s.loose_objects)?;
        m.end()
    }
}

/// `summary` as a value (the diff document's summary extends it).
pub(crate) fn summary_json(s: &Summary) -> Value {
    serde_json::to_value(SummaryJson(s)).unwrap_or(Value::Null)
}
