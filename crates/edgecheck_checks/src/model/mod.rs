//! The status model: what a conformant Gateway API implementation would write (computed from the
//! manifests alone), and health as Argo CD gives it. Computed once per run; checks read it through
//! `CheckContext::model`, and the JSON `objects[]` list is rendered from it.

pub mod gateway;
pub(crate) mod gateway_live;
pub mod health;

use edgecheck_core::{Graph, Layer, ObjId};

/// Health, with Argo CD's meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum HealthStatus {
    /// Working as intended.
    Healthy,
    /// Not yet healthy, may become so.
    Progressing,
    /// Failed.
    Degraded,
    /// Paused or suspended.
    Suspended,
    /// Not present.
    Missing,
    /// Cannot be told.
    Unknown,
}

impl HealthStatus {
    /// Argo CD's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            HealthStatus::Healthy => "Healthy",
            HealthStatus::Progressing => "Progressing",
            HealthStatus::Degraded => "Degraded",
            HealthStatus::Suspended => "Suspended",
            HealthStatus::Missing => "Missing",
            HealthStatus::Unknown => "Unknown",
        }
    }
}

/// The health of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    /// Status.
    pub status: HealthStatus,
    /// Message; starts with Argo CD's message where Argo CD assesses the kind.
    pub message: String,
    /// Where the fault is, when the status is not Healthy.
    pub layer: Option<Layer>,
    /// True when this is edgecheck's own assessment (a kind Argo CD does not assess).
    pub own: bool,
}

/// A parentRef as it appears in `expected_conditions[].parent`: the route's own `parentRefs` entry,
/// as written.
pub type ParentKey = edgecheck_core::views::ParentRef;

/// One condition a conformant implementation would set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedCondition {
    /// For route conditions: the parentRef they are for.
    pub parent: Option<ParentKey>,
    /// For listener conditions: the listener name.
    pub listener: Option<String>,
    /// `Accepted`, `Programmed`, `ResolvedRefs`, `Conflicted`, ...
    pub condition_type: String,
    /// `"True"` or `"False"`.
    pub status: bool,
    /// Reason, in the Gateway API spelling.
    pub reason: String,
    /// Why, in words.
    pub message: String,
}

/// Everything computed once per run.
#[derive(Debug, Default)]
pub struct Model {
    /// Gateway API conditions.
    pub gateway: gateway::GatewayModel,
    /// Health by object (index = `ObjId`).
    pub health: Vec<Option<Health>>,
}

impl Model {
    /// Computes the model.
    pub fn compute(graph: &Graph, now: i64) -> Model {
        let gateway = gateway::GatewayModel::compute(graph);
        let mut health = health::compute(graph, &gateway, now);
        // Health messages quote status text (Application conditions, operation messages), which carries
        // whatever the controller was given, credentials in repository URLs included.
        for h in health.iter_mut().flatten() {
            if let std::borrow::Cow::Owned(masked) = edgecheck_core::redact::credentials(&h.message) {
                h.message = masked;
            }
        }
        Model { gateway, health }
    }

    /// The health of an object.
    pub fn health_of(&self, id: ObjId) -> Option<&Health> {
        self.health.get(id.0).and_then(Option::as_ref)
    }
}
