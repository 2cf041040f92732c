//! The check catalogue of edgecheck: pure functions over the graph, one file per check with its
//! documentation, grouped by layer. Checks never do I/O.
//!
//! Adding a check: one new file in its layer's folder (doc comment = documentation, `declare_check!`,
//! `run`), one `mod` line and one entry in that folder's `CHECKS`, and fixtures under
//! `resources/fixtures/<layer>/<CODE>_<case>.yaml` (at least one that fires and one near miss that
//! must not). See CONTRIBUTING.md.

pub mod diagnose;
pub mod engine;
pub mod framework;
pub use engine::Suppression;
pub mod model;
pub mod registry;
pub mod select;

mod app;
mod backend;
mod dns;
mod gateway_api;
mod gitops;
mod input;
mod listener;
mod observed;
mod route;
mod secrets;
mod tls;

#[cfg(test)]
mod test_support;

/// The HTTP response classifier: which proxy produced a reply (APP001; the fuzz target `http_reply`).
pub use app::endpoint_proxy_reply::identify as identify_proxy_reply;
pub use engine::{analyze, Analysis, ObjectEntry, Summary};
pub use framework::{Check, CheckContext};
pub use registry::{all_checks, find_check};
pub use select::Selection;
