//! CLI integration tests: one binary, a module per command. Each test builds a temp tree and runs the
//! real `edgecheck` binary.

mod builds;
mod chart;
mod checks;
mod diff;
mod examples;
mod formats;
mod hostile_input;
mod hostile_output;
mod lint;
mod placement;
mod probe;
mod render;
mod scan;
mod schema;
mod serve;
mod support;
mod toolbox;
mod trace;
