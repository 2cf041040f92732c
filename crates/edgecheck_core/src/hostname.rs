//! Host name rules: certificate name matching (RFC 6125) and Gateway API hostname intersection.

/// Lowercases and strips one trailing dot.
pub fn normalize(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

/// True when a certificate name (a DNS SAN, or a CN) covers `host`. A wildcard stands for exactly
/// one leftmost label: `*.a.com` covers `x.a.com`, not `a.com` nor `x.y.a.com`.
pub fn cert_name_covers(pattern: &str, host: &str) -> bool {
    let p = normalize(pattern);
    let h = normalize(host);
    if let Some(rest) = p.strip_prefix("*.") {
        match h.split_once('.') {
            Some((first, tail)) => !first.is_empty() && tail == rest,
            None => false,
        }
    } else {
        p == h
    }
}

/// True when any of `names` covers `host`.
pub fn any_covers<'a>(names: impl IntoIterator<Item = &'a String>, host: &str) -> bool {
    names.into_iter().any(|n| cert_name_covers(n, host))
}

/// Gateway API hostname intersection between a listener hostname and a route hostname.
///
/// From the spec (HTTPRoute `hostnames`): a wildcard `*.example.com` matches any name with at least
/// one more label in front (`foo.example.com`, `foo.bar.example.com`) but not `example.com`; two
/// wildcards intersect when one's suffix covers the other's. `None` on either side matches all.
/// Returns the intersection when there is one.
pub fn gateway_intersect(listener: Option<&str>, route: &str) -> Option<String> {
    let r = normalize(route);
    let Some(l) = listener else { return Some(r) };
    let l = normalize(l);
    match (l.strip_prefix("*."), r.strip_prefix("*.")) {
        (None, None) => (l == r).then_some(r),
        (Some(ls), None) => r.ends_with(&format!(".{ls}")).then_some(r),
        (None, Some(rs)) => l.ends_with(&format!(".{rs}")).then_some(l),
        (Some(ls), Some(rs)) => {
            if ls == rs || rs.ends_with(&format!(".{ls}")) {
                Some(r)
            } else if ls.ends_with(&format!(".{rs}")) {
                Some(l)
            } else {
                None
            }
        }
    }
}

/// Whether a host name holds a placeholder that a later step substitutes: Flux `postBuild` and envsubst
/// variables (`${DOMAIN}`, `$DOMAIN`), template directives (`{{ .Values.host }}`), token-replace markers
/// (`__HOST__`, `#{host}#`, `{DOMAIN}`) and documentation stand-ins (`registry.<your domain>`). Such a
/// name is not malformed: it is not the name yet.
pub fn placeholder(host: &str) -> bool {
    crate::placeholder::unresolved(host)
}

/// Why a host name is malformed, if it is: a port glued on (`web.ns.svc.cluster.local443`,
/// `host:443`), a scheme, a path, empty labels, characters DNS names cannot have, a label that starts
/// or ends with a hyphen or is longer than 63 characters, a name longer than 253 (RFC 1123, as the API
/// server validates host names).
pub fn malformed(host: &str) -> Option<String> {
    let h = host.trim();
    if h.is_empty() {
        return Some("empty host name".into());
    }
    if placeholder(h) {
        return None;
    }
    if h.contains("://") {
        return Some(format!("`{h}` contains a URL scheme"));
    }
    if let Some((name, port)) = h.rsplit_once(':') {
        if !name.contains(':') && !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) {
            return Some(format!("`{h}` has a port (`:{port}`) in the host name"));
        }
    }
    if h.contains('/') {
        return Some(format!("`{h}` contains a path"));
    }
    let labels: Vec<&str> = h.trim_end_matches('.').split('.').collect();
    for (i, l) in labels.iter().enumerate() {
        if l.is_empty() {
            return Some(format!("`{h}` has an empty label"));
        }
        if *l == "*" && i == 0 {
            continue;
        }
        if !l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Some(format!("`{h}` has a character that is not allowed in a DNS name"));
        }
        if l.starts_with('-') || l.ends_with('-') {
            return Some(format!("`{h}` has a label that starts or ends with a hyphen (`{l}`)"));
        }
        if l.len() > 63 {
            return Some(format!("`{h}` has a label of {} characters (at most 63)", l.len()));
        }
    }
    let len = h.trim_end_matches('.').len();
    if len > 253 {
        return Some(format!("`{h}` is {len} characters long (at most 253)"));
    }
    // A port glued to the last label: a known suffix followed by digits.
    let last = labels.last().copied().unwrap_or("");
    let digits = last.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let alpha = &last[..last.len() - digits.len()];
    if !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !alpha.is_empty()
        && matches!(
            alpha,
            "local"
                | "com"
                | "net"
                | "org"
                | "io"
                | "internal"
                | "lan"
                | "svc"
                | "cluster"
                | "dev"
                | "app"
                | "cloud"
                | "home"
                | "arpa"
        )
        && matches!(digits, "80" | "443" | "8080" | "8443" | "8000" | "9000" | "3000" | "5000" | "6443" | "53")
    {
        return Some(format!("`{h}` ends in `{alpha}{digits}`: a port (`{digits}`) glued to the name without `:`"));
    }
    None
}

/// Why the API server would refuse `host` in a field it validates as an RFC 1123 name (Ingress hosts,
/// Gateway API hostnames, `externalName`) beyond [`malformed`]: upper-case letters. Placeholders are not
/// judged.
pub fn not_lower_case(host: &str) -> Option<String> {
    let h = host.trim();
    if placeholder(h) || !h.bytes().any(|b| b.is_ascii_uppercase()) {
        return None;
    }
    Some(format!("`{h}` has upper-case letters; the API server accepts only lower-case names here (RFC 1123)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_not_malformed() {
        for h in [
            "app.${SECRET_DOMAIN}",
            "www.$DOMAIN_NAME",
            "{{ .Values.host }}",
            "__INGRESS_HOST__",
            "registry.<your domain>",
            "#{host}#.example.com",
            "{SHOP_HOST}.example.com",
            "shop.{domain}",
        ] {
            assert!(placeholder(h), "{h}");
            assert_eq!(malformed(h), None, "{h}");
        }
        for h in
            ["shop.example.com", "my__app.example.com", "a_b.example.com", "shop.example.com:443", "cost$.example.com"]
        {
            assert!(!placeholder(h), "{h}");
        }
        assert!(malformed("a_b.example.com").is_some());
        assert!(malformed("cost$.example.com").is_some());
    }

    #[test]
    fn wildcards_cover_one_label() {
        assert!(cert_name_covers("*.a.com", "x.a.com"));
        assert!(cert_name_covers("*.A.com.", "X.a.com"));
        assert!(!cert_name_covers("*.a.com", "x.y.a.com"));
        assert!(!cert_name_covers("*.a.com", "a.com"));
        assert!(cert_name_covers("a.com", "A.COM"));
        assert!(!cert_name_covers("b.a.com", "a.com"));
    }

    #[test]
    fn gateway_intersection_follows_the_spec() {
        assert_eq!(
            gateway_intersect(Some("*.example.com"), "foo.bar.example.com").as_deref(),
            Some("foo.bar.example.com")
        );
        assert_eq!(gateway_intersect(Some("*.example.com"), "example.com"), None);
        assert_eq!(gateway_intersect(Some("foo.example.com"), "*.example.com").as_deref(), Some("foo.example.com"));
        assert_eq!(gateway_intersect(Some("*.example.com"), "*.foo.example.com").as_deref(), Some("*.foo.example.com"));
        assert_eq!(gateway_intersect(Some("*.foo.example.com"), "*.example.com").as_deref(), Some("*.foo.example.com"));
        assert_eq!(gateway_intersect(Some("*.a.com"), "*.b.com"), None);
        assert_eq!(gateway_intersect(None, "x.com").as_deref(), Some("x.com"));
        assert_eq!(gateway_intersect(Some("a.com"), "b.com"), None);
    }

    #[test]
    fn gateway_wildcards_at_each_depth() {
        // Gateway API: `*.` is a suffix match over one or more labels, never the bare suffix.
        assert!(gateway_intersect(Some("*.example.com"), "a.example.com").is_some());
        assert!(gateway_intersect(Some("*.example.com"), "a.b.c.example.com").is_some());
        assert!(gateway_intersect(Some("*.example.com"), "aexample.com").is_none());
        assert!(gateway_intersect(Some("*.b.example.com"), "a.example.com").is_none());
        assert_eq!(gateway_intersect(Some("a.b.example.com"), "*.com").as_deref(), Some("a.b.example.com"));
        assert_eq!(gateway_intersect(Some("*.example.com"), "*.com").as_deref(), Some("*.example.com"));
        assert_eq!(gateway_intersect(Some("*.example.com"), "*.example.com").as_deref(), Some("*.example.com"));
        assert_eq!(
            gateway_intersect(Some("Shop.Example.com."), "shop.example.com").as_deref(),
            Some("shop.example.com")
        );
    }

    #[test]
    fn glued_ports_are_malformed() {
        assert!(malformed("argocd-server.argocd.svc.cluster.local443").is_some());
        assert!(malformed("shop.example.com:443").is_some());
        assert!(malformed("https://shop.example.com").is_some());
        assert!(malformed("shop.example.com").is_none());
        assert!(malformed("*.example.com").is_none());
        assert!(malformed("web80.example.com").is_none());
        assert!(malformed("node1.local").is_none());
    }

    #[test]
    fn names_the_api_server_rejects() {
        let long_label = "a".repeat(64);
        let label63 = "a".repeat(63);
        let long_name = [label63.as_str(); 4].join(".");
        assert!(malformed(&format!("{long_label}.example.com")).unwrap().contains("64 characters (at most 63)"));
        assert_eq!(malformed(&format!("{label63}.example.com")), None);
        assert!(malformed(&format!("{long_name}.com")).unwrap().contains("characters long (at most 253)"));
        assert_eq!(malformed(&format!("{}.com", [label63.as_str(); 3].join("."))), None);
        let name253 = &[label63.as_str(); 4].join(".")[..253];
        assert_eq!(malformed(&format!("{name253}.")), None);
        assert!(malformed("-shop.example.com").unwrap().contains("hyphen (`-shop`)"));
        assert!(malformed("shop-.example.com").is_some());
        assert!(malformed("shop.example-.com").is_some());
        assert_eq!(malformed("xn--bcher-kva.example.com"), None);
        assert_eq!(malformed("*.example.com"), None);
        assert!(not_lower_case("Shop.example.com").unwrap().contains("upper-case"));
        assert_eq!(not_lower_case("shop.example.com"), None);
        assert_eq!(not_lower_case("*.example.com"), None);
        assert_eq!(not_lower_case("{SHOP_HOST}.example.com"), None);
        assert_eq!(not_lower_case("__INGRESS_HOST__"), None);
        assert_eq!(not_lower_case("app.${SECRET_DOMAIN}"), None);
        assert_eq!(not_lower_case("{{ .Values.Host }}"), None);
    }
}
