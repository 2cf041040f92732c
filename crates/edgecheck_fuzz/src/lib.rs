//! Fuzz targets for the parsers that read untrusted input (#16, "Proving it").
//!
//! Each target is a plain `fn(&[u8])` that must never panic, hang or allocate without bound, whatever the
//! bytes. `scripts/fuzz.sh` runs them under AFL++ (`src/bin/afl.rs`) or, without AFL++, as a bounded random
//! loop (`src/bin/random.rs`); `cargo test` replays the checked-in corpus (`corpus/<target>/`, regressions
//! included), the fixtures and examples, and a bounded number of [`arbitrary`]-generated cases through the
//! same functions (`tests/replay.rs`).
//!
//! The targets assert what must hold of any answer (a duration within its bound, an object's line inside
//! its text), so a wrong answer is a crash too, not only a panic inside the code under test.

use std::time::Duration;

use arbitrary::Unstructured;
use edgecheck_core::observation::HttpObservation;
use edgecheck_core::traefik_rule::Request;

/// The largest input a target reads; longer inputs are cut (AFL++'s own default bound is 1 MiB).
pub const MAX_INPUT: usize = 1 << 20;

/// A fuzz target.
pub type Target = fn(&[u8]);
/// Builds one structured case from unstructured bytes (the replay test and the random loop).
pub type Generator = fn(&mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>>;

/// Every target: its name (the corpus directory and the argument of the drivers), the function, and the
/// generator of structured cases for it.
pub const TARGETS: &[(&str, Target, Generator)] = &[
    ("load", load, gen_yaml),
    ("lint", lint, gen_yaml),
    ("pem", pem, gen_pem),
    ("traefik_rule", traefik_rule, gen_rule),
    ("duration", duration, gen_duration),
    ("kubeconfig", kubeconfig, gen_kubeconfig),
    ("http_reply", http_reply, gen_http_reply),
];

/// The target named `name`.
pub fn target(name: &str) -> Option<(Target, Generator)> {
    TARGETS.iter().find(|(n, _, _)| *n == name).map(|(_, t, g)| (*t, *g))
}

fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(&data[..data.len().min(MAX_INPUT)])
}

/// The YAML/JSON loader with positions: documents, Lists, Secret summaries, templates, line tables.
pub fn load(data: &[u8]) {
    let text = text(data);
    // Lines end at `\n`; a last line without one still counts.
    let lines = u32::try_from(text.matches('\n').count() + 1).unwrap_or(u32::MAX);
    for name in ["fuzz.yaml", "fuzz.json"] {
        let inv = edgecheck_load::load_text(name, &text);
        for o in &inv.objects {
            if let Some(line) = o.source.line() {
                assert!((1..=lines).contains(&line), "object at line {line} of a {lines}-line text");
            }
        }
        for p in &inv.problems {
            if let Some(line) = p.line {
                assert!(line <= lines, "problem at line {line} of a {lines}-line text");
            }
        }
    }
}

/// The whole pipeline after the loader: graph, status model, every check, and the diagnosis of every host.
pub fn lint(data: &[u8]) {
    let inv = edgecheck_load::load_text("fuzz.yaml", &text(data));
    let options = edgecheck_core::Options::default();
    let graph = edgecheck_core::Graph::build(inv, &options);
    let analysis = edgecheck_checks::analyze(
        &graph,
        &options,
        // 2026-06-01T00:00:00Z, the tests' clock
        1_780_272_000,
        &edgecheck_checks::Selection::default(),
        &[],
        &[],
        edgecheck_checks::diagnose::Diagnose::Hosts,
    );
    for d in &analysis.diagnoses {
        if let Some(i) = d.root_cause {
            assert!(i < analysis.findings.len(), "root cause {i} of {} findings", analysis.findings.len());
        }
    }
}

/// The PEM/X.509 summariser: PEM splitting, certificates (raw DER too), keys and whether they match, and
/// the Secret summary that the loader builds from `tls.crt` and `tls.key`.
pub fn pem(data: &[u8]) {
    let data = &data[..data.len().min(MAX_INPUT)];
    let text = text(data);
    if let Ok(blocks) = edgecheck_core::cert::parse_pem(&text) {
        let certs: Vec<_> =
            blocks.iter().filter_map(|b| edgecheck_core::cert::CertInfo::from_der(&b.der).ok()).collect();
        let key = edgecheck_core::cert::KeyInfo::from_pem(&blocks).ok();
        for c in &certs {
            summarise(c);
            if let Some(k) = &key {
                let _ = k.matches(c);
            }
            for other in &certs {
                let _ = c.issued_by(other);
            }
        }
        for a in &blocks {
            for b in &blocks {
                let _ = edgecheck_core::cert::signed_by(&a.der, &b.der);
            }
        }
    }
    if let Ok(c) = edgecheck_core::cert::CertInfo::from_der(data) {
        summarise(&c);
    }
    let values = [("tls.crt".to_string(), data.to_vec()), ("tls.key".to_string(), data.to_vec())].into();
    let info = edgecheck_core::secret::SecretInfo::from_values("kubernetes.io/tls", &values, true, false);
    assert_eq!(info.lengths.get("tls.crt"), Some(&data.len()));
    let _ = info.key_matches();
}

fn summarise(c: &edgecheck_core::cert::CertInfo) {
    let _ = c.names();
    let _ = c.cn_only();
    let _ = c.covers("shop.example.com");
    let _ = c.covers("*.example.com");
    let _ = c.weak_key();
    let _ = c.weak_signature();
}

/// The Traefik rule parser and its evaluation against requests.
pub fn traefik_rule(data: &[u8]) {
    let text = text(data);
    let _ = edgecheck_core::traefik_rule::default_priority(&text);
    let Ok(expr) = edgecheck_core::traefik_rule::parse(&text) else { return };
    for (host, path) in [("shop.example.com", Some("/api/x?q=1")), ("", None), ("a.b:8443", Some("/"))] {
        let _ = expr.matches(&Request { host, path });
    }
    let _ = expr.hosts();
    let _ = expr.specificity();
    let mut n = 0usize;
    expr.walk(&mut |m| {
        n += 1;
        let _ = (m.name(), m.args());
    });
    assert!(n > 0, "a parsed rule has a matcher");
}

/// Every duration syntax: the flags' (`--timeout`), Go's (cert-manager `renewBefore`), RFC 3339 times.
pub fn duration(data: &[u8]) {
    let text = text(data);
    let max = Duration::from_secs(3600);
    if let Ok(d) = edgecheck_core::duration::parse(&text, max) {
        assert!(d > Duration::ZERO && d <= max, "{text:?} parsed as {d:?}");
    }
    let _ = edgecheck_core::cert::parse_go_duration(&text);
    if let Some(t) = edgecheck_core::cert::parse_time(&text) {
        let _ = edgecheck_core::cert::format_time(t);
    }
}

/// Kubeconfig text, read with the parser `scan` uses (no file it names is read).
pub fn kubeconfig(data: &[u8]) {
    let _ = edgecheck_kube::parse_kubeconfig(&text(data));
}

/// The HTTP response classifier (APP001's proxy pages, Envoy's no-route 404) over a raw HTTP/1.1 response:
/// status line, headers, blank line, body.
pub fn http_reply(data: &[u8]) {
    let data = &data[..data.len().min(MAX_INPUT)];
    let h = parse_reply(data);
    let _ = edgecheck_checks::identify_proxy_reply(&h);
    let _ = h.envoy_no_route();
}

/// A raw response as the probe records it: lower-case header names, the body's length and its first 512
/// bytes as (lossy) text.
fn parse_reply(data: &[u8]) -> HttpObservation {
    let split =
        data.windows(4).position(|w| w == b"\r\n\r\n").map_or((data, &[][..]), |i| (&data[..i], &data[i + 4..]));
    let (head, body) = split;
    let head = String::from_utf8_lossy(head);
    let mut lines = head.split("\r\n");
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok());
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    HttpObservation {
        url: "https://fuzz.example/".into(),
        protocol: "HTTP/1.1".into(),
        status,
        headers,
        body_len: body.len() as u64,
        body_prefix: String::from_utf8_lossy(&body[..body.len().min(512)]).into_owned(),
        ..HttpObservation::default()
    }
}

// --- generators: cases built from the vocabulary of each format, so that random bytes reach past the lexer

/// Joins up to `max` pieces, each a word of `vocab` or (one time in eight) a few arbitrary bytes.
fn compose(u: &mut Unstructured<'_>, vocab: &[&str], max: usize) -> arbitrary::Result<Vec<u8>> {
    let mut out = Vec::new();
    let n = u.int_in_range(0..=max)?;
    for _ in 0..n {
        if u.ratio(1, 8)? {
            let len = u.int_in_range(0..=8)?;
            out.extend_from_slice(u.bytes(len)?);
        } else {
            out.extend_from_slice(u.choose(vocab)?.as_bytes());
        }
    }
    Ok(out)
}

const YAML: &[&str] = &[
    "apiVersion: v1\n",
    "apiVersion: networking.k8s.io/v1\n",
    "apiVersion: gateway.networking.k8s.io/v1\n",
    "kind: Ingress\n",
    "kind: Service\n",
    "kind: Secret\n",
    "kind: List\n",
    "kind: HTTPRoute\n",
    "kind: Gateway\n",
    "kind: Application\n",
    "kind: IngressRoute\n",
    "kind: Kustomization\n",
    "metadata:\n",
    "  name: web\n",
    "  namespace: shop\n",
    "spec:\n",
    "items:\n",
    "- ",
    "  ",
    "    ",
    "\n",
    "---\n",
    "...\n",
    "rules:\n",
    "- host: shop.example.com\n",
    "host: ",
    "*.example.com",
    "http:\n",
    "paths:\n",
    "- path: /\n",
    "pathType: Prefix\n",
    "backend:\n",
    "service:\n",
    "port:\n",
    "number: 80\n",
    "tls:\n",
    "secretName: web-tls\n",
    "data:\n",
    "tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n",
    "stringData:\n",
    "type: kubernetes.io/tls\n",
    "parentRefs:\n",
    "hostnames:\n",
    "listeners:\n",
    "protocol: HTTPS\n",
    "&a ",
    "*a",
    "<<: *a\n",
    "? ",
    ": ",
    "{",
    "}",
    "[",
    "]",
    ",",
    "\"",
    "'",
    "|\n",
    ">-\n",
    "!!binary ",
    "!!str ",
    "# comment\n",
    "{{ .Values.host }}",
    "${HOST}",
    "~",
    "null",
    "true",
    "0x1F",
    "1e400",
    "-",
    "\t",
    "\r\n",
    "\u{1b}]0;x\u{7}",
    "\u{feff}",
    "match: Host(`a.example.com`)\n",
    "annotations:\n",
    "status:\n",
    "conditions:\n",
];

fn gen_yaml(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    compose(u, YAML, 200)
}

const PEM: &[&str] = &[
    "-----BEGIN CERTIFICATE-----\n",
    "-----END CERTIFICATE-----\n",
    "-----BEGIN PRIVATE KEY-----\n",
    "-----END PRIVATE KEY-----\n",
    "-----BEGIN RSA PRIVATE KEY-----\n",
    "-----BEGIN EC PRIVATE KEY-----\n",
    "-----END EC PRIVATE KEY-----\n",
    "-----BEGIN ",
    "-----END ",
    "-----",
    "MIIB",
    "MII",
    "AAAA",
    "/+==",
    "=",
    "\n",
    "\r\n",
    " ",
    "Bag Attributes\n",
    "MIIBszCCAVmgAwIBAgIU",
    "MAoGCCqGSM49BAMC",
    "MCowBQYDK2VwAyEA",
];

fn gen_pem(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    if u.ratio(1, 4)? {
        // raw DER-ish bytes: a SEQUENCE header and arbitrary contents
        let mut der = vec![0x30, 0x82];
        der.extend_from_slice(u.bytes(u.len().min(600))?);
        return Ok(der);
    }
    compose(u, PEM, 60)
}

const RULE: &[&str] = &[
    "Host(",
    "HostSNI(",
    "HostRegexp(",
    "Path(",
    "PathPrefix(",
    "PathRegexp(",
    "Header(",
    "Method(",
    "Query(",
    "ClientIP(",
    "Headers(",
    "HostHeader(",
    ")",
    "(",
    "`",
    "\"",
    "'",
    ",",
    " ",
    "&&",
    "||",
    "!",
    "a.example.com",
    "*",
    "/api",
    "{name:[a-z]+}",
    "^.*\\.example\\.com$",
    "GET",
    "10.0.0.0/8",
    "\\",
    "[",
    "]",
    "{",
    "}",
];

fn gen_rule(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    compose(u, RULE, 80)
}

const DURATION: &[&str] = &[
    "0",
    "1",
    "9",
    "99999999",
    "18446744073709551615",
    ".",
    "5",
    "h",
    "m",
    "s",
    "ms",
    "us",
    "µs",
    "ns",
    "d",
    "e",
    "1e20",
    "inf",
    "NaN",
    "-",
    "+",
    " ",
    "2026-06-01T00:00:00Z",
    "T",
    ":",
    "Z",
    "+02:00",
];

fn gen_duration(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    compose(u, DURATION, 12)
}

const KUBECONFIG: &[&str] = &[
    "apiVersion: v1\n",
    "kind: Config\n",
    "clusters:\n",
    "- cluster:\n",
    "    server: https://127.0.0.1:6443\n",
    "    certificate-authority: /dev/zero\n",
    "    certificate-authority-data: LS0t\n",
    "  name: c\n",
    "contexts:\n",
    "- context:\n",
    "    cluster: c\n",
    "    user: u\n",
    "    namespace: n\n",
    "current-context: c\n",
    "users:\n",
    "- name: u\n",
    "  user:\n",
    "    token: t\n",
    "    exec:\n",
    "      command: x\n",
    "      apiVersion: client.authentication.k8s.io/v1\n",
    "preferences: {}\n",
    "extensions:\n",
    "---\n",
    "&a ",
    "*a",
    "<<: *a\n",
    "[",
    "]",
    "{",
    "}",
    "- ",
    "  ",
    "\n",
    "null",
    "~",
];

fn gen_kubeconfig(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    compose(u, KUBECONFIG, 80)
}

const REPLY: &[&str] = &[
    "HTTP/1.1 ",
    "200 OK",
    "404 Not Found",
    "500 Internal Server Error",
    "502 Bad Gateway",
    "503 ",
    "302 Found",
    "\r\n",
    "\r\n\r\n",
    "server: nginx\r\n",
    "Server: envoy\r\n",
    "server: awselb/2.0\r\n",
    "via: 1.1 google\r\n",
    "location: /oauth2/start\r\n",
    "content-length: 0\r\n",
    "404 page not found",
    "Internal Server Error",
    "no healthy upstream",
    "<html><head><title>502 Bad Gateway</title></head>",
    "<center>nginx</center>",
    "The server encountered a temporary error",
    ": ",
    " ",
    "\u{e9}",
    "\u{fffd}",
];

fn gen_http_reply(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    compose(u, REPLY, 40)
}

/// A deterministic stream of bytes (xorshift64*) to build cases from: the same seed, the same cases.
pub fn seeded_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        out.extend_from_slice(&x.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// Case `i` of the structured cases of seed `seed` for a generator; `None` if the bytes ran out before it
/// was whole (never the case with 4 KiB of bytes and the vocabularies above, but not an error either).
pub fn generated_case(generate: Generator, seed: u64, i: u64) -> Option<Vec<u8>> {
    let bytes = seeded_bytes(seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15), 4096);
    generate(&mut Unstructured::new(&bytes)).ok()
}
