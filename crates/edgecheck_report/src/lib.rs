//! edgecheck_report
