//! The Gateway API conformance suite against the model: for every test of kubernetes-sigs/gateway-api at
//! the pinned tag (`resources/conformance/suite.txt`), what its Go assertions check
//! (`resources/conformance/expectations.txt`, transcribed from the tests), compared with the conditions
//! the model predicts for manifests written after the test's shapes (`resources/conformance/<Test>.yaml`,
//! over `base.yaml`, the suite's shared objects). Tests that assert only data-plane behaviour, and those
//! whose assertions cannot follow from manifests, are listed with the reason, so the coverage is explicit.
//!
//! `expectations.txt`: a section per test, `== TestName`, then one of
//! - `data-plane only: <what it asserts>`;
//! - `not predicted: <why>`;
//! - assertion lines `Kind name[@namespace] [listener L | parent G[/section][:port]] <what>`, where
//!   `<what>` is `Type True|False [Reason]` (no reason: the test accepts any), `attachedRoutes N`,
//!   `supportedKinds K1,K2` (`-` for none) or `attachedListenerSets N`; the namespace defaults to
//!   `gateway-conformance-infra`; a parent `G[@namespace][/section][:port]` is matched by its parentRef's
//!   name, namespace (when given), sectionName and port.
//!
//! `features: -A,-B` in a section takes features out of the GatewayClass's `status.supportedFeatures`
//! (every Standard and Extended feature otherwise), for the tests that run only without them.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use super::*;
use crate::test_support::{graph_and_pki, resources_dir};

const INFRA: &str = "gateway-conformance-infra";

fn dir() -> PathBuf {
    resources_dir().join("conformance")
}

fn read(name: &str) -> String {
    let p = dir().join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// One test's section.
#[derive(Debug, Default)]
struct Section {
    name: String,
    /// `data-plane only: ...` or `not predicted: ...`.
    skip: Option<String>,
    without: Vec<String>,
    lines: Vec<String>,
}

fn sections(text: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    for raw in text.lines() {
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if let Some(name) = l.strip_prefix("== ") {
            out.push(Section { name: name.trim().to_string(), ..Section::default() });
            continue;
        }
        let s = out.last_mut().unwrap_or_else(|| panic!("expectations.txt: `{l}` before any `== Test`"));
        if l.starts_with("data-plane only:") || l.starts_with("not predicted:") {
            s.skip = Some(l.to_string());
        } else if let Some(f) = l.strip_prefix("features:") {
            s.without = f.split(',').map(|x| x.trim().trim_start_matches('-').to_string()).collect();
        } else {
            s.lines.push(l.to_string());
        }
    }
    out
}

/// Whether the parentRef `p` is the one `spec` (`name[/section][:port]`) names.
fn parent_is(p: &ParentKey, spec: &str) -> bool {
    let (rest, port) = match spec.rsplit_once(':') {
        Some((r, port)) => (r, port.parse::<i64>().ok()),
        None => (spec, None),
    };
    let (name, section) = match rest.split_once('/') {
        Some((n, s)) => (n, Some(s)),
        None => (rest, None),
    };
    let (name, ns) = match name.split_once('@') {
        Some((n, ns)) => (n, Some(ns)),
        None => (name, None),
    };
    p.name == name
        && ns.is_none_or(|ns| p.namespace.as_deref() == Some(ns))
        && p.section_name.as_deref() == section
        && p.port == port
}

/// Checks one assertion line; `Err` says what the model predicts instead.
fn check(graph: &Graph, m: &GatewayModel, line: &str) -> Result<(), String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [kind, name, rest @ ..] = words.as_slice() else { return Err("malformed line".into()) };
    let (name, ns) = name.split_once('@').unwrap_or((name, INFRA));
    let k = match *kind {
        "GatewayClass" => K::GATEWAY_CLASS,
        "Gateway" => K::GATEWAY,
        "ListenerSet" => K::LISTENER_SET_STD,
        "HTTPRoute" => K::HTTP_ROUTE,
        "GRPCRoute" => K::GRPC_ROUTE,
        "TLSRoute" => K::TLS_ROUTE,
        "TCPRoute" => K::TCP_ROUTE,
        "UDPRoute" => K::UDP_ROUTE,
        "BackendTLSPolicy" => K::BACKEND_TLS_POLICY,
        other => return Err(format!("unknown kind {other}")),
    };
    let id = graph.find(k, Some(ns), name).ok_or_else(|| format!("{kind} {ns}/{name} is not in the manifests"))?;
    let (listener, parent, what) = match rest {
        ["listener", l, what @ ..] => (Some(*l), None, what),
        ["parent", p, what @ ..] => (None, Some(*p), what),
        what => (None, None, what),
    };
    match what {
        ["attachedRoutes", n] => {
            let l = listener.ok_or("attachedRoutes needs a listener")?;
            let got = m.listener(id, l).map(|s| s.attached_routes);
            let want = n.parse::<u32>().ok();
            return if got == want { Ok(()) } else { Err(format!("attachedRoutes {got:?}")) };
        }
        ["supportedKinds", ks] => {
            let l = listener.ok_or("supportedKinds needs a listener")?;
            let got: BTreeSet<String> = m
                .listener(id, l)
                .map(|s| s.supported_kinds.iter().map(|k| k.to_string()).collect())
                .unwrap_or_default();
            let want: BTreeSet<String> = ks.split(',').filter(|k| *k != "-").map(str::to_string).collect();
            return if got == want { Ok(()) } else { Err(format!("supportedKinds {got:?}")) };
        }
        ["attachedListenerSets", n] => {
            let got = m.attached_listener_sets.get(&id).copied();
            let want = n.parse::<u32>().ok();
            return if got == want { Ok(()) } else { Err(format!("attachedListenerSets {got:?}")) };
        }
        _ => {}
    }
    let (t, status, reason) = match what {
        [t, s] => (*t, *s, None),
        [t, s, r] => (*t, *s, Some(*r)),
        _ => return Err("malformed condition".into()),
    };
    let mine: Vec<&ExpectedCondition> = m
        .of(id)
        .iter()
        .filter(|c| c.listener.as_deref() == listener)
        .filter(|c| match (parent, &c.parent) {
            (None, None) => true,
            (Some(spec), Some(p)) => parent_is(p, spec),
            _ => false,
        })
        .filter(|c| c.condition_type.as_str() == t)
        .collect();
    let ok = mine.iter().any(|c| c.status_str() == status && reason.is_none_or(|r| c.reason.as_str() == r));
    if ok {
        Ok(())
    } else if mine.is_empty() {
        Err("no such condition".into())
    } else {
        Err(mine
            .iter()
            .map(|c| format!("{} {} {}: {}", t, c.status_str(), c.reason, c.message))
            .collect::<Vec<_>>()
            .join("; "))
    }
}

/// The suite's objects, with the GatewayClass's supported features less `without`.
fn base(without: &[String]) -> String {
    read("base.yaml")
        .lines()
        .filter(|l| l.trim().strip_prefix("- name: ").is_none_or(|f| !without.iter().any(|w| w == f.trim())))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn conformance_suite_at_pinned_tag() {
    let suite: Vec<String> = read("suite.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect();
    let secs = sections(&read("expectations.txt"));
    let mut failures = String::new();
    let names: BTreeSet<&str> = secs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), secs.len(), "a test has two sections in expectations.txt");
    for t in &suite {
        if !names.contains(t.as_str()) {
            let _ = writeln!(failures, "{t}: no section in expectations.txt");
        }
    }
    let (mut compared, mut assertions) = (0, 0);
    for s in &secs {
        if !suite.contains(&s.name) {
            let _ = writeln!(failures, "{}: not a test of the pinned suite", s.name);
            continue;
        }
        if let Some(skip) = &s.skip {
            assert!(s.lines.is_empty(), "{}: `{skip}` with assertions", s.name);
            continue;
        }
        assert!(!s.lines.is_empty(), "{}: neither assertions nor a reason", s.name);
        let text =
            format!("# options: complete live\n{}\n---\n{}", base(&s.without), read(&format!("{}.yaml", s.name)));
        let (graph, _, _) = graph_and_pki(&format!("{}.yaml", s.name), &text);
        let m = GatewayModel::compute(&graph);
        compared += 1;
        for l in &s.lines {
            assertions += 1;
            if let Err(got) = check(&graph, &m, l) {
                let _ = writeln!(failures, "{}: {l}\n    predicted: {got}", s.name);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "conformance mismatches ({compared} tests, {assertions} assertions compared):\n{failures}"
    );
}
