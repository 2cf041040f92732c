//! The pipeline after loading: status model, checks, suppression, ordering.

use edgecheck_core::{Finding, Findings, Graph, Object, ObjectRef, Options};
use rayon::prelude::*;

use crate::framework::CheckContext;
use crate::model::Model;
use crate::registry::all_checks;
use crate::select::Selection;

/// The annotation that suppresses findings on an object: `edgecheck.io/ignore: "TLS003,RTE001 reason"`.
pub const IGNORE_ANNOTATION: &str = "edgecheck.io/ignore";

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
}

/// Runs the selected checks over the graph.
pub fn analyze(
    graph: &Graph,
    options: &Options,
    now: i64,
    selection: &Selection,
    suppressions: &[Suppression],
    observations: &[edgecheck_core::observation::TargetObservation],
) -> Analysis {
    let model = Model::compute(graph, now);
    let cx = CheckContext { graph, model: &model, now, options, observations };
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
    findings.retain(|f| !suppressed(graph, f, suppressions));
    let suppressed = before - findings.len();
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    findings.dedup_by(|a, b| {
        a.meta.code == b.meta.code && a.object == b.object && a.line == b.line && a.message == b.message
    });
    Analysis { findings, suppressed, model }
}

fn suppressed(graph: &Graph, f: &Finding, suppressions: &[Suppression]) -> bool {
    let by_config = suppressions
        .iter()
        .any(|s| selector_matches(&s.code, f) && s.object.as_deref().is_none_or(|p| object_matches(p, &f.object)));
    if by_config {
        return true;
    }
    let Some(obj) = find_object(graph, &f.object) else {
        return false;
    };
    let Some(ann) = obj.annotation(IGNORE_ANNOTATION) else {
        return false;
    };
    ann.split([',', ' ', '\n']).map(str::trim).filter(|s| !s.is_empty()).any(|s| selector_matches(s, f))
}

fn selector_matches(selector: &str, f: &Finding) -> bool {
    Selection { select: vec![selector.to_string()], ignore: Vec::new() }.enabled(f.meta)
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
