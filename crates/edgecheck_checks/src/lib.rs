//! edgecheck_checks
