//! Replays every seed through the fuzz targets: the checked-in corpus (`corpus/<target>/`, with the
//! regressions of crashes found), the check fixtures and examples for the YAML targets, PEM generated here,
//! and a bounded number of generated cases per target (deterministic seed). A panic fails the test; a case
//! slower than `SLOW` is reported by name, which is how a hang shows up here.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Generated cases per target.
const GENERATED: u64 = 1000;
/// The seed of the generated cases.
const SEED: u64 = 0x5eed_0016;
/// Any case slower than this in a debug build is a failure: every seed here is small.
const SLOW: Duration = Duration::from_secs(5);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn corpus(name: &str) -> Vec<(String, Vec<u8>)> {
    let mut seeds: Vec<(String, Vec<u8>)> = files(&root().join("corpus").join(name))
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).expect("corpus file")))
        .collect();
    assert!(!seeds.is_empty(), "corpus/{name} is empty");
    if matches!(name, "load" | "lint") {
        let repo = root().join("../..");
        for dir in ["crates/edgecheck_checks/resources/fixtures", "examples"] {
            for p in files(&repo.join(dir))
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json"))
            {
                seeds.push((p.display().to_string(), std::fs::read(&p).expect("fixture")));
            }
        }
    }
    if name == "pem" {
        seeds.extend(generated_pem());
    }
    seeds
}

/// A certificate and key generated now, whole and cut at several places.
fn generated_pem() -> Vec<(String, Vec<u8>)> {
    let ck = rcgen::generate_simple_self_signed(vec!["shop.example.com".into()]).expect("test certificate");
    let whole = format!("{}{}", ck.cert.pem(), ck.signing_key.serialize_pem()).into_bytes();
    let mut out =
        vec![("generated cert+key".to_string(), whole.clone()), ("generated DER".into(), ck.cert.der().to_vec())];
    for cut in [1, 30, whole.len() / 3, whole.len() / 2, whole.len() - 30] {
        out.push((format!("generated cut at {cut}"), whole[..cut].to_vec()));
    }
    out
}

fn replay(name: &str) -> usize {
    let (target, generate) = edgecheck_fuzz::target(name).expect("target");
    let mut cases = corpus(name);
    for i in 0..GENERATED {
        if let Some(case) = edgecheck_fuzz::generated_case(generate, SEED, i) {
            cases.push((format!("generated case {i}"), case));
        }
    }
    let start = Instant::now();
    for (what, case) in &cases {
        let t = Instant::now();
        target(case);
        assert!(t.elapsed() < SLOW, "{name}: {what} took {:?}", t.elapsed());
    }
    eprintln!("{name}: {} cases in {:?}", cases.len(), start.elapsed());
    cases.len()
}

#[test]
fn load_replays() {
    // the fixtures and examples, and the corpus
    assert!(replay("load") > 300);
}

#[test]
fn lint_replays() {
    assert!(replay("lint") > 300);
}

#[test]
fn pem_replays() {
    assert!(replay("pem") > GENERATED as usize);
}

#[test]
fn traefik_rule_replays() {
    assert!(replay("traefik_rule") > GENERATED as usize);
}

#[test]
fn duration_replays() {
    assert!(replay("duration") > GENERATED as usize);
}

#[test]
fn kubeconfig_replays() {
    assert!(replay("kubeconfig") > GENERATED as usize);
}

#[test]
fn http_reply_replays() {
    assert!(replay("http_reply") > GENERATED as usize);
}

#[test]
fn every_target_has_a_corpus_and_a_test() {
    let names: Vec<_> = edgecheck_fuzz::TARGETS.iter().map(|(n, _, _)| *n).collect();
    assert_eq!(names, ["load", "lint", "pem", "traefik_rule", "duration", "kubeconfig", "http_reply"]);
}

/// The generated cases are the same on every run (the seed is fixed) and differ from each other.
#[test]
fn generated_cases_are_deterministic() {
    let (_, generate) = edgecheck_fuzz::target("traefik_rule").expect("target");
    let a: Vec<_> = (0..20).map(|i| edgecheck_fuzz::generated_case(generate, SEED, i)).collect();
    let b: Vec<_> = (0..20).map(|i| edgecheck_fuzz::generated_case(generate, SEED, i)).collect();
    assert_eq!(a, b);
    let distinct: std::collections::BTreeSet<_> = a.iter().collect();
    assert!(distinct.len() > 15, "{} distinct of 20", distinct.len());
}
