//! Diagnosis tests: see tests in crates/edgecheck_checks/resources/traces.
