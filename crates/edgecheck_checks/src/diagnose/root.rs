//! Places findings on the path and concludes: node states, the earliest failing layer, the chain
//! from the symptom back to the root cause, and what the root cause explains.

use super::Role;
use std::collections::HashMap;

use edgecheck_core::kind::K;
use edgecheck_core::observation::TargetObservation;
use edgecheck_core::{Finding, Graph, Layer, ObjectRef, Severity};

use super::build::Path;
use super::{Branch, ChainLink, Diagnosis, NodeState, PathNode, TraceTarget, Verdict};

type Key = (String, Option<String>, String);

fn key(r: &ObjectRef) -> Key {
    (r.kind.clone(), r.namespace.clone(), r.name.clone())
}

/// Findings by the object they are about and by the objects they relate.
pub(super) struct FindingIndex {
    by_object: HashMap<Key, Vec<usize>>,
    by_related: HashMap<Key, Vec<usize>>,
}

impl FindingIndex {
    pub fn build(findings: &[Finding]) -> FindingIndex {
        let mut by_object: HashMap<Key, Vec<usize>> = HashMap::new();
        let mut by_related: HashMap<Key, Vec<usize>> = HashMap::new();
        for (i, f) in findings.iter().enumerate() {
            by_object.entry(key(&f.object)).or_default().push(i);
            for r in &f.related {
                if r != &f.object {
                    by_related.entry(key(r)).or_default().push(i);
                }
            }
        }
        FindingIndex { by_object, by_related }
    }
}

const PATH_LAYERS: [Layer; 6] = [Layer::Dns, Layer::Listener, Layer::Tls, Layer::Route, Layer::Backend, Layer::App];

pub(super) fn conclude(
    graph: &Graph,
    findings: &[Finding],
    index: &FindingIndex,
    t: &TraceTarget,
    path: Path,
    obs: Option<&TargetObservation>,
) -> Diagnosis {
    let Path { mut nodes, passthrough, claims, claimed, .. } = path;
    place(graph, findings, index, t, &mut nodes, obs);
    for n in &mut nodes {
        n.state = state_of(n, findings);
    }
    let Some((severity, failing, first)) = earliest_failure(&nodes, findings, passthrough, &|_| true) else {
        return healthy(graph, t, nodes, passthrough, claims, claimed);
    };
    let walk = Walk {
        nodes: &nodes,
        findings,
        passthrough,
        severity,
        layer: findings[first].meta.layer,
        first,
        // A finding on the certificate branch: the path breaks at the request node it hangs under.
        root_node: request_anchor(&nodes, failing),
    };
    let chain = walk.chain();
    let root_cause = chain.last().and_then(|l| l.finding);
    let (consequences, also) = walk.scope(&chain);
    let (causes, also) = other_causes(&nodes, findings, passthrough, also);
    let (layer, root_node) = (walk.layer, walk.root_node);
    let verdict = if severity == Severity::Error { Verdict::Broken } else { Verdict::AtRisk };
    let mut summary = format!(
        "{}: {} at {layer}: {}",
        t.target,
        if verdict == Verdict::Broken { "broken" } else { "at risk" },
        findings[first].message
    );
    if let Some(rc) = root_cause.filter(|&rc| rc != first) {
        summary.push_str(&format!(" — root cause: {}", findings[rc].message));
    }
    Diagnosis {
        target: t.clone(),
        verdict,
        layer: Some(layer),
        passthrough,
        summary,
        root_cause,
        breaks_at: Some(root_node),
        chain,
        nodes,
        consequences,
        causes,
        also,
        claims,
        root: None,
        cluster: None,
    }
}

/// Independent causes among the findings the root cause does not explain: the earliest failure among them,
/// walked back to its own root, then the next, at most five. What is left (warnings and infos no cause
/// explains) stays in `also`.
fn other_causes(
    nodes: &[PathNode],
    findings: &[Finding],
    passthrough: bool,
    also: Vec<usize>,
) -> (Vec<super::Cause>, Vec<usize>) {
    let mut open: Vec<usize> = also;
    let mut causes = Vec::new();
    while causes.len() < 5 {
        let Some((severity, failing, first)) = earliest_failure(nodes, findings, passthrough, &|fi| open.contains(&fi))
        else {
            break;
        };
        let walk = Walk {
            nodes,
            findings,
            passthrough,
            severity,
            layer: findings[first].meta.layer,
            first,
            root_node: request_anchor(nodes, failing),
        };
        let chain = walk.chain();
        let (explains, _) = walk.scope(&chain);
        let on_chain: Vec<usize> = chain.iter().filter_map(|l| l.finding).collect();
        let root_cause = chain.last().and_then(|l| l.finding).unwrap_or(first);
        open.retain(|fi| !on_chain.contains(fi) && !explains.contains(fi) && *fi != first);
        let explains = explains.into_iter().chain(on_chain).filter(|&fi| fi != root_cause).collect::<Vec<_>>();
        let mut explains = explains;
        explains.sort_unstable();
        explains.dedup();
        causes.push(super::Cause { root_cause, breaks_at: walk.root_node, chain, explains });
    }
    (causes, open)
}

/// The earliest failing layer on the path, as (severity, node, finding): errors first, else warnings.
/// Findings on the request path count, and so do those on the certificate branch: what fails to make
/// the served certificate fails the TLS layer of the node it hangs under. At one layer, the request
/// path before the branch, the deeper node first, and at one node what the objects say (why) before what
/// the probe saw (what).
fn earliest_failure(
    nodes: &[PathNode],
    findings: &[Finding],
    passthrough: bool,
    open: &dyn Fn(usize) -> bool,
) -> Option<(Severity, usize, usize)> {
    let mut on_path: Vec<(u8, Severity, usize, usize)> = Vec::new(); // layer rank, severity, node, finding
    for (ni, n) in nodes.iter().enumerate() {
        if !matches!(n.branch, Branch::Request | Branch::Certificate) {
            continue;
        }
        for &fi in &n.findings {
            let f = &findings[fi];
            if PATH_LAYERS.contains(&f.meta.layer) && f.severity != Severity::Info && open(fi) {
                on_path.push((f.meta.layer.path_rank(passthrough), f.severity, ni, fi));
            }
        }
    }
    on_path.sort_by_key(|&(r, s, ni, fi)| {
        (
            s,
            r,
            nodes[ni].branch != Branch::Request,
            std::cmp::Reverse(depth_rank(nodes, ni)),
            reported(&findings[fi], &nodes[ni]),
            findings[fi].object.is_endpoint(),
            fi,
        )
    });
    on_path.first().map(|&(_, s, ni, fi)| (s, ni, fi))
}

/// The diagnosis of a path where nothing fails: ok when something claims the host, else unclaimed.
fn healthy(
    graph: &Graph,
    t: &TraceTarget,
    nodes: Vec<PathNode>,
    passthrough: bool,
    claims: Vec<String>,
    claimed: bool,
) -> Diagnosis {
    // Kinds that claim hosts but could not be listed: an unclaimed host is then unknown, not absent.
    let unlisted: Vec<&str> =
        CLAIMING_KINDS.iter().filter(|k| graph.unchecked_kind(&k.to_kind())).map(|k| k.kind).collect();
    let verdict = match (claimed, unlisted.is_empty()) {
        (true, _) => Verdict::Ok,
        (false, false) => Verdict::Unknown,
        (false, true) => Verdict::Unclaimed,
    };
    let summary = if claimed {
        // No count of the path's nodes: `lint` leaves a healthy host's nodes out.
        format!("{}: no problem found on the path", t.target)
    } else if !unlisted.is_empty() {
        format!(
            "{}: who claims {} is unknown: {} could not be listed (LOD007), and no object that was read claims it",
            t.target,
            t.host,
            unlisted.join(", ")
        )
    } else {
        format!(
            "{}: no Ingress, Gateway API route or Traefik IngressRoute in the inventory claims {}",
            t.target, t.host
        )
    };
    let also = all_findings(&nodes);
    Diagnosis {
        target: t.clone(),
        verdict,
        layer: None,
        passthrough,
        summary,
        root_cause: None,
        breaks_at: None,
        chain: Vec::new(),
        nodes,
        consequences: Vec::new(),
        causes: Vec::new(),
        also,
        claims,
        root: None,
        cluster: None,
    }
}

/// The kinds whose objects claim hosts.
const CLAIMING_KINDS: &[edgecheck_core::kind::K] = &[
    edgecheck_core::kind::K::INGRESS,
    edgecheck_core::kind::K::HTTP_ROUTE,
    edgecheck_core::kind::K::GRPC_ROUTE,
    edgecheck_core::kind::K::TLS_ROUTE,
    edgecheck_core::kind::K::TRAEFIK_INGRESS_ROUTE,
    edgecheck_core::kind::K::TRAEFIK_INGRESS_ROUTE_TCP,
];

/// The walk from the failing node back to what made it fail.
struct Walk<'a> {
    nodes: &'a [PathNode],
    findings: &'a [Finding],
    passthrough: bool,
    /// The severity of the failure (error, or warning when nothing errs).
    severity: Severity,
    /// Its layer.
    layer: Layer,
    /// The finding that fails the earliest layer.
    first: usize,
    /// The request-path node where the path breaks.
    root_node: usize,
}

impl Walk<'_> {
    fn rank(&self, l: Layer) -> u8 {
        l.path_rank(self.passthrough)
    }

    /// The chain, symptom first: what was seen from outside, the Applications reporting it, upstream nodes
    /// showing the same fault, the failing node, then down through the causes to the root. One link per
    /// object: where one object carries several findings, the one that connects it to the chain stays.
    fn chain(&self) -> Vec<ChainLink> {
        let mut chain = Chain { links: Vec::new(), used: Vec::new() };
        let descent = self.descent();
        self.symptoms(&mut chain, &descent);
        self.upstream(&mut chain);
        self.failing_node(&mut chain);
        self.causes(&mut chain, &descent);
        let mut links = chain.links;
        let mut i = 0;
        while i + 1 < links.len() {
            if key(&links[i].object) == key(&links[i + 1].object) && links[i].node == links[i + 1].node {
                let keep_later = links[i + 1].finding == Some(self.first);
                links.remove(if keep_later { i } else { i + 1 });
            } else {
                i += 1;
            }
        }
        links
    }

    /// Symptoms seen from outside: what the probe saw (the outermost first: the reply before the
    /// handshake), then Applications reporting the fault on the path.
    fn symptoms(&self, chain: &mut Chain, descent: &[usize]) {
        let (nodes, findings) = (self.nodes, self.findings);
        let mut seen_outside: Vec<(u8, usize, usize)> = Vec::new();
        for (ni, n) in nodes.iter().enumerate() {
            for &fi in &n.findings {
                let f = &findings[fi];
                if f.object.is_endpoint()
                    && fi != self.first
                    && f.severity <= self.severity
                    && self.rank(f.meta.layer) >= self.rank(self.layer)
                {
                    seen_outside.push((self.rank(f.meta.layer), ni, fi));
                }
            }
        }
        seen_outside.sort_by_key(|&(r, _, fi)| (std::cmp::Reverse(r), fi));
        for (_, ni, fi) in seen_outside {
            if chain.push(self, ni, fi) {
                if let Some(l) = chain.links.last_mut() {
                    l.object = findings[fi].object.clone(); // seen from outside: the endpoint
                }
            }
        }
        // An Application reports the fault when it names the failing node, what made it fail, or an object
        // upstream that shows the same fault (the route whose ResolvedRefs is False).
        let shows_fault = |ni: usize| {
            nodes[ni].branch == Branch::Request
                && nodes[ni]
                    .findings
                    .iter()
                    .any(|&fi| findings[fi].meta.layer == self.layer && findings[fi].severity <= self.severity)
        };
        let broken: Vec<Key> = (0..nodes.len())
            .filter(|ni| descent.contains(ni) || shows_fault(*ni))
            .filter_map(|ni| nodes[ni].object.as_ref())
            .map(key)
            .collect();
        for (ni, n) in nodes.iter().enumerate().filter(|(_, n)| n.branch == Branch::Gitops) {
            for &fi in &n.findings {
                let f = &findings[fi];
                let names_fault = f.related.iter().any(|r| broken.contains(&key(r)));
                if names_fault && f.severity <= self.severity {
                    chain.push(self, ni, fi);
                }
            }
        }
    }

    /// Upstream nodes that show the same fault (a route whose ResolvedRefs is False).
    fn upstream(&self, chain: &mut Chain) {
        let (nodes, findings) = (self.nodes, self.findings);
        let mut upstream: Vec<(usize, usize)> = Vec::new();
        for (ni, n) in nodes.iter().enumerate() {
            if n.branch == Branch::Request
                && ni != self.root_node
                && depth_rank(nodes, ni) < depth_rank(nodes, self.root_node)
            {
                for &fi in &n.findings {
                    if findings[fi].meta.layer == self.layer && findings[fi].severity <= self.severity {
                        upstream.push((ni, fi));
                    }
                }
            }
        }
        upstream.sort_by_key(|&(ni, fi)| (depth_rank(nodes, ni), fi));
        for (ni, fi) in upstream {
            chain.push(self, ni, fi);
        }
    }

    /// The failing node: what other objects report of it (a route's ResolvedRefs=False), then what is
    /// wrong with it (or the node itself, when it is only missing).
    fn failing_node(&self, chain: &mut Chain) {
        let (nodes, findings, root) = (self.nodes, self.findings, self.root_node);
        let mut reports: Vec<usize> = nodes[root]
            .findings
            .iter()
            .copied()
            .filter(|&fi| {
                fi != self.first && findings[fi].meta.layer == self.layer && findings[fi].severity <= self.severity
            })
            .filter(|&fi| reported(&findings[fi], &nodes[root]))
            .collect();
        reports.dedup_by_key(|fi| findings[*fi].object.clone());
        for fi in reports {
            let f = &findings[fi];
            if !in_chain_object(&chain.links, &f.object) {
                chain.links.push(ChainLink {
                    object: f.object.clone(),
                    node: root,
                    state: short_state(&f.message).unwrap_or_else(|| f.meta.name.to_string()),
                    finding: Some(fi),
                    layer: f.meta.layer,
                });
            }
        }
        if nodes[root].findings.contains(&self.first) {
            chain.push(self, root, self.first);
        } else if let Some(o) = nodes[root].object.clone() {
            chain.links.push(ChainLink {
                object: o,
                node: root,
                state: passive_state(&nodes[root]),
                finding: None,
                layer: self.layer,
            });
        }
    }

    /// The failing node, then down through what made it fail (a missing Service ← a failed Job ← its Event).
    fn descent(&self) -> Vec<usize> {
        let mut descent = vec![self.root_node];
        let mut cur = self.root_node;
        while let Some(next) = cause_child(self.nodes, self.findings, cur, self.severity, self.layer) {
            if descent.contains(&next) {
                break;
            }
            descent.push(next);
            cur = next;
        }
        descent
    }

    /// The causes below the failing node, on the chain.
    fn causes(&self, chain: &mut Chain, descent: &[usize]) {
        let (nodes, findings) = (self.nodes, self.findings);
        for &ni in &descent[1..] {
            if !nodes[ni].findings.iter().any(|&fi| findings[fi].severity <= self.severity) {
                if let Some(o) = nodes[ni].object.clone() {
                    let state = passive_state(&nodes[ni]);
                    chain.links.push(ChainLink { object: o, node: ni, state, finding: None, layer: nodes[ni].layer });
                }
                continue;
            }
            let mut fs: Vec<usize> =
                nodes[ni].findings.iter().copied().filter(|&fi| findings[fi].severity <= self.severity).collect();
            // Findings that name what came before on the chain connect to it: they go first.
            let before: Vec<Key> = chain.links.iter().map(|l| key(&l.object)).collect();
            let names_before = |fi: usize| findings[fi].related.iter().any(|r| before.contains(&key(r)));
            fs.sort_by_key(|&fi| {
                (std::cmp::Reverse(findings[fi].severity), !names_before(fi), self.rank(findings[fi].meta.layer), fi)
            });
            for fi in fs {
                chain.push(self, ni, fi);
            }
        }
    }

    /// The other findings on the path, split in two. Consequences of the root cause: on an object of the
    /// chain, naming one (a route's ResolvedRefs=False for the missing Service), or on a cause hanging below
    /// a chain node (the failed Job's Events). Everything else is an independent fault: a later layer of the
    /// request path is not broken *because* an earlier one is, so a certificate that does not cover the host
    /// next to a missing listener is a second cause, ranked by severity and path order.
    fn scope(&self, chain: &[ChainLink]) -> (Vec<usize>, Vec<usize>) {
        let (nodes, findings) = (self.nodes, self.findings);
        let chain_nodes: Vec<usize> = chain.iter().map(|l| l.node).collect();
        let mut consequences = Vec::new();
        let mut also = Vec::new();
        let mut seen: Vec<usize> = chain.iter().filter_map(|l| l.finding).collect();
        for (ni, n) in nodes.iter().enumerate() {
            for &fi in &n.findings {
                if seen.contains(&fi) {
                    continue;
                }
                seen.push(fi);
                let f = &findings[fi];
                // Another report of a chain link's fault: the same object at the same layer.
                let on_chain = chain.iter().any(|l| key(&l.object) == key(&f.object) && l.layer == f.meta.layer);
                // A report of the chain's fault from an object that depends on it: the route whose
                // ResolvedRefs is False for the missing Service names it at the Service's layer; an
                // Application or a Secret's delivery naming a chain object is degraded by it. A finding of
                // another path layer that merely names a chain object (context) is its own fault.
                let off_path = !PATH_LAYERS.contains(&f.meta.layer);
                let names = f
                    .related
                    .iter()
                    .any(|r| chain.iter().any(|l| key(&l.object) == key(r) && (off_path || l.layer == f.meta.layer)));
                // A cause hanging under a chain node (its nearest node on the request path is on the chain).
                let cause_below = n.branch == Branch::Cause && chain_nodes.contains(&request_anchor(nodes, ni));
                if on_chain || names || cause_below {
                    consequences.push(fi);
                } else {
                    also.push(fi);
                }
            }
        }
        also.sort_by_key(|&fi| (findings[fi].severity, self.rank(findings[fi].meta.layer), fi));
        (consequences, also)
    }
}

/// The chain being built: its links and the findings already on it.
struct Chain {
    links: Vec<ChainLink>,
    used: Vec<usize>,
}

impl Chain {
    /// Adds finding `fi` at node `ni`, once; true when it was added.
    fn push(&mut self, w: &Walk<'_>, ni: usize, fi: usize) -> bool {
        if self.used.contains(&fi) {
            return false;
        }
        self.used.push(fi);
        self.links.push(link(&w.nodes[ni], ni, &w.findings[fi], fi));
        true
    }
}

/// A finding that another object reports about this node (a condition on the referrer), rather
/// than the node's own fault.
fn reported(f: &Finding, n: &PathNode) -> bool {
    n.object.as_ref().is_none_or(|o| key(o) != key(&f.object))
        && short_state(&f.message).is_some_and(|s| s.contains('='))
}

fn in_chain_object(chain: &[ChainLink], o: &ObjectRef) -> bool {
    chain.iter().any(|l| key(&l.object) == key(o))
}

fn all_findings(nodes: &[PathNode]) -> Vec<usize> {
    let mut v: Vec<usize> = nodes.iter().flat_map(|n| n.findings.iter().copied()).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Depth of a node on the request path: its distance from the name (the tree is built in path order).
fn depth_rank(nodes: &[PathNode], ni: usize) -> usize {
    let mut d = 0;
    let mut cur = ni;
    while let Some(p) = nodes[cur].parent {
        d += 1;
        cur = p;
        if d > nodes.len() {
            break;
        }
    }
    d
}

/// The child that explains `ni`: a producer or cause hanging under it with a finding at least as
/// severe, first in order; else a child on the path that is not in the inventory and whose own
/// cause explains it (a Service nobody reports missing, behind it the Job that failed to make it).
fn cause_child(nodes: &[PathNode], findings: &[Finding], ni: usize, severity: Severity, layer: Layer) -> Option<usize> {
    let explicit = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| {
            n.parent == Some(ni) && matches!(n.branch, Branch::Cause | Branch::Certificate | Branch::Secrets)
        })
        .filter(|(_, n)| n.findings.iter().any(|&fi| findings[fi].severity <= severity))
        .min_by_key(|(ci, n)| (n.branch != Branch::Cause, *ci))
        .map(|(ci, _)| ci);
    explicit.or_else(|| {
        nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                n.parent == Some(ni) && n.branch == Branch::Request && n.layer == layer && not_in_inventory(n)
            })
            .find(|(ci, _)| cause_child(nodes, findings, *ci, severity, layer).is_some())
            .map(|(ci, _)| ci)
    })
}

fn not_in_inventory(n: &PathNode) -> bool {
    n.label.ends_with("(not in the inventory)")
}

/// The state of a node on the chain that carries no finding of its own.
fn passive_state(n: &PathNode) -> String {
    if not_in_inventory(n) {
        "not in the inventory".into()
    } else {
        n.state.as_str().into()
    }
}

/// The nearest node on the request path at or above `ni`.
fn request_anchor(nodes: &[PathNode], ni: usize) -> usize {
    let mut cur = ni;
    for _ in 0..nodes.len() {
        if nodes[cur].branch == Branch::Request {
            return cur;
        }
        match nodes[cur].parent {
            Some(p) => cur = p,
            None => break,
        }
    }
    ni
}

/// Places each finding on one node: a node (of its object, then of an object it relates) whose
/// layer is the finding's, else the node of its object, else a node it relates — a finding about an
/// object off the path that names one on it becomes a cause node under that one, and the cause
/// node's own findings follow. Probe findings go to the node of their layer.
fn place(
    graph: &Graph,
    findings: &[Finding],
    index: &FindingIndex,
    t: &TraceTarget,
    nodes: &mut Vec<PathNode>,
    obs: Option<&TargetObservation>,
) {
    let mut placed: HashMap<usize, usize> = HashMap::new();
    let mut from = 0;
    for _round in 0..4 {
        let count = nodes.len();
        if from >= count {
            break;
        }
        let mut candidates: HashMap<usize, Vec<(usize, bool)>> = HashMap::new(); // finding -> (node, direct)
                                                                                 // New nodes first: their findings, then where else those findings could go.
        for ni in (from..count).chain(0..from) {
            let Some(r) = nodes[ni].object.clone() else { continue };
            let k = key(&r);
            let fresh = ni >= from;
            for &fi in index.by_object.get(&k).into_iter().flatten() {
                if fresh || candidates.contains_key(&fi) {
                    candidates.entry(fi).or_default().push((ni, true));
                }
            }
            for &fi in index.by_related.get(&k).into_iter().flatten() {
                if fresh || candidates.contains_key(&fi) {
                    candidates.entry(fi).or_default().push((ni, false));
                }
            }
        }
        from = count;
        let mut deferred: Vec<(usize, usize)> = Vec::new();
        let mut order: Vec<usize> = candidates
            .keys()
            .copied()
            .filter(|fi| {
                !placed.contains_key(fi)
                    && on_this_path(&findings[*fi], t)
                    && !about_another_parent(&findings[*fi], nodes)
            })
            .collect();
        order.sort_unstable();
        for fi in order {
            let cands = &candidates[&fi];
            let f = &findings[fi];
            let same_layer = |c: &&(usize, bool)| nodes[c.0].layer == f.meta.layer;
            // A node it relates takes it only when its own object is on the path too (a route's
            // finding about its missing Service); a finding about an object off the path makes
            // that object a cause node.
            // A probe finding is about the endpoint: the objects it names are where it belongs.
            let on_path = cands.iter().any(|c| c.1) || f.object.is_endpoint();
            let pick = cands
                .iter()
                .filter(|c| c.1)
                .find(same_layer)
                .or_else(|| cands.iter().filter(|c| !c.1 && on_path).find(same_layer))
                .or_else(|| cands.iter().find(|c| c.1))
                .map(|c| c.0);
            match pick {
                Some(ni) => {
                    placed.insert(fi, ni);
                }
                None if !f.object.is_endpoint() && f.severity != Severity::Info => {
                    deferred.push((fi, cands.iter().find(same_layer).unwrap_or(&cands[0]).0));
                }
                None => {}
            }
        }
        // Causes hang only under nodes that are broken or absent: a finding about some other
        // object that merely names a healthy node on the path is not about this path.
        for (fi, anchor) in deferred {
            let broken = not_in_inventory(&nodes[anchor])
                || placed.iter().any(|(&pf, &pn)| pn == anchor && findings[pf].severity != Severity::Info);
            if broken {
                let f = &findings[fi];
                let ni = cause_node(graph, nodes, anchor, &f.object, f.meta.layer);
                placed.insert(fi, ni);
            }
        }
    }
    // Probe findings about this target.
    if let Some(o) = obs {
        let names = [o.url.as_str(), o.target.as_str()];
        for (fi, f) in findings.iter().enumerate() {
            if !f.object.is_endpoint() || !names.contains(&f.object.name.as_str()) || placed.contains_key(&fi) {
                continue;
            }
            let role = match f.meta.layer {
                Layer::Dns => Role::Name,
                Layer::Listener => Role::Entry,
                Layer::Tls => Role::Tls,
                Layer::Route => Role::Route,
                Layer::Backend => Role::Service,
                _ => Role::App,
            };
            let ni = nodes
                .iter()
                .position(|n| n.branch == Branch::Request && n.role == role)
                .or_else(|| nodes.iter().position(|n| n.role == Role::App))
                .unwrap_or(0);
            placed.insert(fi, ni);
        }
    }
    let mut pairs: Vec<(usize, usize)> = placed.into_iter().map(|(fi, ni)| (ni, fi)).collect();
    pairs.sort_unstable();
    for (ni, fi) in pairs {
        nodes[ni].findings.push(fi);
    }
    for n in nodes.iter_mut() {
        n.findings.sort_by_key(|&fi| (findings[fi].severity, fi));
    }
}

/// Whether a finding can be on the path of `t` at all: a finding about another port of the entry (a missing
/// HTTPS listener, for `http://…:80`) is not, and neither is a TLS finding where TLS is not spoken.
/// A route's finding about one of its parentRefs (it relates that Gateway or ListenerSet) is not
/// about a request that reaches the route through another parent: a route attached to Gateway `a`
/// and rejected by Gateway `b` serves its hosts through `a`.
fn about_another_parent(f: &Finding, nodes: &[PathNode]) -> bool {
    let is_parent = |r: &ObjectRef| {
        [K::GATEWAY, K::LISTENER_SET, K::LISTENER_SET_STD].iter().any(|k| r.group_kind() == k.to_kind())
    };
    let route = ["HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"].contains(&f.object.kind.as_str());
    let parents: Vec<&ObjectRef> = f.related.iter().filter(|r| is_parent(r)).collect();
    if !route || parents.is_empty() {
        return false;
    }
    let on_path: Vec<&ObjectRef> = nodes
        .iter()
        .filter(|n| n.branch == Branch::Request)
        .filter_map(|n| n.object.as_ref())
        .filter(|r| is_parent(r))
        .collect();
    !on_path.is_empty() && !parents.iter().any(|p| on_path.contains(p))
}

fn on_this_path(f: &Finding, t: &TraceTarget) -> bool {
    f.port.is_none_or(|p| p == t.port)
        && (t.tls() || f.meta.layer != Layer::Tls)
        && (f.hosts.is_empty()
            || f.hosts.iter().any(|h| {
                let h = edgecheck_core::hostname::normalize(h);
                h == t.host || edgecheck_core::hostname::cert_name_covers(&h, &t.host)
            }))
}

fn cause_node(graph: &Graph, nodes: &mut Vec<PathNode>, anchor: usize, object: &ObjectRef, layer: Layer) -> usize {
    if let Some(i) = nodes.iter().position(|n| n.object.as_ref() == Some(object) && n.parent == Some(anchor)) {
        return i;
    }
    let found =
        graph.find_kind(&object.group_kind(), object.namespace.as_deref(), &object.name).map(|id| graph.obj(id));
    let label = match &object.namespace {
        Some(ns) => format!("{} {ns}/{}", object.kind, object.name),
        None => format!("{} {}", object.kind, object.name),
    };
    nodes.push(PathNode {
        role: Role::Cause,
        label,
        object: Some(object.clone()),
        file: found.and_then(|o| o.source.file().map(str::to_string)),
        line: found.and_then(|o| o.source.line()),
        layer,
        branch: if object.kind == "Application" { Branch::Gitops } else { Branch::Cause },
        parent: Some(anchor),
        state: NodeState::Ok,
        detail: Vec::new(),
        findings: Vec::new(),
    });
    nodes.len() - 1
}

fn state_of(n: &PathNode, findings: &[Finding]) -> NodeState {
    let worst = n.findings.iter().map(|&fi| findings[fi].severity).min();
    let missing = not_in_inventory(n);
    match worst {
        Some(Severity::Error) if missing => NodeState::Missing,
        Some(Severity::Error) => NodeState::Error,
        Some(Severity::Warning) => NodeState::Warning,
        _ if n.state == NodeState::Unknown => NodeState::Unknown,
        _ => NodeState::Ok,
    }
}

fn link(n: &PathNode, ni: usize, f: &Finding, fi: usize) -> ChainLink {
    // A finding drawn from an Event names the Event: the chain shows it as the Event.
    // A probe finding is about the endpoint, unless it names the node's object (a join of what
    // was seen with the object that explains it).
    let endpoint =
        f.object.is_endpoint() && !n.object.as_ref().is_some_and(|o| f.related.iter().any(|r| key(r) == key(o)));
    let object = f
        .related
        .iter()
        .find(|r| r.kind == "Event" && f.meta.layer != Layer::Backend)
        .cloned()
        .or_else(|| if endpoint { Some(f.object.clone()) } else { n.object.clone() })
        .unwrap_or_else(|| f.object.clone());
    let event_message = f.evidence.iter().find_map(|e| e.strip_prefix("message: ")).map(|m| {
        let m = m.strip_prefix("Back-off restarting failed container").map_or(m, |r| r.trim_start_matches([':', ' ']));
        let m = m.split_once(" in pod ").map_or(m, |(a, _)| a);
        format!("\"{m}\"")
    });
    let state = if f.object.is_endpoint() {
        f.message.clone()
    } else if n.state == NodeState::Missing && object.kind != "Event" {
        "missing".to_string()
    } else if let Some(m) = event_message.filter(|_| object.kind == "Event") {
        m
    } else {
        short_state(&f.message).unwrap_or_else(|| f.meta.name.to_string())
    };
    ChainLink { object, node: ni, state, finding: Some(fi), layer: f.meta.layer }
}

/// `ResolvedRefs=False BackendNotFound`, `Degraded`, `failed (BackoffLimitExceeded)`, or a quoted
/// controller message, when the message carries one.
fn short_state(message: &str) -> Option<String> {
    // Compiled once: the diagnosis asks this of every finding on every path (compiling it per call was an
    // eighth of a large lint's time).
    static CONDITION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\b([A-Z][A-Za-z]+)=(False|True|Unknown) ([A-Z][A-Za-z]+)").expect("a valid pattern")
    });
    if let Some(c) = CONDITION.captures(message) {
        return Some(format!("{}={} {}", &c[1], &c[2], &c[3]));
    }
    for h in ["Degraded", "Missing", "OutOfSync", "Progressing", "Suspended"] {
        if message.contains(&format!(" is {h}")) {
            return Some(h.to_string());
        }
    }
    if let Some(i) = message.find(" failed") {
        let rest = &message[i + 1..];
        let end = rest.find([';', ':']).unwrap_or(rest.len()).min(60);
        return Some(rest[..end].trim_end_matches([',', '.']).to_string());
    }
    let q = message.find('"').and_then(|a| message[a + 1..].find('"').map(|b| &message[a + 1..a + 1 + b]));
    q.map(|s| format!("\"{s}\""))
}

#[cfg(test)]
mod tests {
    use super::short_state;

    #[test]
    fn short_states() {
        assert_eq!(
            short_state("HTTPRoute `a/b` parentRef `public`: ResolvedRefs=False BackendNotFound: Service").as_deref(),
            Some("ResolvedRefs=False BackendNotFound")
        );
        assert_eq!(short_state("Application `argocd/gateway` is Degraded because of").as_deref(), Some("Degraded"));
        assert_eq!(
            short_state("Job `zitadel/zitadel-setup` failed (BackoffLimitExceeded); what").as_deref(),
            Some("failed (BackoffLimitExceeded)")
        );
        assert_eq!(short_state("nothing here"), None);
    }
}
