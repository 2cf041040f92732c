//! The status model: what a conformant Gateway API implementation would write (computed from the
//! manifests alone), and health as Argo CD gives it. Computed once per run; checks read it through
//! `CheckContext::model`, and the JSON `objects[]` list is rendered from it.

pub mod condition;
pub mod gateway;
pub mod gateway_live;
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
    /// Message; starts with Argo CD's message where Argo CD assesses the kind (fixed words are not copied).
    pub message: std::borrow::Cow<'static, str>,
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
    /// For route conditions: the parentRef they are for (shared: a route holds two conditions per parent).
    pub parent: Option<std::sync::Arc<ParentKey>>,
    /// For listener conditions: the listener name.
    pub listener: Option<String>,
    /// `Accepted`, `Programmed`, `ResolvedRefs`, `Conflicted`.
    pub condition_type: condition::ConditionType,
    /// `"True"` or `"False"`.
    pub status: bool,
    /// Reason (`as_str` is the Gateway API spelling).
    pub reason: condition::Reason,
    /// Why, in words (most are fixed words, held without a copy).
    pub message: std::borrow::Cow<'static, str>,
}

impl ExpectedCondition {
    /// True when the condition says something is wrong: `False`, or `Conflicted=True`.
    pub fn is_fault(&self) -> bool {
        if self.condition_type == condition::ConditionType::Conflicted {
            self.status
        } else {
            !self.status
        }
    }

    /// `status` as the spec spells it.
    pub fn status_str(&self) -> &'static str {
        if self.status {
            "True"
        } else {
            "False"
        }
    }

    /// `Type=Status reason Reason`, with the listener it is for: what a finding quotes as evidence.
    pub fn describe(&self) -> String {
        let listener = self.listener.as_deref().map(|l| format!(" (listener {l})")).unwrap_or_default();
        format!("{}={} reason {}{listener}", self.condition_type, self.status_str(), self.reason)
    }

    /// True when the condition follows from an object missing from the inventory: the absence rule
    /// decides its severity (an error on a full dump, a warning otherwise).
    pub fn from_absence(&self) -> bool {
        self.message.contains(gateway::NOT_IN_INVENTORY)
    }
}

/// Everything computed once per run.
#[derive(Debug, Default)]
pub struct Model {
    /// Gateway API conditions.
    pub gateway: gateway::GatewayModel,
    /// Health by object (index = `ObjId`).
    pub health: Vec<Option<Health>>,
    /// Live Gateway API status (dumps, clusters) compared with [`Model::gateway`].
    pub live: gateway_live::LiveStatus,
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
                h.message = masked.into();
            }
        }
        let live = gateway_live::LiveStatus::compute(graph, &gateway);
        Model { gateway, health, live }
    }

    /// The health of an object.
    pub fn health_of(&self, id: ObjId) -> Option<&Health> {
        self.health.get(id.0).and_then(Option::as_ref)
    }
}

/// A message held for as long as the model: formatted text gives back the room it grew into (#17).
pub(crate) fn fitted(message: std::borrow::Cow<'static, str>) -> std::borrow::Cow<'static, str> {
    match message {
        std::borrow::Cow::Owned(mut s) => {
            s.shrink_to_fit();
            std::borrow::Cow::Owned(s)
        }
        m => m,
    }
}
