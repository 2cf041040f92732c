//! Fixture tests: every `resources/fixtures/<layer>/<CODE>_<case>.yaml` is loaded, the check named by
//! its prefix runs alone on it, and the findings are compared with the fixture's `# expect:` lines and
//! with a reviewed snapshot of what users see.
//!
//! Fixture header lines:
//! - `# expect: CODE line N` (optionally `severity S`), one per expected finding; or `# expect: none`.
//! - `# pki: NAME [options]` defines a certificate without placing it (a CA not in any Secret).
//! - `# options: complete` treats the fixture as a full cluster dump; `live` trusts its objects' `status`
//!   (as if they carried a `resourceVersion`); `cni=flannel`, `api-versions=a,b`,
//!   `namespace=ns`, `expiry-warning-days=N`.
//! - `# trace: URL` (any number): the URLs traced, for the checks that judge a traced request (`CheckContext::targets`).
//! - `# repo: URL dirs=a,b` makes the fixture a git checkout; `# repo-path: FILE` places the documents
//!   after it in that file of the checkout (see `apply_repo_header`).
//!
//! PKI placeholders, generated at test time relative to [`NOW`] (nothing checked in expires):
//! - `{{cert NAME [sans=a,b] [cn=x] [from=-30d] [until=90d] [issuer=NAME] [key=p256|p384|ed25519|rsa1024|rsa2048] [ca]}}`
//!   becomes base64 of the certificate's PEM; `{{chain NAME}}` the PEM of the leaf and its issuers up to
//!   (not including) the self-signed root; `{{key NAME}}` base64 of its private key's PEM; a `pem` prefix
//!   (`{{pemcert NAME}}`, `{{pemchain NAME}}`, `{{pemkey NAME}}`) gives the PEM text itself (for `stringData`).
//! - `{{bundle A B ...}}` the PEMs of the named (defined) certificates concatenated in the order given
//!   (an out-of-order or hand-made `tls.crt`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use edgecheck_core::{Finding, Findings, Graph, Options};

use crate::framework::{Check, CheckContext};
use crate::model::Model;

/// The pinned clock of every fixture test: 2026-06-01T00:00:00Z.
pub const NOW: i64 = 1_780_272_000;

/// The fixtures folder.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("resources/fixtures")
}

/// Loads fixture text (after PKI expansion) into a graph.
pub fn graph_from_text(name: &str, text: &str) -> (Graph, Options) {
    let (graph, options, _) = graph_and_pki(name, text);
    (graph, options)
}

/// As [`graph_from_text`], keeping the fixture's PKI (for its observations sidecar).
pub(crate) fn graph_and_pki(name: &str, text: &str) -> (Graph, Options, Pki) {
    let options = options_from_header(text);
    let mut pki = Pki::default();
    let expanded = pki.expand(text);
    let mut inv = edgecheck_load::load_text(name, &expanded);
    apply_repo_header(&mut inv, &expanded);
    (Graph::build(inv, &options), options, pki)
}

/// Fixture repositories: `# repo: URL dirs=a/b,c` declares the linted checkout (remote `URL`, or `-` for a
/// directory that is not a git checkout; those
/// directories and their parents), and `# repo-path: apps/shop/web.yaml` before a document says that the
/// documents after it (up to the next `# repo-path:`) come from that file of the checkout (their
/// `source.repo_path`; the file and its parent directories join the checkout).
fn apply_repo_header(inv: &mut edgecheck_core::Inventory, text: &str) {
    let Some(header) = text.lines().find_map(|l| l.strip_prefix("# repo:")) else { return };
    let mut words = header.split_whitespace();
    // `# repo: - dirs=…`: a directory that is not a git checkout (`RepoInfo::assumed`).
    let url = words.next().filter(|u| *u != "-");
    let mut repo = edgecheck_core::RepoInfo {
        root: PathBuf::from("/fixture"),
        assumed: url.is_none(),
        remotes: url.map(str::to_string).into_iter().collect(),
        ..Default::default()
    };
    let add_dir = |dirs: &mut edgecheck_core::pathset::PathSet, d: &str| {
        let mut cur = d.trim_matches('/');
        while !cur.is_empty() {
            dirs.insert(cur);
            cur = cur.rsplit_once('/').map_or("", |(p, _)| p);
        }
    };
    for w in words {
        match w.split_once('=') {
            Some(("dirs", v)) => v.split(',').for_each(|d| add_dir(&mut repo.dirs, d)),
            _ => panic!("bad repo word `{w}`"),
        }
    }
    let mut marks: Vec<(u32, String)> = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if let Some(p) = l.strip_prefix("# repo-path:") {
            let p = p.trim().to_string();
            if let Some((dir, _)) = p.rsplit_once('/') {
                add_dir(&mut repo.dirs, dir);
            }
            repo.files.insert(&p);
            marks.push((u32::try_from(i + 1).unwrap_or(u32::MAX), p));
        }
    }
    for o in &mut inv.objects {
        let line = o.source.line().unwrap_or(0);
        if let Some((_, p)) = marks.iter().rev().find(|(l, _)| *l < line) {
            o.source.set_repo_path(Some((0, p.as_str())));
        }
    }
    inv.repos.push(repo);
}

fn options_from_header(text: &str) -> Options {
    let mut o = Options::default();
    for l in text.lines().filter_map(|l| l.strip_prefix("# options:")) {
        for w in l.split_whitespace() {
            match w.split_once('=') {
                None if w == "complete" => o.complete = Some(true),
                None if w == "live" => o.trust_file_status = true,
                Some(("cni", v)) => o.cni = Some(v.to_string()),
                Some(("api-versions", v)) => o.api_versions = v.split(',').map(str::to_string).collect(),
                Some(("namespace", v)) => o.default_namespace = v.to_string(),
                Some(("expiry-warning-days", v)) => {
                    o.expiry_warning_days = v.parse().unwrap_or_else(|_| panic!("bad expiry-warning-days `{v}`"));
                }
                _ => panic!("unknown fixture option `{w}`"),
            }
        }
    }
    if o.complete.is_none() {
        o.complete = Some(false);
    }
    o
}

thread_local! {
    /// The `# trace: URL` targets of the fixture being run.
    static TRACE_TARGETS: std::cell::RefCell<Vec<crate::diagnose::TraceTarget>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn trace_targets(text: &str) -> Vec<crate::diagnose::TraceTarget> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# trace:"))
        .map(|u| crate::diagnose::TraceTarget::parse(u.trim()).unwrap_or_else(|| panic!("bad `# trace:` URL `{u}`")))
        .collect()
}

/// Runs one check over a graph.
#[allow(dead_code)] // kept for checks' own unit tests
pub fn run_check(check: &dyn Check, graph: &Graph, options: &Options) -> Vec<Finding> {
    run_check_with(check, graph, options, &[])
}

/// Runs one check over a graph and endpoint observations.
pub fn run_check_with(
    check: &dyn Check,
    graph: &Graph,
    options: &Options,
    observations: &[edgecheck_core::observation::TargetObservation],
) -> Vec<Finding> {
    let model = Model::compute(graph, NOW);
    let paths = crate::diagnose::PathIndex::build(graph, &model);
    let serving = crate::diagnose::serving(graph, &model, &paths, observations);
    let targets: Vec<crate::diagnose::TraceTarget> = TRACE_TARGETS.with(|t| t.borrow().clone());
    let cx = CheckContext {
        graph,
        model: &model,
        now: NOW,
        options,
        observations,
        serving: &serving,
        paths: &paths,
        targets: &targets,
    };
    let mut out = Vec::new();
    check.run(&cx, &mut Findings::new(check.meta(), &mut out));
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out
}

/// Renders findings as the snapshot shows them. Fingerprints and serials are redacted (test PKI is
/// random).
pub fn render(findings: &[Finding]) -> String {
    let mut s = String::new();
    for f in findings {
        let _ = writeln!(
            s,
            "{} {} [{}] {}:{} {}",
            f.meta.code,
            f.severity,
            f.meta.layer,
            f.file.as_deref().unwrap_or("-"),
            f.line.map_or("-".into(), |l| l.to_string()),
            f.object
        );
        let _ = writeln!(s, "  {}", f.message);
        for e in &f.evidence {
            let _ = writeln!(s, "  evidence: {}", redact(e));
        }
        for r in &f.related {
            let _ = writeln!(s, "  related: {r}");
        }
        if let Some(fix) = &f.fix {
            let _ = writeln!(s, "  fix: {fix}");
        }
        if let Some(p) = &f.patch {
            let _ = writeln!(s, "  patch:\n{}", p.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n"));
        }
    }
    s
}

fn redact(s: &str) -> String {
    // Runs of `XX:XX:...` (8 pairs or more) are fingerprints or key ids.
    let mut out = String::new();
    for word in s.split_inclusive(|c: char| c.is_whitespace() || c == ',' || c == ')') {
        let core = word.trim_end_matches(|c: char| c.is_whitespace() || c == ',' || c == ')');
        let tail = &word[core.len()..];
        let pairs: Vec<&str> = core.split(':').collect();
        if pairs.len() >= 8 && pairs.iter().all(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_hexdigit())) {
            out.push_str("<hex>");
            out.push_str(tail);
        } else {
            out.push_str(word);
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Expect {
    code: String,
    line: Option<u32>,
    severity: Option<String>,
}

fn expectations(text: &str) -> Option<Vec<Expect>> {
    let mut out = Vec::new();
    let mut any = false;
    for l in text.lines().filter_map(|l| l.strip_prefix("# expect:")) {
        any = true;
        let l = l.trim();
        if l == "none" {
            continue;
        }
        let mut w = l.split_whitespace();
        let code = w.next().unwrap_or_default().to_string();
        assert!(
            code.len() == 6
                && code[..3].chars().all(|c| c.is_ascii_uppercase())
                && code[3..].chars().all(|c| c.is_ascii_digit()),
            "bad code `{code}` in `# expect:{l}`"
        );
        let mut e = Expect { code, line: None, severity: None };
        while let Some(k) = w.next() {
            // A typo (`line 1O`, `severity eror`) must fail the fixture, never widen what it accepts.
            match (k, w.next()) {
                ("line", Some(n)) => {
                    e.line = Some(n.parse().unwrap_or_else(|_| panic!("bad line number `{n}` in `# expect:{l}`")));
                }
                ("severity", Some(v @ ("error" | "warning" | "info"))) => e.severity = Some(v.to_string()),
                (other, v) => panic!("bad expect words `{other} {}` in `# expect:{l}`", v.unwrap_or("")),
            }
        }
        out.push(e);
    }
    any.then_some(out)
}

/// Whether every expected finding has its own actual finding and nothing else was found: `[X@5, X@5]`
/// does not match `[X@5, X@9]`. An expectation without a line or severity accepts any; each actual finding
/// is used once (a greedy match, most specific expectations first, is exact for these patterns).
fn one_to_one(want: &[Expect], got: &[Expect]) -> bool {
    if want.len() != got.len() {
        return false;
    }
    let mut order: Vec<&Expect> = want.iter().collect();
    order.sort_by_key(|w| std::cmp::Reverse(usize::from(w.line.is_some()) + usize::from(w.severity.is_some())));
    let mut used = vec![false; got.len()];
    order.into_iter().all(|w| {
        let hit = got.iter().enumerate().position(|(i, g)| {
            !used[i]
                && g.code == w.code
                && (w.line.is_none() || g.line == w.line)
                && (w.severity.is_none() || g.severity == w.severity)
        });
        hit.map(|i| used[i] = true).is_some()
    })
}

/// Every fixture of a layer: runs, compares, snapshots. Returns the fixture names per code.
pub fn run_layer_fixtures(layer: &str) -> BTreeMap<String, Vec<(String, bool)>> {
    let dir = fixtures_dir().join(layer);
    let mut per_code: BTreeMap<String, Vec<(String, bool)>> = BTreeMap::new();
    let mut entries: Vec<_> =
        std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    entries.sort();
    let mut failures = Vec::new();
    for path in entries.into_iter().filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "json")) {
        if path.to_string_lossy().ends_with(".observations.json") {
            continue; // a sidecar, loaded with its fixture
        }
        let file = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let stem = file.rsplit_once('.').map_or(file.as_str(), |(s, _)| s).to_string();
        let code = stem.split('_').next().unwrap_or_default().to_string();
        let Some(check) = crate::registry::find_check(&code) else {
            failures.push(format!("{file}: no check {code}"));
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let Some(mut want) = expectations(&text) else {
            failures.push(format!("{file}: no `# expect:` line"));
            continue;
        };
        let name = format!("{layer}/{file}");
        let (graph, options, mut pki) = graph_and_pki(&name, &text);
        TRACE_TARGETS.with(|t| *t.borrow_mut() = trace_targets(&text));
        let findings = run_check_with(check, &graph, &options, &observations_with(&path, &mut pki));
        TRACE_TARGETS.with(|t| t.borrow_mut().clear());
        let mut got: Vec<Expect> = findings
            .iter()
            .map(|f| Expect {
                code: f.meta.code.to_string(),
                line: f.line,
                severity: Some(f.severity.as_str().to_string()),
            })
            .collect();
        want.sort();
        got.sort();
        let matches = one_to_one(&want, &got);
        if !matches {
            failures.push(format!("{file}: expected {want:?}\n  got {got:?}\n{}", render(&findings)));
        }
        per_code.entry(code).or_default().push((stem.clone(), !want.is_empty()));
        insta::with_settings!({snapshot_path => fixtures_dir().join("../snapshots").join(layer), prepend_module_to_snapshot => false, omit_expression => true}, {
            insta::assert_snapshot!(stem, render(&findings));
        });
    }
    assert!(failures.is_empty(), "fixture failures:\n{}", failures.join("\n"));
    per_code
}

/// Asserts every check of `layer` has a fixture that fires and a near miss that stays clean.
pub fn assert_coverage(layer: &str, per_code: &BTreeMap<String, Vec<(String, bool)>>) {
    let mut missing = Vec::new();
    for c in crate::registry::all_checks().iter().filter(|c| c.meta().layer.as_str() == layer) {
        let cases = per_code.get(c.meta().code).cloned().unwrap_or_default();
        if !cases.iter().any(|(_, fires)| *fires) {
            missing.push(format!("{} has no fixture that fires", c.meta().code));
        }
        if !cases.iter().any(|(_, fires)| !*fires) {
            missing.push(format!("{} has no near-miss fixture (`# expect: none`)", c.meta().code));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The observations sidecar of a fixture (`<fixture>.observations.json`), if any, with the fixture's
/// certificates: `{{sha256 NAME}}`, `{{notbefore NAME}}` and `{{notafter NAME}}` (unix seconds) describe a certificate the fixture defined, so a sidecar can say
/// that the server serves exactly that certificate, or another one.
fn observations_with(fixture: &Path, pki: &mut Pki) -> Vec<edgecheck_core::observation::TargetObservation> {
    let sidecar = fixture.with_extension("observations.json");
    match std::fs::read_to_string(&sidecar) {
        Ok(text) => {
            let text = pki.expand(&text);
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", sidecar.display()))
        }
        Err(_) => Vec::new(),
    }
}

/// Test-time PKI for fixtures.
#[derive(Default)]
pub struct Pki {
    certs: BTreeMap<String, Issued>,
}

struct Issued {
    pem: String,
    key_pem: String,
    params: rcgen::CertificateParams,
    key: Key,
    issuer: Option<String>,
}

enum Key {
    Signing(Box<rcgen::KeyPair>),
    /// RSA keys ring will not sign with (under 2048 bits): only the public half goes into the cert.
    PublicOnly(rcgen::SubjectPublicKeyInfo),
}

impl Pki {
    /// Replaces every placeholder in `text`.
    pub fn expand(&mut self, text: &str) -> String {
        for l in text.lines().filter_map(|l| l.strip_prefix("# pki:")) {
            self.define(l.trim());
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find("{{") {
            out.push_str(&rest[..i]);
            let Some(j) = rest[i..].find("}}") else { break };
            let directive = &rest[i + 2..i + j];
            out.push_str(&self.placeholder(directive.trim()));
            rest = &rest[i + j + 2..];
        }
        out.push_str(rest);
        out
    }

    fn placeholder(&mut self, d: &str) -> String {
        let mut words = d.split_whitespace();
        let what = words.next().unwrap_or_default();
        let name = words.next().unwrap_or_default().to_string();
        let (raw, what) = match what.strip_prefix("pem") {
            Some(w) => (true, w),
            None => (false, what),
        };
        if matches!(what, "sha256" | "notbefore" | "notafter") {
            let c = self.certs.get(&name).unwrap_or_else(|| panic!("{{{{{what} {name}}}}}: `{name}` is not defined"));
            let blocks = edgecheck_core::cert::parse_pem(&c.pem).unwrap_or_default();
            let info = blocks.first().and_then(|b| edgecheck_core::cert::CertInfo::from_der(&b.der).ok());
            let info = info.unwrap_or_else(|| panic!("{name}: not a certificate"));
            return match what {
                "sha256" => info.sha256.to_string(),
                "notbefore" => info.not_before.to_string(),
                _ => info.not_after.to_string(),
            };
        }
        if what == "cert" && !self.certs.contains_key(&name) {
            self.define(&d[d.find("cert").map_or(0, |i| i + 4)..]);
        }
        let text = match what {
            "cert" => self.certs[&name].pem.clone(),
            "key" => {
                self.certs.get(&name).unwrap_or_else(|| panic!("{{{{key {name}}}}} before its cert")).key_pem.clone()
            }
            "chain" => {
                let mut pem = String::new();
                let mut cur = Some(name.clone());
                while let Some(n) = cur {
                    let c = &self.certs[&n];
                    let is_root = c.issuer.is_none();
                    if is_root && n != name {
                        break;
                    }
                    pem.push_str(&c.pem);
                    cur = c.issuer.clone();
                }
                pem
            }
            "bundle" => std::iter::once(name.as_str())
                .chain(words)
                .map(|n| self.certs.get(n).unwrap_or_else(|| panic!("bundle: `{n}` is not defined")).pem.clone())
                .collect(),
            other => panic!("unknown placeholder `{other}`"),
        };
        if raw {
            // For stringData block scalars: indent continuation lines is the fixture's business; give
            // the PEM on one JSON-escaped line so it fits a quoted scalar.
            serde_json::to_string(&text).unwrap_or_default()
        } else {
            base64::engine::general_purpose::STANDARD.encode(text)
        }
    }

    /// Defines a certificate: `NAME [sans=..] [cn=..] [from=-30d] [until=90d] [issuer=NAME] [key=..] [ca]`.
    pub fn define(&mut self, spec: &str) {
        let mut words = spec.split_whitespace();
        let name = words.next().unwrap_or_default().to_string();
        let mut sans: Vec<String> = Vec::new();
        let mut cn = None;
        let mut from = -30i64;
        let mut until = 90i64;
        let mut issuer = None;
        let mut key = "p256".to_string();
        let mut ca = false;
        for w in words {
            match w.split_once('=') {
                Some(("sans", v)) => sans = v.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect(),
                Some(("cn", v)) => cn = Some(v.to_string()),
                Some(("from", v)) => from = days(v),
                Some(("until", v)) => until = days(v),
                Some(("issuer", v)) => issuer = Some(v.to_string()),
                Some(("key", v)) => key = v.to_string(),
                None if w == "ca" => ca = true,
                _ => panic!("bad pki word `{w}`"),
            }
        }
        let mut params = rcgen::CertificateParams::new(sans).expect("valid SANs");
        if let Some(cn) = cn {
            params.distinguished_name.push(rcgen::DnType::CommonName, cn);
        } else {
            params.distinguished_name.push(rcgen::DnType::CommonName, name.clone());
        }
        let (y, m, d) = ymd(NOW + from * 86_400);
        params.not_before = rcgen::date_time_ymd(y, m, d);
        let (y, m, d) = ymd(NOW + until * 86_400);
        params.not_after = rcgen::date_time_ymd(y, m, d);
        if ca {
            params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
            params.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::CrlSign];
        }
        let (key_pair, key_pem) = make_key(&key);
        let cert = match (&issuer, &key_pair) {
            (None, Key::Signing(k)) => params.self_signed(k.as_ref()).expect("self-signed"),
            (None, Key::PublicOnly(_)) => {
                panic!("`{name}`: ring cannot sign with {key}; give it an issuer")
            }
            (Some(i), k) => {
                let parent =
                    self.certs.get(i).unwrap_or_else(|| panic!("issuer `{i}` of `{name}` is not defined earlier"));
                let Key::Signing(pk) = &parent.key else { panic!("issuer `{i}` cannot sign") };
                let iss = rcgen::Issuer::from_params(&parent.params, pk.as_ref());
                match k {
                    Key::Signing(k) => params.signed_by(k.as_ref(), &iss).expect("signed"),
                    Key::PublicOnly(spki) => params.signed_by(spki, &iss).expect("signed"),
                }
            }
        };
        self.certs.insert(name, Issued { pem: cert.pem(), key_pem, params, key: key_pair, issuer });
    }
}

fn make_key(kind: &str) -> (Key, String) {
    match kind {
        "p256" => gen(&rcgen::PKCS_ECDSA_P256_SHA256),
        "p384" => gen(&rcgen::PKCS_ECDSA_P384_SHA384),
        "ed25519" => gen(&rcgen::PKCS_ED25519),
        "rsa1024" | "rsa2048" => {
            use rsa::pkcs8::EncodePrivateKey as _;
            let bits = if kind == "rsa1024" { 1024 } else { 2048 };
            let k = rsa::RsaPrivateKey::new(&mut rand::thread_rng(), bits).expect("rsa key");
            use rsa::pkcs8::EncodePublicKey as _;
            let pem = k.to_pkcs8_pem(rsa::pkcs8::LineEnding::LF).expect("pem").to_string();
            let spki = k.to_public_key().to_public_key_der().expect("spki");
            (Key::PublicOnly(rcgen::SubjectPublicKeyInfo::from_der(spki.as_bytes()).expect("spki")), pem)
        }
        other => panic!("unknown key kind `{other}`"),
    }
}

fn gen(alg: &'static rcgen::SignatureAlgorithm) -> (Key, String) {
    let k = rcgen::KeyPair::generate_for(alg).expect("key");
    let pem = k.serialize_pem();
    (Key::Signing(Box::new(k)), pem)
}

fn days(v: &str) -> i64 {
    v.trim_end_matches('d').parse().unwrap_or_else(|_| panic!("bad day count `{v}`"))
}

fn ymd(t: i64) -> (i32, u8, u8) {
    let s = edgecheck_core::cert::format_time(t);
    (s[0..4].parse().unwrap_or(2026), s[5..7].parse().unwrap_or(1), s[8..10].parse().unwrap_or(1))
}

/// The `resources/` folder (health fixtures live in `resources/health/`).
pub fn resources_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("resources")
}

#[cfg(test)]
mod meta_tests {
    use super::*;

    fn e(code: &str, line: Option<u32>) -> Expect {
        Expect { code: code.into(), line, severity: None }
    }

    #[test]
    fn expectations_match_one_to_one() {
        assert!(!one_to_one(
            &[e("BKD001", Some(5)), e("BKD001", Some(5))],
            &[e("BKD001", Some(5)), e("BKD001", Some(9))]
        ));
        assert!(one_to_one(&[e("BKD001", Some(5)), e("BKD001", None)], &[e("BKD001", Some(9)), e("BKD001", Some(5))]));
        assert!(!one_to_one(&[e("BKD001", None)], &[e("BKD001", Some(5)), e("BKD002", Some(5))]));
    }

    #[test]
    #[should_panic(expected = "bad line number `1O`")]
    fn a_mistyped_line_fails_the_fixture() {
        let _ = expectations("# expect: BKD001 line 1O\n");
    }

    #[test]
    #[should_panic(expected = "bad expect words")]
    fn a_mistyped_severity_fails_the_fixture() {
        let _ = expectations("# expect: BKD001 severity eror\n");
    }
}

/// Every finding of every check over every fixture of every layer carries a severity its check declares
/// (`CheckMeta::severities`): the catalogue's severities are the ones findings carry.
#[test]
fn every_finding_carries_a_severity_its_check_declares() {
    let mut wrong = std::collections::BTreeSet::new();
    let layers = std::fs::read_dir(fixtures_dir()).map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>());
    for dir in layers.unwrap_or_default() {
        let mut files: Vec<_> =
            std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        files.sort();
        for path in files.into_iter().filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "json")) {
            if path.to_string_lossy().ends_with(".observations.json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            let (graph, options, mut pki) = graph_and_pki(&name, &text);
            let observations = observations_with(&path, &mut pki);
            for check in crate::registry::all_checks() {
                for f in run_check_with(*check, &graph, &options, &observations) {
                    if !f.meta.severities().contains(&f.severity) {
                        wrong.insert(format!(
                            "{} declares {:?} but emits {} ({name})",
                            f.meta.code,
                            f.meta.severities(),
                            f.severity
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "severities not declared:\n{}", wrong.into_iter().collect::<Vec<_>>().join("\n"));
}
