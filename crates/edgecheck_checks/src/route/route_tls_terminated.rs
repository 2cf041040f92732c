use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, CheckContext};
use crate::model::gateway::parent_key;

declare_check! {
    /// ## What it checks
    /// A TLSRoute attached (by the computed model) to a `protocol: TLS` listener whose `tls.mode` is
    /// `Terminate` (the default when `mode` is left out).
    ///
    /// ## Why it matters
    /// TLSRoute on a terminating listener is an Extended feature added late to the spec (the TLS
    /// routing guide: "when supported by the Gateway API implementation"); many implementations and
    /// older CRDs accept TLSRoutes only on `Passthrough` listeners and report the route
    /// `NotAllowedByListeners`. And when it works, the Gateway decrypts: a backend that expects the
    /// client's TLS (Argo CD for native gRPC, a database doing its own TLS) gets plaintext. A warning:
    /// it depends on the implementation and on what the backend expects.
    ///
    /// ## Example
    /// A TLSRoute with `sectionName: argo-tls` on a listener `{protocol: TLS, tls: {certificateRefs: [...]}}`
    /// meant for passthrough.
    ///
    /// ## How to fix
    /// Set `tls.mode: Passthrough` on the listener when the backend terminates TLS itself; otherwise
    /// check that the implementation supports TLSRoute termination.
    pub(crate) struct RouteTlsTerminated {
        code: "RTE006", name: "route-tls-terminated", layer: Layer::Route, severity: Severity::Warning,
    }
}

impl RouteTlsTerminated {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for (rid, pk, listener) in &cx.model.gateway.terminated_tls_routes {
            let obj = cx.graph.obj(*rid);
            let path = cx
                .graph
                .view::<edgecheck_core::views::Route>(*rid)
                .and_then(|r| r.spec.parent_refs.iter().position(|p| parent_key(p) == *pk))
                .map(|i| format!("spec.parentRefs[{i}]"))
                .unwrap_or_default();
            out.at(obj, &path)
                .message(format!(
                    "{} attaches to listener `{listener}` of Gateway `{}`, a TLS listener in Terminate mode: the Gateway decrypts, and implementations without TLSRoute termination reject the route",
                    obj.to_ref(),
                    format_args!(
                        "{}/{}",
                        pk.namespace.as_deref().or(obj.namespace.as_deref()).unwrap_or_default(),
                        pk.name
                    )
                ))
                .evidence(format!("listener `{listener}`: protocol TLS, tls.mode Terminate"))
                .fix("set tls.mode: Passthrough on the listener if the backend terminates TLS itself")
                .emit();
        }
    }
}
