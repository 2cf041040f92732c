//! The catalogue: every check, sorted by code. Each layer folder owns its own `CHECKS` slice.

use std::sync::OnceLock;

use crate::framework::Check;

/// Every registered check, sorted by code.
pub fn all_checks() -> &'static [&'static dyn Check] {
    static ALL: OnceLock<Vec<&'static dyn Check>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut v: Vec<&'static dyn Check> = Vec::new();
        for layer in [
            crate::input::CHECKS,
            crate::dns::CHECKS,
            crate::listener::CHECKS,
            crate::tls::CHECKS,
            crate::route::CHECKS,
            crate::backend::CHECKS,
            crate::app::CHECKS,
            crate::gitops::CHECKS,
            crate::secrets::CHECKS,
        ] {
            v.extend_from_slice(layer);
        }
        v.sort_by_key(|c| c.meta().code);
        v
    })
}

/// A check by code (`TLS003`, any case) or name (`tls-cert-host-mismatch`).
pub fn find_check(code_or_name: &str) -> Option<&'static dyn Check> {
    all_checks()
        .iter()
        .copied()
        .find(|c| c.meta().code.eq_ignore_ascii_case(code_or_name) || c.meta().name == code_or_name)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn codes_and_names_are_unique_and_well_formed() {
        let mut codes = BTreeSet::new();
        let mut names = BTreeSet::new();
        for c in all_checks() {
            let m = c.meta();
            assert!(codes.insert(m.code), "duplicate code {}", m.code);
            assert!(names.insert(m.name), "duplicate name {}", m.name);
            let (tag, digits) = m.code.split_at(3);
            assert!(
                ["LOD", "DNS", "LSN", "RTE", "BKD", "TLS", "APP", "GIT", "SEC", "META"].contains(&tag),
                "{}",
                m.code
            );
            assert!(digits.len() == 3 && digits.bytes().all(|b| b.is_ascii_digit()), "{}", m.code);
            let expected_layer = match tag {
                "LOD" => "input",
                "DNS" => "dns",
                "LSN" => "listener",
                "RTE" => "route",
                "BKD" => "backend",
                "TLS" => "tls",
                "APP" => "app",
                "GIT" => "gitops",
                "SEC" => "secrets",
                _ => "",
            };
            assert_eq!(m.layer.as_str(), expected_layer, "{} is in the wrong layer", m.code);
            assert!(m.name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{}", m.name);
            assert!(!m.name.starts_with("no-") && !m.name.starts_with("bad-"), "{}", m.name);
        }
    }

    #[test]
    fn every_check_is_documented() {
        for c in all_checks() {
            let d = c.meta().documentation();
            for section in ["## What it checks", "## Why it matters", "## Example", "## How to fix"] {
                assert!(d.contains(section), "{} lacks `{section}`", c.meta().code);
            }
            assert!(!c.meta().summary().is_empty(), "{} has no summary", c.meta().code);
        }
    }
}
