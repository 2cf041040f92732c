use edgecheck_core::hostname::{malformed, not_lower_case};
use edgecheck_core::views::{Certificate, Gateway, Ingress, Route, Service, TraefikRoute};
use edgecheck_core::{Findings, Layer, Object, Severity};

use crate::framework::{declare_check, CheckContext};

declare_check! {
    /// ## What it checks
    /// Host names that are not DNS names: a port glued on (`shop.example.com:443`, or
    /// `argocd-server.argocd.svc.cluster.local443` with the colon lost), a URL scheme, a path, an empty
    /// label, a character DNS names cannot hold, a label that starts or ends with a hyphen or is over 63
    /// characters, a name over 253; and, in the fields the API server validates as RFC 1123 names
    /// (Ingress hosts, Gateway API hostnames, `externalName`), upper-case letters. Placeholders a later
    /// step substitutes (`${VAR}`, `{{ .Values.host }}`, `{HOST}`, `__HOST__`) are not judged. It reads Ingress `rules[].host` and `tls[].hosts`,
    /// Gateway listener `hostname`, route `hostnames` (HTTPRoute, GRPCRoute, TLSRoute), cert-manager
    /// Certificate `dnsNames`, Traefik `Host()`/`HostSNI()`/`HostHeader()` rules, Service
    /// `externalName` and Argo CD's `url` in ConfigMap `argocd-cm`.
    ///
    /// ## Why it matters
    /// Nothing resolves such a name. A route or Ingress rule with it matches no request (clients send
    /// `Host: shop.example.com`, never with `:443` glued to it in the rule's sense), a Certificate with it
    /// is refused by the CA, an ExternalName Service points at a name no resolver answers, and Argo CD
    /// builds broken SSO callback and notification links from a bad `url`. The API server refuses an
    /// Ingress, Gateway, route or Service whose host is not a lower-case RFC 1123 name, so the object
    /// never reaches the cluster. The fault sits at the very start of the path: DNS.
    ///
    /// ## Example
    /// ```yaml
    /// kind: Ingress
    /// spec:
    ///   rules:
    ///     - host: shop.example.com:443
    /// ```
    ///
    /// ## How to fix
    /// Write the bare host name in lower case (`shop.example.com`); ports belong in the Service, listener
    /// or entry point, schemes and paths in the URL fields that take them.
    pub(crate) struct HostnameMalformed {
        code: "DNS001", name: "hostname-malformed", layer: Layer::Dns, severity: Severity::Error,
    }
}

impl HostnameMalformed {
    fn run(&self, cx: &CheckContext<'_>, out: &mut Findings<'_>) {
        // `validated`: a field the API server checks as a lower-case RFC 1123 name.
        let mut report = |obj: &Object, path: String, host: &str, what: &str, validated: bool| {
            let (why, fix) = if let Some(why) = malformed(host) {
                (format!("{why}; no DNS name can match it"), "write the bare host name, without port, scheme or path")
            } else if let Some(why) = not_lower_case(host).filter(|_| validated) {
                (format!("{why}; the object is rejected"), "write the host name in lower case")
            } else {
                return;
            };
            out.at(obj, &path)
                .message(format!("{} {what} {why}", obj.to_ref()))
                .evidence(format!("{path}: {host}"))
                .hosts([host])
                .fix(fix)
                .emit();
        };
        for (_, o, ing) in cx.graph.each::<Ingress>() {
            for (i, r) in ing.spec.rules.iter().enumerate() {
                if let Some(h) = &r.host {
                    report(o, format!("spec.rules[{i}].host"), h, "rule host", true);
                }
            }
            for (i, t) in ing.spec.tls.iter().enumerate() {
                for (j, h) in t.hosts.iter().enumerate() {
                    report(o, format!("spec.tls[{i}].hosts[{j}]"), h, "tls host", true);
                }
            }
        }
        for (_, o, gw) in cx.graph.each::<Gateway>() {
            for (i, l) in gw.spec.listeners.iter().enumerate() {
                if let Some(h) = &l.hostname {
                    report(
                        o,
                        format!("spec.listeners[{i}].hostname"),
                        h,
                        &format!("listener `{}` hostname", l.name),
                        true,
                    );
                }
            }
        }
        for (_, o, r) in cx.graph.each::<Route>() {
            for (i, h) in r.spec.hostnames.iter().enumerate() {
                report(o, format!("spec.hostnames[{i}]"), h, "hostname", true);
            }
        }
        for (_, o, c) in cx.graph.each::<Certificate>() {
            for (i, h) in c.spec.dns_names.iter().enumerate() {
                report(o, format!("spec.dnsNames[{i}]"), h, "dnsName", false);
            }
        }
        for (_, o, s) in cx.graph.each::<Service>() {
            if s.spec.kind() == "ExternalName" {
                if let Some(h) = &s.spec.external_name {
                    report(o, "spec.externalName".into(), h, "externalName", true);
                }
            }
        }
        for (_, o, tr) in cx.graph.each::<TraefikRoute>() {
            for (i, r) in tr.spec.routes.iter().enumerate() {
                for h in traefik_hosts(&r.rule) {
                    if h != "*" {
                        report(o, format!("spec.routes[{i}].match"), &h, "rule host", false);
                    }
                }
            }
        }
        for (_, o, _) in cx.graph.each::<edgecheck_core::views::ConfigMap>() {
            if o.name != "argocd-cm" {
                continue;
            }
            if let Some(url) = edgecheck_core::views::ConfigMap::get(o, "url") {
                let rest = url.trim().strip_prefix("https://").or_else(|| url.trim().strip_prefix("http://"));
                let Some(rest) = rest else { continue };
                let authority = rest.split('/').next().unwrap_or("");
                // A `:port` is legal in a URL; what is left must be a host name.
                let host = match authority.rsplit_once(':') {
                    Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => h,
                    _ => authority,
                };
                report(o, "data.url".into(), host, "url host", false);
            }
        }
    }
}

/// The host arguments of Traefik `Host()`, `HostSNI()` and `HostHeader()` matchers (v2 lists and v3
/// single arguments, backtick or double-quoted).
pub(crate) fn traefik_hosts(rule: &str) -> Vec<String> {
    let mut out = Vec::new();
    for m in ["HostSNI(", "HostHeader(", "Host("] {
        let mut rest = rule;
        while let Some(i) = rest.find(m) {
            // `Host(` also matches inside `HostSNI(`/`HostHeader(`/`HostRegexp(`? Only when preceded by
            // a non-identifier character.
            let before = rest[..i].chars().last();
            let after = &rest[i + m.len()..];
            rest = after;
            if before.is_some_and(|c| c.is_ascii_alphanumeric()) {
                continue;
            }
            let args = after.split(')').next().unwrap_or("");
            for a in args.split(',') {
                let a = a.trim().trim_matches(|c| c == '`' || c == '"');
                if !a.is_empty() {
                    out.push(a.to_string());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::traefik_hosts;

    #[test]
    fn traefik_rules_yield_their_hosts() {
        assert_eq!(traefik_hosts("Host(`a.com`) && PathPrefix(`/x`)"), vec!["a.com"]);
        assert_eq!(traefik_hosts("Host(`a.com`, `b.com:443`)"), vec!["a.com", "b.com:443"]);
        assert_eq!(traefik_hosts("HostSNI(`*`)"), vec!["*"]);
        assert_eq!(traefik_hosts("HostRegexp(`^.+$`)"), Vec::<String>::new());
    }
}
