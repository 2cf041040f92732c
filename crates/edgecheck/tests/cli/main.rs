//! CLI integration tests: one binary, a module per command. Each test builds a temp tree and runs the
//! real `edgecheck` binary.

mod lint;
mod support;
