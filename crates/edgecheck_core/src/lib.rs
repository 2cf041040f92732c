//! The model of edgecheck: objects as loaded, their kinds, the reference graph, findings and the
//! certificate model. This crate does no I/O; loaders fill an [`Inventory`], checks read a [`Graph`].
//!
//! Data flow: `Inventory` (objects with sources) → [`Graph`] (typed views + resolved edges) →
//! checks (in `edgecheck_checks`) → [`Finding`]s → renderers (in `edgecheck_report`).

pub mod cert;
pub mod check;
pub mod doc;
pub mod duration;
pub mod finding;
pub mod go_base64;
pub mod graph;
pub mod hostname;
pub mod implementation;
pub mod ingress;
pub mod inventory;
pub mod kind;
pub mod labels;
pub mod layer;
pub mod namespaces;
pub mod object;
pub mod observation;
pub mod pathset;
pub mod placeholder;
pub mod placement;
pub mod reasons;
pub mod redact;
pub mod secret;
pub mod traefik_rule;
pub mod value;
pub mod views;

pub use check::{CheckMeta, Options};
pub use doc::{Doc, MapRef, SeqRef, ValueRef};
pub use finding::{Finding, FindingBuilder, Findings, Note};
pub use graph::{Edge, EdgeKind, Graph, ObjId, Target};
pub use inventory::{Build, Inventory, LoadProblem, LoadProblemKind, NodeConfig, RepoInfo, Unchecked};
pub use kind::Kind;
pub use layer::{Layer, Severity};
pub use object::{FileRef, LineRecorder, LineTable, Object, ObjectRef, PathStep, Source};
pub use value::{Map, Str, Value};

#[doc(hidden)]
pub use serde_json as __serde_json;

/// `serde_json::json!`, made an object's [`Value`] (tests and synthesized objects).
#[macro_export]
macro_rules! json {
    ($($t:tt)+) => {
        $crate::value::Value::from($crate::__serde_json::json!($($t)+))
    };
}
