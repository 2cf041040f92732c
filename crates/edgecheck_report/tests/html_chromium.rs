//! The HTML report, drawn by a real browser: headless Chromium screenshots a page with one broken
//! diagnosis, and the screenshot must show the graph (boxes in the error and ok fill colours), not
//! a blank page.
//!
//! Needs the Debian package `chromium` (scripts/test.sh installs it). Set `EDGECHECK_SCREENSHOT=FILE`
//! to keep a copy of the screenshot.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use edgecheck_checks::diagnose::{Branch, ChainLink, Diagnosis, NodeState, PathNode, Role, TraceTarget, Verdict};
use edgecheck_checks::{find_check, Summary};
use edgecheck_core::kind::K;
use edgecheck_core::{Finding, Layer, ObjectRef, Severity};
use edgecheck_report::{render, Format, Report};

/// The fills the renderer uses for error/missing and ok boxes.
const ERROR_FILL: [u8; 3] = [0xf8, 0xc4, 0xc4];
const OK_FILL: [u8; 3] = [0xc8, 0xeb, 0xc9];

fn finding(code: &str, object: ObjectRef, file: &str, line: u32, message: &str) -> Finding {
    Finding {
        meta: find_check(code).expect("known code").meta(),
        severity: Severity::Error,
        object,
        related: vec![],
        file: Some(file.into()),
        line: Some(line),
        message: message.into(),
        evidence: vec!["condition ResolvedRefs=False BackendNotFound".into()],
        fix: Some("create the Service".into()),
        patch: None,
        ignore_annotation: None,
        port: None,
        build: None,
        notes: vec![],
    }
}

fn node(
    role: Role,
    label: &str,
    layer: Layer,
    branch: Branch,
    parent: Option<usize>,
    state: NodeState,
    findings: &[usize],
) -> PathNode {
    PathNode {
        role,
        label: label.into(),
        object: None,
        file: None,
        line: None,
        layer,
        branch,
        parent,
        state,
        detail: vec![],
        findings: findings.to_vec(),
    }
}

fn page() -> String {
    let route = ObjectRef::new(K::HTTP_ROUTE, Some("zitadel"), "zitadel");
    let svc = ObjectRef::new(K::SERVICE, Some("zitadel"), "zitadel");
    let job = ObjectRef::new(K::JOB, Some("zitadel"), "zitadel-setup");
    let findings = vec![
        finding(
            "BKD001",
            route.clone(),
            "route.yaml",
            9,
            "HTTPRoute `zitadel/zitadel` sends traffic to Service `zitadel/zitadel`, which does not exist",
        ),
        finding("BKD010", job.clone(), "job.yaml", 3, "Job `zitadel/zitadel-setup` failed (BackoffLimitExceeded)"),
    ];
    use Branch::*;
    use NodeState::*;
    let d = Diagnosis {
        target: TraceTarget::parse("https://auth.example.com/").expect("target"),
        verdict: Verdict::Broken,
        layer: Some(Layer::Backend),
        passthrough: false,
        summary: "https://auth.example.com/: broken at backend — root cause: Job `zitadel/zitadel-setup` failed".into(),
        root_cause: Some(1),
        breaks_at: Some(4),
        chain: vec![
            ChainLink {
                object: route,
                node: 3,
                state: "ResolvedRefs=False".into(),
                finding: Some(0),
                layer: Layer::Route,
            },
            ChainLink { object: svc, node: 4, state: "missing".into(), finding: Some(0), layer: Layer::Backend },
            ChainLink { object: job, node: 6, state: "failed".into(), finding: Some(1), layer: Layer::Backend },
        ],
        nodes: vec![
            node(Role::Name, "auth.example.com", Layer::Dns, Request, None, Ok, &[]),
            node(Role::Entry, "Gateway gateway/public :443", Layer::Listener, Request, Some(0), Ok, &[]),
            node(Role::Class, "GatewayClass cilium", Layer::Listener, Request, Some(1), Ok, &[]),
            node(Role::Route, "HTTPRoute zitadel/zitadel", Layer::Route, Request, Some(1), Error, &[0]),
            node(Role::Service, "Service zitadel/zitadel", Layer::Backend, Request, Some(3), Missing, &[0]),
            node(Role::App, "application", Layer::App, Request, Some(4), Unknown, &[]),
            node(Role::Cause, "Job zitadel/zitadel-setup", Layer::Backend, Cause, Some(4), Error, &[1]),
            node(Role::Application, "Application argocd/gateway", Layer::Gitops, Gitops, Some(3), Ok, &[]),
        ],
        consequences: vec![0],
        causes: vec![],
        also: vec![],
        claims: vec![],
    };
    let summary = Summary { objects: 9, errors: 2, files: 3, ..Summary::default() };
    let diagnoses = [d];
    let report = Report {
        findings: &findings,
        objects: &[],
        summary: &summary,
        version: "test",
        group_by_object: false,
        diagnoses: &diagnoses,
        trace: true,
        observations: &[],
    };
    render(&report, Format::Html, false)
}

fn chromium() -> PathBuf {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].into_iter().map(PathBuf::from).find(|p| p.exists());
    found.unwrap_or_else(|| {
        panic!(
            "chromium is not installed (looked for /usr/bin/chromium): run scripts/test.sh, which installs the \
             Debian package `chromium`, or `apt-get install -y chromium`"
        )
    })
}

/// Runs Chromium with a deadline; returns its stderr on failure.
fn screenshot(browser: &Path, html: &Path, png: &Path, profile: &Path) {
    let mut child = Command::new(browser)
        .args(["--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--window-size=1200,900"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", html.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            let out = child.wait_with_output().expect("chromium output");
            assert!(status.success(), "chromium failed ({status}): {}", String::from_utf8_lossy(&out.stderr));
            return;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium took more than 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Decodes a PNG to 8-bit RGB pixels: (width, height, pixels).
fn decode(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let file = std::fs::File::open(path).expect("screenshot written");
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("unexpected colour type {other:?}"),
    };
    let px = buf[..info.buffer_size()].chunks_exact(channels).map(|c| [c[0], c[1], c[2]]).collect();
    (info.width, info.height, px)
}

fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 6)
}

#[test]
fn chromium_draws_the_graph() {
    let browser = chromium();
    let dir = tempfile::tempdir().expect("temp dir");
    let html = dir.path().join("report.html");
    let shot = dir.path().join("shot.png");
    std::fs::write(&html, page()).expect("write page");
    screenshot(&browser, &html, &shot, &dir.path().join("profile"));
    if let Some(keep) = std::env::var_os("EDGECHECK_SCREENSHOT") {
        std::fs::copy(&shot, keep).expect("keep screenshot");
    }
    let (w, h, px) = decode(&shot);
    assert_eq!((w, h), (1200, 900), "the window size");
    let total = px.len();
    let error = px.iter().filter(|p| near(**p, ERROR_FILL)).count();
    let ok = px.iter().filter(|p| near(**p, OK_FILL)).count();
    let white = px.iter().filter(|p| near(**p, [255, 255, 255])).count();
    let mut colours: Vec<[u8; 3]> = px.clone();
    colours.sort_unstable();
    colours.dedup();
    eprintln!("{w}x{h}: error fill {error}, ok fill {ok}, white {white}, {} colours", colours.len());
    // Three error/missing boxes and four ok boxes of 190x54, less their text: thousands of pixels each.
    assert!(error > 15_000, "error-node fill: {error} pixels");
    assert!(ok > 20_000, "ok-node fill: {ok} pixels");
    assert!(white < total * 95 / 100, "not a blank page: {white} of {total} pixels white");
    assert!(colours.len() > 50, "text and lines were drawn: {} colours", colours.len());
}
