use edgecheck_core::graph::{EdgeKind, Target};
use edgecheck_core::reasons::layer_for_message;
use edgecheck_core::views::Event;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// Events in a dump or live cluster whose message is an ALB controller's listener error:
    /// `listener is not exist in alb, port: 443, protocol: HTTPS`, `listener not found for (443/HTTPS)`,
    /// `empty https listener default certs`. The reason (`FailedBuildModel`, `FailedApplyModel`) is
    /// generic; the message says where the fault is.
    /// The finding is about the Event's involved object (usually the Ingress). Finds nothing in a Git
    /// repository.
    ///
    /// ## Why it matters
    /// The controller cannot attach the Ingress's rules to a listener the ALB does not have, or cannot
    /// open an HTTPS listener without a default certificate: HTTPS to the ALB is refused or unrouted,
    /// whatever the Ingress says. Argo CD may show the Ingress Synced, and Progressing for ever.
    ///
    /// ## Example
    /// ```text
    /// Warning  FailedBuildModel  ingress/api  listener is not exist in alb, port: 443, protocol: HTTPS
    /// ```
    ///
    /// ## How to fix
    /// Add the listener to the AlbConfig (`spec.listeners: [{port: 443, protocol: HTTPS}]`); for
    /// `empty https listener default certs`, give the HTTPS listener a certificate (an Ingress `tls`
    /// Secret, certificate auto-discovery, or `certificates` in the AlbConfig listener).
    pub(crate) struct AlbEventListenerError {
        code: "LSN031", name: "alb-event-listener-error", layer: Layer::Listener, severity: Severity::Error,
    }
}

impl AlbEventListenerError {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (id, o, ev) in cx.graph.each::<Event>() {
            let text = ev.text();
            if layer_for_message(text) != Some(Layer::Listener) {
                continue;
            }
            let reason = ev.reason.as_deref().unwrap_or("-");
            let fix = if text.to_ascii_lowercase().contains("default certs") {
                "give the ALB HTTPS listener a certificate: an Ingress tls Secret, auto-discovery, or AlbConfig listener certificates"
            } else {
                "add the listener (port and protocol from the message) to the AlbConfig spec.listeners"
            };
            let subject = cx.graph.edges_from_kind(id, EdgeKind::Involves).next().map(|e| e.to.clone());
            let b = match subject {
                Some(Target::Found(s)) => out.at(cx.graph.obj(s), ""),
                Some(Target::Missing(r)) => {
                    out.about((*r).clone(), o.source.file().map(str::to_string), o.source.line())
                }
                None => out.at(o, ""),
            };
            let subject_name = b_name(ev);
            b.message(format!("the ALB controller cannot program {subject_name}: {text}"))
                .evidence(format!("Event {}: {} {reason}: {text}", o.name, ev.event_type.as_deref().unwrap_or("-")))
                .related(o.to_ref())
                .fix(fix)
                .emit();
        }
    }
}

/// `` Kind `ns/name` `` of the Event's subject, as written in the Event.
fn b_name(ev: &Event) -> String {
    match ev.subject() {
        Some(s) => match &s.namespace {
            Some(ns) => format!("{} `{ns}/{}`", s.kind, s.name),
            None => format!("{} `{}`", s.kind, s.name),
        },
        None => "its object".into(),
    }
}
