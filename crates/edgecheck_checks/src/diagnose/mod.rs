//! Diagnosis: one host's request path, with the findings and observations placed on it, and the
//! root cause first.
//!
//! The path is built from the graph (who claims the host, then listener → route → Service →
//! workloads, with the certificate, GitOps and secret-delivery branches beside it). Findings attach
//! to the nodes of the objects they name; probe findings attach to the node of their layer. The root
//! cause is the earliest failing layer on the path (docs/design.md "Path order"), followed back through
//! what made the failing object wrong or absent: a producer that failed, or an object whose finding
//! names it (a failed Job that should have created a missing Service). The chain lists the objects
//! from the symptom back to that cause.
//!
//! Everything here is analysis; renderers draw [`Diagnosis`] as they find it.

mod build;
pub(crate) mod claims;
mod root;
mod serving;

use edgecheck_core::observation::TargetObservation;
use edgecheck_core::{Finding, Graph, Layer, ObjectRef};

use rayon::prelude::*;

use crate::model::Model;

pub use build::PathIndex;
pub use claims::{Claim, ClaimIndex, RouteKind};
pub use serving::{serving, Serving};

/// What a diagnosis is about: one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceTarget {
    /// As given or as written for a host found in the inventory (`https://shop.example.com/`).
    pub target: String,
    /// `https`, `http`, `grpcs`, `grpc`.
    pub scheme: String,
    /// Host name, lowercase.
    pub host: String,
    /// Port (the scheme's default when not given).
    pub port: u16,
    /// Path, `/` when not given.
    pub path: String,
}

impl TraceTarget {
    /// Parses `scheme://host[:port][/path]`, `host[:port][/path]` (https) or a bare host.
    pub fn parse(s: &str) -> Option<TraceTarget> {
        let (scheme, rest) = match s.split_once("://") {
            Some((sc, rest)) => (sc.to_ascii_lowercase(), rest),
            None => ("https".to_string(), s),
        };
        let default_port = match scheme.as_str() {
            "https" | "grpcs" => 443,
            "http" | "grpc" => 80,
            _ => return None,
        };
        let (authority, path) = match rest.find(['/', '?', '#']) {
            Some(i) if rest[i..].starts_with('/') => (&rest[..i], rest[i..].split(['?', '#']).next().unwrap_or("/")),
            Some(i) => (&rest[..i], "/"),
            None => (rest, "/"),
        };
        let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (h, tail) = v6.split_once(']')?;
            let port = match tail.strip_prefix(':') {
                Some(p) => p.parse().ok()?,
                None => default_port,
            };
            (h.to_string(), port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_string(), p.parse().ok()?),
                None => (authority.to_string(), default_port),
            }
        };
        if host.is_empty() {
            return None;
        }
        let host = edgecheck_core::hostname::normalize(&host);
        let path = if path.is_empty() { "/".to_string() } else { path.to_string() };
        let target = if port == default_port {
            format!("{scheme}://{host}{path}")
        } else {
            format!("{scheme}://{host}:{port}{path}")
        };
        Some(TraceTarget { target, scheme, host, port, path })
    }

    /// A TLS scheme.
    pub fn tls(&self) -> bool {
        matches!(self.scheme.as_str(), "https" | "grpcs")
    }

    /// A gRPC scheme.
    pub fn grpc(&self) -> bool {
        matches!(self.scheme.as_str(), "grpc" | "grpcs")
    }
}

/// The part of the picture a node belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Branch {
    /// On the request's way: name, entry, listener, TLS, route, Service, workloads, app.
    Request,
    /// What makes the served certificate: Secret ← Certificate ← Issuer ← Challenge.
    Certificate,
    /// The Argo CD Applications that own the objects on the path.
    Gitops,
    /// ExternalSecret → Secret → pod.
    Secrets,
    /// Objects whose failure explains a node (a failed Job behind a missing Service).
    Cause,
}

impl Branch {
    /// Lowercase name for output.
    pub fn as_str(self) -> &'static str {
        match self {
            Branch::Request => "request",
            Branch::Certificate => "certificate",
            Branch::Gitops => "gitops",
            Branch::Secrets => "secrets",
            Branch::Cause => "cause",
        }
    }
}

/// A node's state, from the findings on it and what was observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeState {
    /// An error-level finding: the path is broken here.
    Error,
    /// Named but not in the inventory.
    Missing,
    /// A warning-level finding.
    Warning,
    /// Nothing wrong found.
    Ok,
    /// Not known (not probed, not reached).
    Unknown,
}

impl NodeState {
    /// Lowercase name for output.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeState::Error => "error",
            NodeState::Missing => "missing",
            NodeState::Warning => "warning",
            NodeState::Ok => "ok",
            NodeState::Unknown => "unknown",
        }
    }

    /// Error or missing.
    pub fn broken(self) -> bool {
        matches!(self, NodeState::Error | NodeState::Missing)
    }
}

/// What a path node stands for. `as_str` is the JSON `role`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Role {
    /// The host name (the root of the tree).
    Name,
    /// The address the name should resolve to.
    Address,
    /// The entry: a Gateway listener, an Ingress and its controller, a Traefik entry point.
    Entry,
    /// The IngressClass or GatewayClass of the entry.
    Class,
    /// The class's parameters (AlbConfig, a GatewayClass parametersRef).
    Parameters,
    /// Where TLS is terminated: the certificate Secret.
    Tls,
    /// The route that claims the host.
    Route,
    /// A backend Service.
    Service,
    /// The Service's EndpointSlices.
    Endpoints,
    /// The pods' owner.
    Workload,
    /// The application behind it all.
    App,
    /// What produces a Secret (a Certificate, an ExternalSecret, a SealedSecret).
    Producer,
    /// A Certificate's Issuer.
    Issuer,
    /// An ACME Challenge.
    Challenge,
    /// A Secret a workload reads.
    Secret,
    /// The Argo CD Application that owns an object.
    Application,
    /// An object off the path whose finding explains a broken node (a failed Job).
    Cause,
}

impl Role {
    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Name => "name",
            Role::Address => "address",
            Role::Entry => "entry",
            Role::Class => "class",
            Role::Parameters => "parameters",
            Role::Tls => "tls",
            Role::Route => "route",
            Role::Service => "service",
            Role::Endpoints => "endpoints",
            Role::Workload => "workload",
            Role::App => "app",
            Role::Producer => "producer",
            Role::Issuer => "issuer",
            Role::Challenge => "challenge",
            Role::Secret => "secret",
            Role::Application => "application",
            Role::Cause => "cause",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One node of the path graph.
#[derive(Debug, Clone, PartialEq)]
pub struct PathNode {
    /// What it is on the path.
    pub role: Role,
    /// One line: `HTTPRoute zitadel/zitadel`, `id.example.com`.
    pub label: String,
    /// The object, when the node is one (present or missing).
    pub object: Option<ObjectRef>,
    /// Its file and line.
    pub file: Option<String>,
    /// Line.
    pub line: Option<u32>,
    /// The layer it stands for.
    pub layer: Layer,
    /// Its branch.
    pub branch: Branch,
    /// The node it hangs under in the tree (`None` for the name, the root of the tree).
    pub parent: Option<usize>,
    /// State.
    pub state: NodeState,
    /// Facts: addresses, the listener's port and protocol, certificate names and dates, health.
    pub detail: Vec<String>,
    /// Findings on this node (indices into the findings).
    pub findings: Vec<usize>,
}

/// One link of the chain from the symptom back to the root cause.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainLink {
    /// The object (for probe findings, the endpoint).
    pub object: ObjectRef,
    /// The node it is on.
    pub node: usize,
    /// What is wrong with it, in a few words (`Degraded`, `missing`, `ResolvedRefs=False BackendNotFound`).
    pub state: String,
    /// The finding that says so.
    pub finding: Option<usize>,
    /// Its layer.
    pub layer: Layer,
}

/// A cause of its own on the path, independent of the root cause: fixing the root cause leaves it broken.
#[derive(Debug, Clone, PartialEq)]
pub struct Cause {
    /// Its root cause: index into the findings.
    pub root_cause: usize,
    /// The node on the request path where it breaks.
    pub breaks_at: usize,
    /// From its symptom back to its root cause.
    pub chain: Vec<ChainLink>,
    /// The findings it explains (on its chain or caused by it), the root cause left out.
    pub explains: Vec<usize>,
}

/// The verdict for a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// An error on the path: it fails for users now.
    Broken,
    /// Only warnings: it works, with a risk named.
    AtRisk,
    /// No object in the inventory claims the host, but a kind that could claim it was not listed (a 403 in a
    /// scan): who serves it is unknown, not absent.
    Unknown,
    /// Nothing wrong found.
    Ok,
    /// No object claims the host (and nothing was observed to tell).
    Unclaimed,
}

impl Verdict {
    /// Lowercase name for output.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Broken => "broken",
            Verdict::AtRisk => "at-risk",
            Verdict::Unknown => "unknown",
            Verdict::Ok => "ok",
            Verdict::Unclaimed => "unclaimed",
        }
    }
}

/// One target's diagnosis.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnosis {
    /// The target.
    pub target: TraceTarget,
    /// The verdict.
    pub verdict: Verdict,
    /// The earliest failing layer on the path.
    pub layer: Option<Layer>,
    /// Whether TLS is passed through to the backend (path order changes: tls after backend).
    pub passthrough: bool,
    /// One line: what is broken and where.
    pub summary: String,
    /// The root cause: index into the findings.
    pub root_cause: Option<usize>,
    /// The node on the request path where it breaks (the earliest failing layer's node).
    pub breaks_at: Option<usize>,
    /// From the symptom back to the root cause.
    pub chain: Vec<ChainLink>,
    /// The path graph; `nodes[0]` is the host name.
    pub nodes: Vec<PathNode>,
    /// Findings explained by the root cause: on the chain's side branches or later layers.
    pub consequences: Vec<usize>,
    /// Independent causes besides the root cause, ranked (severity, then path order), each with its own
    /// chain and the findings it explains.
    pub causes: Vec<Cause>,
    /// Other findings on the path that no cause explains (warnings, infos).
    pub also: Vec<usize>,
    /// How the claim was chosen, and other claims of the same host.
    pub claims: Vec<String>,
    /// The root (a repository linted apart) whose inventory claims the host, when a run has several.
    pub root: Option<String>,
    /// The cluster whose inventory claims the host, when the builds name one (a host of two clusters is
    /// diagnosed in each).
    pub cluster: Option<String>,
}

impl Diagnosis {
    /// Gives back the room the vectors grew into while the path was built: thousands of diagnoses are
    /// held until they are reported.
    pub fn shrink_to_fit(&mut self) {
        self.chain.shrink_to_fit();
        self.nodes.shrink_to_fit();
        for n in &mut self.nodes {
            n.detail.shrink_to_fit();
            n.findings.shrink_to_fit();
        }
        self.consequences.shrink_to_fit();
        self.causes.shrink_to_fit();
        self.also.shrink_to_fit();
        self.claims.shrink_to_fit();
        // Formatted text is written into room that grows by doubling: held for every host, it is given back.
        self.summary.shrink_to_fit();
        self.claims.iter_mut().for_each(String::shrink_to_fit);
        self.target.target.shrink_to_fit();
        self.target.host.shrink_to_fit();
    }

    /// Moves every finding index by `by`: the diagnosis of findings that now follow `by` others in one list
    /// (several repositories reported together).
    pub fn shift_findings(&mut self, by: usize) {
        let shift = |v: &mut Vec<usize>| v.iter_mut().for_each(|i| *i += by);
        self.root_cause = self.root_cause.map(|i| i + by);
        shift(&mut self.consequences);
        shift(&mut self.also);
        for l in &mut self.chain {
            l.finding = l.finding.map(|i| i + by);
        }
        for n in &mut self.nodes {
            shift(&mut n.findings);
        }
        for c in &mut self.causes {
            c.root_cause += by;
            shift(&mut c.explains);
            for l in &mut c.chain {
                l.finding = l.finding.map(|i| i + by);
            }
        }
    }

    /// The fix of the root cause's finding.
    pub fn fix<'f>(&self, findings: &'f [Finding]) -> Option<&'f str> {
        self.root_cause.and_then(|i| findings.get(i)).and_then(|f| f.fix.as_deref())
    }
}

/// What the engine diagnoses after the checks.
#[derive(Debug, Clone, Copy, Default)]
pub enum Diagnose<'t> {
    /// Nothing (`probe`, which reports by endpoint).
    #[default]
    Nothing,
    /// Every host the inventory claims (`lint`, `scan`): broken ones first.
    Hosts,
    /// These targets (`trace`), with the observations of each.
    Targets(&'t [TraceTarget]),
}

/// Diagnoses each target: claims, path, findings and observations on it, root cause.
pub(crate) fn diagnose(
    graph: &Graph,
    model: &Model,
    cx: &PathIndex<'_>,
    findings: &[Finding],
    observations: &[TargetObservation],
    targets: &[TraceTarget],
) -> Vec<Diagnosis> {
    let index = root::FindingIndex::build(findings);
    let inputs = Inputs { graph, model, cx, findings, index: &index };
    // In parallel, in order: `serve` diagnoses every claimed host this way on each evaluation.
    targets
        .par_iter()
        .map(|t| {
            let obs = observations.iter().find(|o| observation_is_for(o, t));
            one_verdict(&inputs, t, &cx.claims.claims(t), obs)
        })
        .collect()
}

/// Diagnoses every host the inventory claims (lint, scan): broken ones first. Hosts with nothing
/// wrong keep their verdict and claims but not their path nodes.
pub(crate) fn diagnose_all(graph: &Graph, model: &Model, cx: &PathIndex<'_>, findings: &[Finding]) -> Vec<Diagnosis> {
    // Each host's claims are worked out once, with the host (and in parallel): they decide where the host is
    // diagnosed and are the doors of its diagnosis. They are dropped with the host's diagnosis made: all of
    // them held at once would be a claim, its lines and its fields for every host of the repository.
    let hosts = cx.claims.claimed_hosts();
    let index = root::FindingIndex::build(findings);
    let inputs = Inputs { graph, model, cx, findings, index: &index };
    // A slot per host, written in place: a filtered parallel collect gathers pieces and copies them into
    // the result, both held at once at the end of the largest phase of a large lint (#17).
    let slots: Vec<Option<Diagnosis>> = hosts
        .par_iter()
        .map(|h| {
            let (t, claims) = cx.claims.host_claimed(h)?;
            let mut d = one_verdict(&inputs, &t, &claims, None);
            if d.verdict == Verdict::Ok {
                // A healthy host is listed, not drawn: its path is what `trace` shows. Dropped, not cleared:
                // a cleared vector keeps its buffer, the path's size for every healthy host.
                d.nodes = Vec::new();
            }
            d.shrink_to_fit();
            Some(d)
        })
        .collect();
    // `filter_map` (not `flatten`) keeps the buffer: the result is the slots' vector, emptied ones closed up.
    #[expect(clippy::filter_map_identity, reason = "flatten collects into a new vector; this reuses the slots'")]
    let mut out: Vec<Diagnosis> = slots.into_iter().filter_map(|d| d).collect();
    // In place: a stable sort borrows room for half the diagnoses, at the end of the largest phase (#17). A
    // host is diagnosed once, so no two keys are equal and the order is the stable sort's.
    out.sort_unstable_by(|a, b| {
        (a.verdict, &a.target.host, a.target.port, &a.target.target).cmp(&(
            b.verdict,
            &b.target.host,
            b.target.port,
            &b.target.target,
        ))
    });
    out
}

/// What every host's diagnosis reads.
#[derive(Clone, Copy)]
struct Inputs<'a> {
    graph: &'a Graph,
    model: &'a Model,
    cx: &'a PathIndex<'a>,
    findings: &'a [Finding],
    index: &'a root::FindingIndex,
}

/// One verdict per host from all who claim it: when claims enter by different doors (an Ingress and an
/// HTTPRoute during a migration), each door's path is diagnosed and the host gets the worst, with every door's
/// verdict in its claims, so a healthy new route does not hide the broken old one (or the other way round).
fn one_verdict(inputs: &Inputs<'_>, t: &TraceTarget, claims: &[Claim], obs: Option<&TargetObservation>) -> Diagnosis {
    let Inputs { graph, model, cx, findings, index } = *inputs;
    let mut doors: Vec<(String, usize)> = Vec::new();
    for (i, c) in claims.iter().enumerate() {
        let d = build::door(graph, c);
        if !doors.iter().any(|(x, _)| *x == d) {
            doors.push((d, i));
        }
    }
    if doors.len() < 2 {
        return root::conclude(graph, findings, index, t, build::build_claim(graph, model, cx, t, obs, claims, 0), obs);
    }
    let mut per_door: Vec<(String, usize, Diagnosis)> = doors
        .into_iter()
        .map(|(door, i)| {
            let path = build::build_claim(graph, model, cx, t, obs, claims, i);
            (door, i, root::conclude(graph, findings, index, t, path, obs))
        })
        .collect();
    let lines: Vec<String> = per_door
        .iter()
        .map(|(door, i, d)| {
            let who = graph.obj(claims[*i].route).to_ref();
            let why =
                d.root_cause.and_then(|r| findings.get(r)).map(|f| format!(" ({})", f.meta.code)).unwrap_or_default();
            format!("via {door}: {who} is {}{why}", d.verdict.as_str())
        })
        .collect();
    per_door.sort_by_key(|(_, i, d)| (d.verdict, *i));
    let (_, _, mut worst) = per_door.swap_remove(0);
    worst.claims.extend(lines);
    worst
}

fn observation_is_for(o: &TargetObservation, t: &TraceTarget) -> bool {
    edgecheck_core::hostname::normalize(&o.host) == t.host && o.port == t.port
}

#[cfg(test)]
mod tests;
