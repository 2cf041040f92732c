//! The pipeline after loading: status model, checks, suppression, ordering.

use edgecheck_core::{Finding, Findings, Graph, ObjId, Object, ObjectRef, Options};

use rayon::prelude::*;

use crate::diagnose::{Diagnose, Diagnosis, PathIndex};
use crate::framework::CheckContext;
use crate::model::Model;
use crate::registry::all_checks;
use crate::select::Selection;

pub use edgecheck_core::finding::IGNORE_ANNOTATION;

/// A suppression from configuration: a selector (code, prefix, name or layer) and, optionally, the
/// objects it applies to as `Kind/namespace/name` or `Kind/name` (`*` matches any part).
#[derive(Debug, Clone, Default)]
pub struct Suppression {
    /// Selector.
    pub code: String,
    /// Object pattern; all objects when absent.
    pub object: Option<String>,
    /// Why (kept for the record).
    pub reason: Option<String>,
    /// The configuration file it came from.
    pub file: Option<String>,
}

/// The result of a run.
#[derive(Debug)]
pub struct Analysis {
    /// Findings, sorted: severity, layer in path order, object, code, line.
    pub findings: Vec<Finding>,
    /// Findings dropped by annotations or configuration.
    pub suppressed: usize,
    /// The status model.
    pub model: Model,
    /// The diagnoses asked for, in order (`Diagnose::Hosts`: broken first).
    pub diagnoses: Vec<Diagnosis>,
}

/// The engine: the status model, the selected checks, suppression and ordering, then the diagnoses asked
/// for. Who claims which host is indexed once here, for the checks that join a probe with the objects and
/// for the diagnosis.
pub fn analyze(
    graph: &Graph,
    options: &Options,
    now: i64,
    selection: &Selection,
    suppressions: &[Suppression],
    observations: &[edgecheck_core::observation::TargetObservation],
    diagnose: Diagnose<'_>,
) -> Analysis {
    let model = Model::compute(graph, now);
    let paths = PathIndex::build(graph, &model);
    let serving = crate::diagnose::serving(graph, &model, &paths, observations);
    let targets = match diagnose {
        Diagnose::Targets(t) => t,
        _ => &[],
    };
    let cx =
        CheckContext { graph, model: &model, now, options, observations, serving: &serving, paths: &paths, targets };
    let mut findings: Vec<Finding> = all_checks()
        .par_iter()
        .filter(|c| selection.enabled(c.meta()))
        .flat_map_iter(|c| {
            let mut out = Vec::new();
            c.run(&cx, &mut Findings::new(c.meta(), &mut out));
            out
        })
        .collect();
    let before = findings.len();
    let mut used = Used::default();
    findings.retain(|f| !suppressed(graph, f, suppressions, &mut used));
    let suppressed = before - findings.len();
    if selection.unused_ignores {
        unused_ignores(graph, suppressions, &used, &mut findings);
    }
    locate_related(graph, &mut findings);
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    findings.dedup_by(|a, b| {
        a.meta.code == b.meta.code && a.object == b.object && a.line == b.line && a.message == b.message
    });
    let diagnoses = match diagnose {
        Diagnose::Nothing => Vec::new(),
        Diagnose::Hosts => crate::diagnose::diagnose_all(graph, &model, &paths, &findings),
        Diagnose::Targets(t) => crate::diagnose::diagnose(graph, &model, &paths, &findings, observations, t),
    };
    drop(paths);
    Analysis { findings, suppressed, model, diagnoses }
}

/// Gives each related object that was loaded from a file and has no note yet a note at the object itself
/// (its `metadata.name`),
/// so every format can point at it (text's secondary snippets, JSON's `related[].file`/`line`).
fn locate_related(graph: &Graph, findings: &mut [Finding]) {
    for f in findings.iter_mut() {
        for r in &f.related {
            if r.is_endpoint() || f.notes.iter().any(|n| &n.object == r) {
                continue;
            }
            let Some(id) = graph.find_kind(&r.group_kind(), r.namespace.as_deref(), &r.name) else { continue };
            let o = graph.obj(id);
            if let (Some(file), Some(line)) = (o.source.file(), o.line_at("metadata.name").or(o.source.line())) {
                f.notes.push(edgecheck_core::Note { object: r.clone(), file: file.to_string(), line, label: None });
            }
        }
    }
}

/// Which suppressions suppressed something: config entries by index, annotation selectors by object
/// and selector.
#[derive(Default)]
struct Used {
    config: std::collections::HashSet<usize>,
    annotations: std::collections::HashSet<(ObjectRef, String)>,
}

fn suppressed(graph: &Graph, f: &Finding, suppressions: &[Suppression], used: &mut Used) -> bool {
    let by_config: Vec<usize> = suppressions
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            selector_matches(&s.code, f) && s.object.as_deref().is_none_or(|p| object_matches(p, &f.object))
        })
        .map(|(i, _)| i)
        .collect();
    if !by_config.is_empty() {
        used.config.extend(by_config);
        return true;
    }
    // Findings made from an object carry its annotation; others look the object up by reference.
    let ann = match &f.ignore_annotation {
        Some(a) => a.as_str(),
        None => match find_object(graph, &f.object).and_then(|o| o.annotation(IGNORE_ANNOTATION)) {
            Some(a) => a,
            None => return false,
        },
    };
    let hits: Vec<&str> = IgnoreTokens::parse(ann).known.into_iter().filter(|s| selector_matches(s, f)).collect();
    for s in &hits {
        used.annotations.insert((f.object.clone(), (*s).to_string()));
    }
    !hits.is_empty()
}

/// The selectors of an `edgecheck.io/ignore` annotation (`"TLS013,RTE031 lab uses a private CA"`): the
/// leading tokens (split at commas and spaces) that are selectors, up to the first word that is not one;
/// the rest is the reason, whose words never select anything. A code-shaped token (`BKD0009`: three
/// letters, then digits) is a selector by its shape: one that names no check is `unknown` (LOD008), never a
/// broader suppression.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct IgnoreTokens<'a> {
    /// Selectors that name checks.
    pub known: Vec<&'a str>,
    /// Code-shaped selectors that name no check.
    pub unknown: Vec<&'a str>,
}

impl<'a> IgnoreTokens<'a> {
    /// Splits an annotation's value.
    pub fn parse(annotation: &'a str) -> IgnoreTokens<'a> {
        let mut out = IgnoreTokens::default();
        for t in annotation.split([',', ' ', '\n', '\t']).map(str::trim).filter(|t| !t.is_empty()) {
            if Selection::names_any(t) {
                out.known.push(t);
            } else if code_shaped(t) || (out.known.is_empty() && out.unknown.is_empty()) {
                // A code that names no check, or a first word that selects nothing: the annotation
                // would suppress nothing.
                out.unknown.push(t);
            } else {
                break;
            }
        }
        out
    }
}

/// Three ASCII letters, then digits (`TLS003`, `bkd0009`).
fn code_shaped(t: &str) -> bool {
    t.len() > 3
        && t.is_char_boundary(3)
        && t[..3].bytes().all(|b| b.is_ascii_alphabetic())
        && t[3..].bytes().all(|b| b.is_ascii_digit())
}

/// LOD009: the suppressions that suppressed nothing, as infos.
fn unused_ignores(graph: &Graph, suppressions: &[Suppression], used: &Used, out: &mut Vec<Finding>) {
    use crate::framework::Check as _;
    let meta = crate::input::ignore_unused::IgnoreUnused.meta();
    let mut f = Findings::new(meta, out);
    for (_, s) in suppressions.iter().enumerate().filter(|(i, _)| !used.config.contains(i)) {
        let scope = s.object.as_deref().map(|o| format!(" for {o}")).unwrap_or_default();
        f.about(
            ObjectRef { api_version: None, kind: "Config".into(), namespace: None, name: "ignore".into() },
            s.file.clone(),
            None,
        )
        .message(format!("config ignore `{}`{scope} suppressed no finding", s.code))
        .fix("remove the entry, or correct its code or object")
        .emit();
    }
    for (_, o) in graph.iter() {
        let Some(ann) = o.annotation(IGNORE_ANNOTATION) else { continue };
        let r = o.to_ref();
        for s in IgnoreTokens::parse(ann).known {
            if !used.annotations.contains(&(r.clone(), s.to_string())) {
                f.at(o, &format!("metadata.annotations[\"{IGNORE_ANNOTATION}\"]"))
                    .message(format!("{r}: `{IGNORE_ANNOTATION}: {s}` suppressed no finding"))
                    .fix(format!("remove `{s}` from the annotation"))
                    .emit();
            }
        }
    }
}

fn selector_matches(selector: &str, f: &Finding) -> bool {
    Selection { select: vec![selector.to_string()], ..Selection::default() }.enabled(f.meta)
}

fn object_matches(pattern: &str, r: &ObjectRef) -> bool {
    let parts: Vec<&str> = pattern.split('/').collect();
    let want: Vec<&str> = match parts.len() {
        3 => vec![&r.kind, r.namespace.as_deref().unwrap_or(""), &r.name],
        2 => vec![&r.kind, &r.name],
        _ => return false,
    };
    parts.iter().zip(want).all(|(p, w)| *p == "*" || p.eq_ignore_ascii_case(w))
}

fn find_object<'g>(graph: &'g Graph, r: &ObjectRef) -> Option<&'g Object> {
    let kind = r.group_kind();
    graph.find_kind(&kind, r.namespace.as_deref(), &r.name).map(|id| graph.obj(id))
}

/// One entry of the JSON `objects[]` list: an object of a kind edgecheck understands, with its health
/// and the Gateway API conditions it should have.
#[derive(Debug, Clone)]
pub struct ObjectEntry {
    /// The object.
    pub object: ObjectRef,
    /// Its file.
    pub file: Option<String>,
    /// Its line.
    pub line: Option<u32>,
    /// The build that rendered it (docs/design.md "Builds").
    pub build: Option<String>,
    /// The root it was linted in, when a run has several.
    pub root: Option<String>,
    /// The cluster whose inventory holds it, when the builds name one.
    pub cluster: Option<String>,
    /// Health, when assessed.
    pub health: Option<crate::model::Health>,
    /// Expected conditions (Gateway API kinds).
    pub expected_conditions: Vec<crate::model::ExpectedCondition>,
    /// Listener state (Gateways, ListenerSets), in listener order.
    pub listeners: Vec<(String, crate::model::gateway::ListenerState)>,
}

/// Counts for the summary line and `summary` in JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Every Kubernetes object loaded (List items, unknown kinds and duplicates included).
    pub objects: usize,
    /// Findings at error level.
    pub errors: usize,
    /// Findings at warning level.
    pub warnings: usize,
    /// Findings at info level.
    pub infos: usize,
    /// Findings suppressed.
    pub suppressed: usize,
    /// Files read.
    pub files: usize,
    /// Documents skipped as not Kubernetes objects.
    pub skipped_documents: usize,
    /// Templates skipped: Helm chart template files, documents with template directives.
    pub skipped_templates: usize,
    /// Endpoints probed (probe and trace).
    pub targets: usize,
    /// Builds found (docs/design.md "Builds").
    pub builds: usize,
    /// Builds that could not be rendered (or were not, under `--render never`).
    pub builds_not_rendered: usize,
    /// Objects the builds rendered.
    pub rendered_objects: usize,
    /// Objects no build applies, in a repository with builds (`LOD011`).
    pub loose_objects: usize,
}

impl Analysis {
    /// The summary counts.
    pub fn summary(&self, graph: &Graph) -> Summary {
        let count = |s| self.findings.iter().filter(|f| f.severity == s).count();
        Summary {
            objects: graph.objects.len(),
            errors: count(edgecheck_core::Severity::Error),
            warnings: count(edgecheck_core::Severity::Warning),
            infos: count(edgecheck_core::Severity::Info),
            suppressed: self.suppressed,
            files: graph.files,
            skipped_documents: graph.skipped_documents,
            skipped_templates: graph.skipped_templates,
            targets: 0,
            builds: graph.rendered.len(),
            builds_not_rendered: graph
                .rendered
                .iter()
                .filter(|r| matches!(r.state, edgecheck_core::inventory::BuildState::NotRendered(_)))
                .count(),
            rendered_objects: graph.objects.iter().filter(|o| o.source.build().is_some()).count(),
            loose_objects: graph.loose,
        }
    }

    /// `objects[]`: every loaded object of a kind edgecheck understands (first occurrences), in load order.
    pub fn object_entries(&self, graph: &Graph) -> Vec<ObjectEntry> {
        let mut out = Vec::with_capacity(graph.objects.len() - graph.duplicates.len());
        self.each_object_entry(graph, |e| out.push(e));
        out
    }

    /// The entries of [`Analysis::object_entries`] one at a time, so that a report can write each as it is
    /// made instead of holding the list.
    pub fn each_object_entry(&self, graph: &Graph, mut f: impl FnMut(ObjectEntry)) {
        let dup: std::collections::HashSet<usize> = graph.duplicates.iter().map(|(d, _)| d.0).collect();
        // Listener states by owner, sorted: each object's are one range, found by binary search (a scan of
        // every listener per object was O(objects × listeners)).
        let mut states: Vec<(ObjId, &edgecheck_core::Str, &crate::model::gateway::ListenerState)> =
            self.model.gateway.listeners.iter().map(|((lid, name), st)| (*lid, name, st)).collect();
        states.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        for (id, o) in graph.iter() {
            // A kind whose health is assessed (an HTTPProxy, an OpenShift Route) is listed for its health.
            if dup.contains(&id.0) || !(understood(graph, id, o) || self.model.health_of(id).is_some()) {
                continue;
            }
            let start = states.partition_point(|(lid, _, _)| *lid < id);
            let mut listeners: Vec<(String, crate::model::gateway::ListenerState)> = states[start..]
                .iter()
                .take_while(|(lid, _, _)| *lid == id)
                .map(|(_, name, st)| (name.to_string(), (*st).clone()))
                .collect();
            let order = listener_order(o);
            listeners.sort_by_key(|(n, _)| order.iter().position(|x| x == n).unwrap_or(usize::MAX));
            f(ObjectEntry {
                object: o.to_ref(),
                file: o.source.file().map(str::to_string),
                build: o.source.build().map(str::to_string),
                root: None,
                cluster: None,
                line: o.source.line(),
                health: self.model.health_of(id).cloned(),
                expected_conditions: self.model.gateway.of(id).to_vec(),
                listeners,
            });
        }
    }
}

fn understood(graph: &Graph, id: edgecheck_core::ObjId, o: &Object) -> bool {
    !matches!(graph.views[id.0], edgecheck_core::views::View::Other) || o.kind.known().is_some()
}

fn listener_order(o: &Object) -> Vec<String> {
    o.value
        .pointer("/spec/listeners")
        .and_then(|l| l.as_array())
        .map(|a| a.iter().filter_map(|l| l.get("name").and_then(|n| n.as_str()).map(str::to_string)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_annotations_are_selectors_then_a_reason() {
        let t = IgnoreTokens::parse("TLS013,RTE031 lab uses a private CA for tls");
        assert_eq!(t, IgnoreTokens { known: vec!["TLS013", "RTE031"], unknown: vec![] });
        // An unknown code is an error, never a broader suppression; the reason after it is still prose.
        let t = IgnoreTokens::parse("BKD0009 ALB in front");
        assert_eq!(t, IgnoreTokens { known: vec![], unknown: vec!["BKD0009"] });
        assert_eq!(IgnoreTokens::parse("tls, ingress-class-missing").known, ["tls", "ingress-class-missing"]);
        assert_eq!(IgnoreTokens::parse("tls-cert-expird because").unknown, ["tls-cert-expird"]);
        assert_eq!(IgnoreTokens::parse("LOD004 renamed next release").unknown, Vec::<&str>::new());
    }

    #[test]
    fn unused_suppressions_are_infos_only_when_asked() {
        let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    edgecheck.io/ignore: \"LOD004 TLS013 renamed next release\"\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n";
        let (graph, options) = crate::test_support::graph_from_text("t.yaml", text);
        let config = [
            Suppression { code: "LOD004".into(), object: Some("Service/other/*".into()), ..Default::default() },
            Suppression { code: "BKD009".into(), file: Some(".edgecheck.toml".into()), ..Default::default() },
        ];
        let run = |unused_ignores| {
            let selection = Selection { unused_ignores, ..Selection::default() };
            let a = analyze(&graph, &options, 0, &selection, &config, &[], Diagnose::Nothing);
            let mut got: Vec<String> =
                a.findings.iter().filter(|f| f.meta.code == "LOD009").map(|f| f.message.clone()).collect();
            got.sort();
            (got, a.suppressed)
        };
        assert_eq!(run(false), (vec![], 1));
        let (unused, suppressed) = run(true);
        assert_eq!(suppressed, 1, "the annotation's LOD004 suppressed the duplicate");
        assert_eq!(
            unused,
            [
                "Service `shop/web`: `edgecheck.io/ignore: TLS013` suppressed no finding",
                "config ignore `BKD009` suppressed no finding",
                "config ignore `LOD004` for Service/other/* suppressed no finding",
            ]
        );
    }
}
