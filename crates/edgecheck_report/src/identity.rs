//! A finding's identity across runs: what SARIF's `partialFingerprints` and GitLab Code Quality's
//! `fingerprint` carry, so that code scanning and merge-request widgets match a finding of this run with
//! the same finding of the base branch's run. It is what the finding is about, never where it is: the
//! check's code, the object (kind, namespace, name), the field it points at, the cluster whose inventory it
//! is, its file and build, the related objects, the hosts and the port. Lines are not part of it (a finding moved by an edit above it is the same finding), nor is
//! the message (a change of wording in a new edgecheck version is not a new finding).
//!
//! Two findings of one run with the same identity (a check firing twice on one object's fields) are told
//! apart by their order among those findings, the first keeping the plain identity.

use edgecheck_core::{Finding, ObjectRef};
use sha2::{Digest as _, Sha256};

/// The readable identity: `CODE|Kind/ns/name|field|cluster|file|build|related...|hosts|port`.
pub fn finding_identity(f: &Finding) -> String {
    let mut s = String::with_capacity(128);
    s.push_str(f.meta.code);
    push_field(&mut s, &logical_name(&f.object));
    push_field(&mut s, f.field.as_deref().unwrap_or_default());
    push_field(&mut s, f.cluster.as_deref().unwrap_or_default());
    push_field(&mut s, f.file.as_deref().unwrap_or_default());
    push_field(&mut s, f.build.as_deref().unwrap_or_default());
    let mut related: Vec<String> = f.related.iter().map(logical_name).collect();
    related.sort();
    push_field(&mut s, &related.join(","));
    let mut hosts = f.hosts.clone();
    hosts.sort();
    push_field(&mut s, &hosts.join(","));
    push_field(&mut s, &f.port.map(|p| p.to_string()).unwrap_or_default());
    s
}

/// The fingerprints of `findings`, in order: the SHA-256 (hex) of each identity, with `#n` appended to the
/// identity of the n-th repeat of one identity (n from 1; the first has none).
pub fn fingerprints(findings: &[Finding]) -> Vec<String> {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    findings
        .iter()
        .map(|f| {
            let id = finding_identity(f);
            let n = seen.entry(id.clone()).or_insert(0);
            let keyed = if *n == 0 { id } else { format!("{id}#{n}") };
            *n += 1;
            hex(&Sha256::digest(keyed.as_bytes()))
        })
        .collect()
}

/// `Kind/namespace/name` (`Kind/name` when cluster-scoped), SARIF's logical location; the API version is
/// left out so that a migration from `v1beta1` to `v1` keeps the finding.
pub(crate) fn logical_name(r: &ObjectRef) -> String {
    match &r.namespace {
        Some(ns) => format!("{}/{}/{}", r.kind, ns, r.name),
        None => format!("{}/{}", r.kind, r.name),
    }
}

/// Appends `|field`, with `|` and `\` escaped so that fields cannot run into each other.
fn push_field(s: &mut String, field: &str) {
    s.push('|');
    for c in field.chars() {
        if matches!(c, '|' | '\\') {
            s.push('\\');
        }
        s.push(c);
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_messages_do_not_change_the_fingerprint() {
        let findings = crate::fixtures::findings();
        let before = fingerprints(&findings);
        let mut moved = findings.clone();
        for f in &mut moved {
            f.line = f.line.map(|l| l + 40);
            f.message.push_str(" (reworded)");
            f.evidence.push("more evidence".into());
        }
        assert_eq!(fingerprints(&moved), before);
        // Distinct findings have distinct fingerprints, 64 hex digits each.
        let set: std::collections::BTreeSet<&String> = before.iter().collect();
        assert_eq!(set.len(), before.len());
        assert!(before.iter().all(|f| f.len() == 64 && f.bytes().all(|b| b.is_ascii_hexdigit())));
    }

    #[test]
    fn what_the_finding_is_about_changes_it() {
        let findings = crate::fixtures::findings();
        let base = finding_identity(&findings[1]);
        let mut other = findings[1].clone();
        other.object.name = "api".into();
        assert_ne!(finding_identity(&other), base);
        let mut other = findings[1].clone();
        other.file = Some("apps/shop/svc-new.yaml".into());
        assert_ne!(finding_identity(&other), base);
        let mut other = findings[1].clone();
        other.hosts = vec!["b.example.com".into()];
        assert_ne!(finding_identity(&other), base);
        // Another field of the same object, or the same finding in another cluster's inventory.
        let mut other = findings[1].clone();
        other.field = Some("spec.ports[1].port".into());
        assert_ne!(finding_identity(&other), base);
        let mut other = findings[1].clone();
        other.cluster = Some("staging".into());
        assert_ne!(finding_identity(&other), base);
        // The API version is not part of it.
        let mut other = findings[1].clone();
        other.object.api_version = Some("v2".into());
        assert_eq!(finding_identity(&other), base);
        // A name holding the separator cannot imitate another field.
        let mut a = findings[1].clone();
        a.object.name = "web|apps/shop/svc.yaml".into();
        a.file = None;
        assert_ne!(finding_identity(&a), base);
    }

    #[test]
    fn repeats_are_numbered_in_order() {
        let f = crate::fixtures::findings()[1].clone();
        let mut g = f.clone();
        g.line = Some(99);
        let prints = fingerprints(&[f.clone(), g]);
        assert_ne!(prints[0], prints[1]);
        assert_eq!(prints[0], fingerprints(&[f])[0], "the first keeps the plain identity");
    }
}
