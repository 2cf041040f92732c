//! The finding shapes the Gateway API condition checks share (CONTRIBUTING: helpers may share a finding's
//! shape; each check still decides which conditions are its own, how sure it is, and how to fix them).

use edgecheck_core::{FindingBuilder, Findings, Severity};

use crate::framework::CheckContext;
use crate::model::gateway::Fault;
use crate::model::gateway_live::{Disagreement, LiveCondition, StaleStatus};

/// A predicted condition that says something is wrong: about its object, at the field it points at, with the
/// objects it names as related. Graded `default`, or by the absence rule when it follows from a missing
/// object.
pub(crate) fn predicted<'s, 'a>(
    cx: &CheckContext<'_>,
    out: &'s mut Findings<'a>,
    f: &Fault<'_>,
    default: Severity,
) -> FindingBuilder<'s, 'a> {
    let obj = cx.graph.obj(f.id);
    let c = f.cond;
    out.at(obj, &f.field)
        .severity(cx.condition_severity(c, default))
        .message(format!(
            "{}{}: {}={} {}: {}",
            obj.to_ref(),
            f.place,
            c.condition_type,
            c.status_str(),
            c.reason,
            c.message
        ))
        .evidence(format!("expected condition {}", c.describe()))
        .related_all(f.related.iter().cloned())
}

/// A condition a controller wrote that says something is wrong, quoted.
pub(crate) fn live_fault<'s, 'a>(
    cx: &CheckContext<'_>,
    out: &'s mut Findings<'a>,
    id: edgecheck_core::ObjId,
    c: &LiveCondition,
) -> FindingBuilder<'s, 'a> {
    let obj = cx.graph.obj(id);
    let msg = if c.message.is_empty() { String::new() } else { format!(": {}", c.message) };
    out.at(obj, &c.path)
        .message(format!("{}{}: {}={} {}{msg}", obj.to_ref(), c.place(), c.condition_type, c.status, c.reason))
        .evidence(format!("status condition {}={} reason {}", c.condition_type, c.status, c.reason))
}

/// A live condition the manifests predict otherwise.
pub(crate) fn disagreement<'s, 'a>(
    cx: &CheckContext<'_>,
    out: &'s mut Findings<'a>,
    d: &Disagreement,
) -> FindingBuilder<'s, 'a> {
    let (obj, c, e) = (cx.graph.obj(d.id), &d.live, &d.expected);
    out.at(obj, &c.path)
        .message(format!(
            "{}{}: status says {}={} {}, the manifests predict {}={} {}",
            obj.to_ref(),
            c.place(),
            c.condition_type,
            c.status,
            c.reason,
            e.condition_type,
            e.status_str(),
            e.reason
        ))
        .evidence(format!("status condition {}={} reason {}", c.condition_type, c.status, c.reason))
        .evidence(format!("expected condition {}: {}", e.describe(), e.message))
}

/// Status older than the spec; `consequence` says what that means for this kind.
pub(crate) fn stale<'s, 'a>(
    cx: &CheckContext<'_>,
    out: &'s mut Findings<'a>,
    st: &StaleStatus,
    consequence: &str,
) -> FindingBuilder<'s, 'a> {
    let obj = cx.graph.obj(st.id);
    let (field, _, described) = &st.observed[0];
    let mut b = out
        .at(obj, field)
        .message(format!(
            "{}'s status describes generation {described}, its spec is generation {}: {consequence}",
            obj.to_ref(),
            st.generation
        ))
        .evidence(format!("metadata.generation: {}", st.generation));
    for (field, place, g) in st.observed.iter().take(5) {
        b = b.evidence(format!("{field}{place}: observedGeneration {g}"));
    }
    b
}
