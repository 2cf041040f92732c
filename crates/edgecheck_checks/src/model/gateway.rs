//! Gateway API: the conditions a conformant implementation supporting every Standard and Extended
//! feature would write, computed from the manifests alone.

use std::collections::HashMap;

use edgecheck_core::{Graph, ObjId};

use super::ExpectedCondition;

/// Per-listener state a controller would report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListenerState {
    /// Routes attached.
    pub attached_routes: u32,
    /// Supported route kinds.
    pub supported_kinds: Vec<String>,
}

/// The computed conditions.
#[derive(Debug, Default)]
pub struct GatewayModel {
    /// Conditions by object.
    pub conditions: HashMap<ObjId, Vec<ExpectedCondition>>,
    /// Listener state by (Gateway or ListenerSet, listener name).
    pub listeners: HashMap<(ObjId, String), ListenerState>,
}

impl GatewayModel {
    /// Computes the model for every Gateway API object in the graph.
    pub fn compute(graph: &Graph) -> GatewayModel {
        let _ = graph;
        GatewayModel::default()
    }

    /// The expected conditions of an object.
    pub fn of(&self, id: ObjId) -> &[ExpectedCondition] {
        self.conditions.get(&id).map_or(&[], Vec::as_slice)
    }
}
