use edgecheck_core::kind::K;
use edgecheck_core::{Findings, Layer, Severity};

use crate::framework::{declare_check, Check as _, CheckContext};
use crate::model::condition::{ConditionType, Reason};

declare_check! {
    /// ## What it checks
    /// A Gateway, GatewayClass or ListenerSet the computed model does not accept: a Gateway whose
    /// GatewayClass is missing (`Pending`, under the absence rule), whose `infrastructure.parametersRef`
    /// is unresolved (`InvalidParameters`) or that requests an unsupported address type
    /// (`UnsupportedAddress`); a GatewayClass whose `parametersRef` is unresolved (`InvalidParameters`;
    /// only when the inventory knows the referenced kind, so CRDs installed elsewhere stay clean); a
    /// ListenerSet its Gateway does not allow (`NotAllowed`) or whose Gateway is missing.
    ///
    /// ## Why it matters
    /// Nothing the object declares is programmed: every listener and route behind it is dead.
    ///
    /// ## Example
    /// Gateway `edge/public` with `gatewayClassName: cilium` and no GatewayClass `cilium`, in a
    /// repository that defines other GatewayClasses.
    ///
    /// ## How to fix
    /// Create the missing class or parameters object, or fix the name.
    pub(crate) struct GatewayNotAccepted {
        code: "LSN004", name: "gateway-not-accepted", layer: Layer::Listener, severity: Severity::Error, also: [Severity::Warning],
    }
}

impl GatewayNotAccepted {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        for f in cx.model.gateway.faults(cx.graph) {
            if !(f.cond.listener.is_none()
                && f.cond.parent.is_none()
                && f.cond.condition_type == ConditionType::Accepted
                && f.cond.reason != Reason::ListenersNotValid
                && [K::GATEWAY, K::GATEWAY_CLASS, K::LISTENER_SET, K::LISTENER_SET_STD]
                    .iter()
                    .any(|k| cx.graph.obj(f.id).is(*k)))
            {
                continue;
            }

            let fix = match f.cond.reason {
                Reason::Pending => "create the GatewayClass named in spec.gatewayClassName, or fix the name",
                Reason::InvalidParameters => {
                    "create the parameters object named in parametersRef, or fix the reference"
                }
                Reason::UnsupportedAddress => {
                    "use address type IPAddress, Hostname or a documented domain-prefixed type"
                }
                _ => "allow the ListenerSet on its Gateway (spec.allowedListeners.namespaces) or fix spec.parentRef",
            };
            crate::gateway_api::predicted(cx, out, &f, self.meta().severity).fix(fix).emit();
        }
    }
}
