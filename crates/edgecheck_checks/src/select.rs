//! `--select` / `--ignore`: `ALL`, a layer (`tls`), a code prefix (`TLS`, `TLS0`), a code (`TLS003`)
//! or a name (`tls-cert-expired`). The more specific selector wins; on a tie, ignore wins.

use edgecheck_core::{CheckMeta, Layer};

/// Which checks run.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Selected (empty: `ALL`).
    pub select: Vec<String>,
    /// Ignored.
    pub ignore: Vec<String>,
    /// Report the suppressions that suppressed nothing (LOD009, infos; `--show-unused-ignores`).
    pub unused_ignores: bool,
}

/// A selector that matches no check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownSelector(pub String);

impl std::fmt::Display for UnknownSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` names no check, code prefix or layer (see `edgecheck checks`)", self.0)
    }
}

impl Selection {
    /// Whether the check runs.
    pub fn enabled(&self, meta: &CheckMeta) -> bool {
        let sel = if self.select.is_empty() {
            Some(0)
        } else {
            self.select.iter().filter_map(|s| specificity(s, meta)).max()
        };
        let ign = self.ignore.iter().filter_map(|s| specificity(s, meta)).max();
        match (sel, ign) {
            (Some(s), Some(i)) => s > i,
            (Some(_), None) => true,
            _ => false,
        }
    }

    /// Whether `selector` names at least one registered check.
    pub fn names_any(selector: &str) -> bool {
        crate::registry::all_checks().iter().any(|c| specificity(selector, c.meta()).is_some())
    }

    /// Selectors that match no registered check.
    pub fn unknown(&self) -> Vec<UnknownSelector> {
        self.select
            .iter()
            .chain(&self.ignore)
            .filter(|s| !Selection::names_any(s))
            .map(|s| UnknownSelector(s.clone()))
            .collect()
    }
}

/// How specifically `selector` names `meta`, or `None` when it does not.
fn specificity(selector: &str, meta: &CheckMeta) -> Option<u32> {
    let s = selector.trim();
    if s.eq_ignore_ascii_case("ALL") {
        return Some(0);
    }
    if Layer::parse(&s.to_ascii_lowercase()) == Some(meta.layer)
        && s.bytes().all(|b| b.is_ascii_alphabetic())
        && s.to_ascii_lowercase() == s
    {
        return Some(1);
    }
    if s == meta.name || s.eq_ignore_ascii_case(meta.code) {
        return Some(100);
    }
    let up = s.to_ascii_uppercase();
    if up.len() < meta.code.len() && meta.code.starts_with(&up) && up.len() >= 3 {
        return Some(u32::try_from(up.len()).unwrap_or(0));
    }
    None
}

#[cfg(test)]
mod tests {
    use edgecheck_core::Severity;

    use super::*;

    static M: CheckMeta = CheckMeta {
        code: "TLS003",
        name: "tls-cert-host-mismatch",
        layer: Layer::Tls,
        severity: Severity::Error,
        also: &[],
        docs: "",
    };
    static N: CheckMeta = CheckMeta {
        code: "RTE001",
        name: "ingress-class-missing",
        layer: Layer::Route,
        severity: Severity::Error,
        also: &[],
        docs: "",
    };

    fn sel(select: &[&str], ignore: &[&str]) -> Selection {
        Selection {
            select: select.iter().map(|s| s.to_string()).collect(),
            ignore: ignore.iter().map(|s| s.to_string()).collect(),
            unused_ignores: false,
        }
    }

    #[test]
    fn specific_wins() {
        assert!(sel(&[], &[]).enabled(&M));
        assert!(!sel(&["route"], &[]).enabled(&M));
        assert!(sel(&["route"], &[]).enabled(&N));
        assert!(!sel(&[], &["tls"]).enabled(&M));
        assert!(sel(&["TLS003"], &["tls"]).enabled(&M));
        assert!(!sel(&["TLS"], &["TLS0"]).enabled(&M));
        assert!(sel(&["tls-cert-host-mismatch"], &["TLS0"]).enabled(&M));
        assert!(!sel(&["ALL"], &["ALL"]).enabled(&M));
    }
}
