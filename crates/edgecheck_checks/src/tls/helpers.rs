//! What the tls checks share: the Secrets routes and listeners serve, and the hosts they serve them for.

use edgecheck_core::ValueRef;
use edgecheck_core::{views, Edge, EdgeKind, Graph, ObjId, Object, Target};

/// One reference from an Ingress / Gateway listener / IngressRoute to a TLS Secret, with the hosts it
/// is served for (empty when the reference names none: a listener without hostname).
pub(super) struct Served<'g> {
    /// The reference.
    pub edge: &'g Edge,
    /// The referring object.
    pub from: &'g Object,
    /// The hosts the certificate is presented for.
    pub hosts: Vec<String>,
}

/// Every TLS Secret reference, in graph order.
pub(super) fn served(graph: &Graph) -> Vec<Served<'_>> {
    let mut out = Vec::new();
    for e in graph.edges().iter().filter(|e| e.kind == EdgeKind::TlsSecret) {
        let from = graph.obj(e.from);
        out.push(Served { edge: e, from, hosts: hosts_of(graph, e) });
    }
    out
}

/// The references to the Secret `id` (from the Secret's incoming edges: no scan of all references).
pub(super) fn served_from(graph: &Graph, id: ObjId) -> Vec<Served<'_>> {
    graph
        .edges_to_kind(id, EdgeKind::TlsSecret)
        .map(|e| Served { edge: e, from: graph.obj(e.from), hosts: hosts_of(graph, e) })
        .collect()
}

/// References indexed by the hosts they serve, for lookups by certificate name: exact hosts, hosts by
/// their parent domain (what a `*.parent` name covers), and references served for wildcard hosts.
pub(super) struct ServedByHost<'a, 'g> {
    exact: std::collections::HashMap<String, Vec<&'a Served<'g>>>,
    by_parent: std::collections::HashMap<String, Vec<&'a Served<'g>>>,
    wildcard: Vec<&'a Served<'g>>,
}

impl<'a, 'g> ServedByHost<'a, 'g> {
    /// Indexes `served`.
    pub(super) fn new(served: &'a [Served<'g>]) -> Self {
        let mut idx = ServedByHost { exact: Default::default(), by_parent: Default::default(), wildcard: Vec::new() };
        for s in served {
            for h in &s.hosts {
                let h = edgecheck_core::hostname::normalize(h);
                if h.starts_with("*.") {
                    idx.wildcard.push(s);
                    continue;
                }
                // What `*.parent` covers: one label, not empty, below it.
                if let Some((_, parent)) = h.split_once('.').filter(|(first, _)| !first.is_empty()) {
                    idx.by_parent.entry(parent.to_string()).or_default().push(s);
                }
                idx.exact.entry(h).or_default().push(s);
            }
        }
        idx
    }

    /// References that serve a host one of `names` covers ([`super::cert_dns_names_uncovered::names_cover`]),
    /// each once, found through the index: a name's exact host, the hosts one label below a wildcard name,
    /// and wildcard hosts a name equals. Checking every candidate's hosts instead was quadratic when one
    /// reference serves them all (a Gateway listener's certificate, for every route attached to it).
    pub(super) fn covering(&self, names: &[impl AsRef<str>]) -> Vec<&'a Served<'g>> {
        let names: Vec<String> = names.iter().map(|n| edgecheck_core::hostname::normalize(n.as_ref())).collect();
        let mut out: Vec<&'a Served<'g>> = Vec::new();
        let mut seen: std::collections::HashSet<*const Served<'g>> = std::collections::HashSet::new();
        let mut push = |s: &'a Served<'g>| {
            if seen.insert(std::ptr::from_ref(s)) {
                out.push(s);
            }
        };
        for n in &names {
            let found = match n.strip_prefix("*.") {
                Some(parent) => self.by_parent.get(parent),
                None => self.exact.get(n),
            };
            found.into_iter().flatten().for_each(|s| push(s));
        }
        for s in &self.wildcard {
            if s.hosts.iter().any(|h| h.starts_with("*.") && names.contains(&edgecheck_core::hostname::normalize(h))) {
                push(s);
            }
        }
        out
    }
}

/// Each served Secret once (in order of first reference), with the references to it.
pub(super) fn served_secrets(graph: &Graph) -> Vec<(ObjId, Vec<Served<'_>>)> {
    let mut out: Vec<(ObjId, Vec<Served<'_>>)> = Vec::new();
    let mut at: std::collections::HashMap<ObjId, usize> = std::collections::HashMap::new();
    for s in served(graph) {
        let Target::Found(id) = s.edge.to else { continue };
        match at.get(&id) {
            Some(i) => out[*i].1.push(s),
            None => {
                at.insert(id, out.len());
                out.push((id, vec![s]));
            }
        }
    }
    out
}

/// The field path of a Secret key, under `data` or `stringData` (where it is written).
pub(super) fn secret_key_path(secret: &Object, key: &str) -> String {
    let data = format!("data[\"{key}\"]");
    if secret.field_line(&data).is_some() {
        return data;
    }
    let string_data = format!("stringData[\"{key}\"]");
    if secret.field_line(&string_data).is_some() {
        return string_data;
    }
    data
}

fn hosts_of(graph: &Graph, e: &Edge) -> Vec<String> {
    if let Some(ing) = graph.view::<views::Ingress>(e.from) {
        let i = e
            .field
            .strip_prefix("spec.tls[")
            .and_then(|r| r.split_once(']'))
            .and_then(|(n, _)| n.parse::<usize>().ok());
        return i
            .and_then(|i| ing.spec.tls.get(i))
            .map(|t| t.hosts.iter().map(|h| h.to_string()).collect())
            .unwrap_or_default();
    }
    if let Some(gw) = graph.view::<views::Gateway>(e.from) {
        return gw
            .spec
            .listeners
            .iter()
            .filter(|l| e.section() == Some(l.name.as_str()))
            .filter_map(|l| l.hostname.as_deref().map(str::to_string))
            .collect();
    }
    if let Some(r) = graph.view::<views::TraefikRoute>(e.from) {
        let mut hosts = Vec::new();
        for rule in &r.spec.routes {
            for h in rule_hosts(&rule.rule) {
                if !hosts.contains(&h) {
                    hosts.push(h);
                }
            }
        }
        return hosts;
    }
    Vec::new()
}

/// Host names in a Traefik rule: the arguments of `Host(...)` and `HostSNI(...)` (v2 lists, v3 single),
/// in backquotes or double quotes. `HostRegexp` and `HostSNI(`*`)` name no host to check. A rule that
/// does not parse (Traefik refuses the router) still gets its hosts by a plain scan, so its certificate
/// is checked all the same.
pub(super) fn rule_hosts(rule: &str) -> Vec<String> {
    match edgecheck_core::traefik_rule::parse(rule) {
        Ok(expr) => expr.hosts(),
        Err(_) => scan_hosts(rule),
    }
}

/// The arguments of `Host(` / `HostSNI(` found by scanning the text.
fn scan_hosts(rule: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = rule;
    while let Some(i) = rest.find("Host") {
        let after = &rest[i + 4..];
        let args = after.strip_prefix("SNI(").or_else(|| after.strip_prefix('('));
        rest = after;
        let Some(args) = args else { continue };
        let Some(end) = args.find(')') else { break };
        for part in args[..end].split(',') {
            let h = part.trim().trim_matches(|c| c == '`' || c == '"' || c == '\'');
            if !h.is_empty() && h != "*" {
                out.push(h.to_string());
            }
        }
    }
    out
}

/// Secrets controllers serve as their default certificate, as `(namespace, name)`: ingress-nginx's
/// `--default-ssl-certificate=ns/name` in a workload's args, or `default-ssl-certificate: ns/name` in chart
/// values (a HelmRelease's `spec.values`, an Argo CD source's `helm.valuesObject` or `helm.values`), and the
/// `defaultCertificate` of Traefik's `default` TLSStore.
pub(super) fn default_certificates(graph: &Graph) -> std::collections::HashSet<(String, String)> {
    fn pair(s: &str) -> Option<(String, String)> {
        let (ns, name) = s.trim().trim_matches('"').split_once('/')?;
        (!ns.is_empty() && !name.is_empty() && !name.contains('/')).then(|| (ns.to_string(), name.to_string()))
    }
    fn walk(v: ValueRef<'_>, out: &mut std::collections::HashSet<(String, String)>) {
        if let Some(m) = v.as_object() {
            for (k, x) in m {
                if k == "default-ssl-certificate" {
                    out.extend(x.as_str().and_then(pair));
                }
                walk(x, out);
            }
        } else if let Some(a) = v.as_array() {
            for (i, x) in a.iter().enumerate() {
                match x.as_str() {
                    Some(s) if s.starts_with("--default-ssl-certificate=") => {
                        out.extend(pair(&s["--default-ssl-certificate=".len()..]));
                    }
                    Some("--default-ssl-certificate") => {
                        out.extend(a.get(i + 1).and_then(ValueRef::as_str).and_then(pair))
                    }
                    _ => walk(x, out),
                }
            }
        } else if let Some(s) = v.as_str().filter(|s| s.contains("default-ssl-certificate")) {
            // Argo CD's `helm.values` is YAML text: the value after the key on its line.
            for line in s.lines() {
                if let Some((_, rest)) = line.split_once("default-ssl-certificate") {
                    out.extend(pair(rest.trim_start_matches(['"', '\'', ':', '=', ' '])));
                }
            }
        }
    }
    let mut out = std::collections::HashSet::new();
    for (_, o) in graph.iter() {
        match o.kind.kind.as_str() {
            "Deployment" | "DaemonSet" | "StatefulSet" | "HelmRelease" | "Application" => {
                walk(o.value.root(), &mut out)
            }
            "TLSStore" if o.name == "default" => {
                if let (Some(ns), Some(name)) =
                    (&o.namespace, o.value.pointer("/spec/defaultCertificate/secretName").and_then(ValueRef::as_str))
                {
                    out.insert((ns.to_string(), name.to_string()));
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::rule_hosts;

    #[test]
    fn traefik_rule_hosts() {
        assert_eq!(rule_hosts("Host(`a.example.com`) && PathPrefix(`/`)"), vec!["a.example.com"]);
        assert_eq!(rule_hosts("Host(`a.com`, `b.com`) || HostSNI(`c.com`)"), vec!["a.com", "b.com", "c.com"]);
        assert!(rule_hosts("HostRegexp(`{sub:[a-z]+}.a.com`)").is_empty());
        assert!(rule_hosts("HostSNI(`*`)").is_empty());
        // Parsed, not scanned: a HostRegexp's text and a Header value are no host names.
        assert_eq!(rule_hosts("HostRegexp(`^Host(x)$`) || Host(\"d.com\") && Header(`Host(`, `e`)"), vec!["d.com"]);
        // Malformed: scanned.
        assert_eq!(rule_hosts("Host(`f.com`) &&"), vec!["f.com"]);
    }
}
