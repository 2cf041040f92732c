//! The HTML report, drawn by a real browser at 900 px wide: headless Chromium screenshots a page with
//! one broken diagnosis whose names are long, and
//!
//! - the screenshot shows the graph (boxes in the error, ok and unknown fill colours), not a blank page,
//!   and an arrowhead at the end of every edge (the edge's colour on both sides of its line, just
//!   before the child's box);
//! - the page as Chromium laid it out (a copy with a measuring script appended, `--dump-dom`) has no
//!   horizontal scrolling, every text line inside its box, no box over another, no text smaller than
//!   11 px, and every edge's marker defined;
//! - the SVG holds every label whole, wrapped onto several lines, never cut with `…`.
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

/// The fills the renderer uses for error/missing, ok and unknown boxes.
const ERROR_FILL: [u8; 3] = [0xf8, 0xc4, 0xc4];
const OK_FILL: [u8; 3] = [0xc8, 0xeb, 0xc9];
const UNKNOWN_FILL: [u8; 3] = [0xe4, 0xe4, 0xe4];

/// The window: 900 px wide, tall enough to hold the whole graph.
const WIDTH: u32 = 900;
const HEIGHT: u32 = 1400;

/// Long names: namespaces and names with dashes, a dotted host name, a hash no line can hold.
const HOST: &str = "auth.very-long-subdomain-for-the-identity-provider.eu-west-1.customer-facing.example.com";
const ROUTE: &str = "HTTPRoute zitadel-identity-production/zitadel-login-console-and-api-routes";
const SERVICE: &str = "Service zitadel-identity-production/zitadel-primary-backend (not in the inventory)";
const JOB: &str = "Job zitadel-identity-production/zitadel-setup-database-migrations-7f9c2";
const SECRET: &str = "Secret zitadel-identity-production/0123456789abcdef0123456789abcdef0123456789abcdef";

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
        hosts: Vec::new(),
        field: None,
        root: None,
        cluster: None,
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

fn diagnosis() -> Diagnosis {
    let route =
        ObjectRef::new(K::HTTP_ROUTE, Some("zitadel-identity-production"), "zitadel-login-console-and-api-routes");
    let svc = ObjectRef::new(K::SERVICE, Some("zitadel-identity-production"), "zitadel-primary-backend");
    let job = ObjectRef::new(K::JOB, Some("zitadel-identity-production"), "zitadel-setup-database-migrations-7f9c2");
    use Branch::*;
    use NodeState::*;
    let mut name = node(Role::Name, HOST, Layer::Dns, Request, None, Unknown, &[]);
    name.detail = vec!["not probed".into()];
    let mut app = node(Role::App, "application", Layer::App, Request, Some(4), Unknown, &[]);
    app.detail = vec!["not probed".into()];
    Diagnosis {
        target: TraceTarget::parse(&format!("https://{HOST}/")).expect("target"),
        verdict: Verdict::Broken,
        layer: Some(Layer::Backend),
        passthrough: false,
        summary: format!("https://{HOST}/: broken at backend — root cause: {job} failed"),
        root_cause: Some(1),
        breaks_at: Some(4),
        chain: vec![
            ChainLink {
                object: route.clone(),
                node: 3,
                state: "ResolvedRefs=False".into(),
                finding: Some(0),
                layer: Layer::Route,
            },
            ChainLink { object: svc, node: 4, state: "missing".into(), finding: Some(0), layer: Layer::Backend },
            ChainLink { object: job, node: 6, state: "failed".into(), finding: Some(1), layer: Layer::Backend },
        ],
        nodes: vec![
            name,
            node(
                Role::Entry,
                "Gateway gateway-system/public-internet-facing listener `https-wildcard` :443 HTTPS",
                Layer::Listener,
                Request,
                Some(0),
                Ok,
                &[],
            ),
            node(Role::Class, "GatewayClass cilium", Layer::Listener, Request, Some(1), Ok, &[]),
            node(Role::Route, ROUTE, Layer::Route, Request, Some(1), Error, &[0]),
            node(Role::Service, SERVICE, Layer::Backend, Request, Some(3), Missing, &[0]),
            app,
            node(Role::Cause, JOB, Layer::Backend, Cause, Some(4), Error, &[1]),
            node(Role::Secret, SECRET, Layer::Secrets, Secrets, Some(6), Ok, &[]),
            node(
                Role::Application,
                "Application argocd/zitadel-identity-production-eu-west-1-cluster-a",
                Layer::Gitops,
                Gitops,
                Some(3),
                Ok,
                &[],
            ),
        ],
        consequences: vec![0],
        causes: vec![],
        also: vec![],
        claims: vec![],
        root: None,
        cluster: None,
    }
}

fn page(d: &Diagnosis) -> String {
    let route = d.chain[0].object.clone();
    let job = d.chain[2].object.clone();
    let findings = vec![
        finding(
            "BKD001",
            route.clone(),
            "apps/identity/production/eu-west-1/zitadel/httproute-login-console-and-api.yaml",
            9,
            &format!("{route} sends traffic to {}, which does not exist", d.chain[1].object),
        ),
        finding("BKD010", job.clone(), "job.yaml", 3, &format!("{job} failed (BackoffLimitExceeded)")),
    ];
    let summary = Summary { objects: 9, errors: 2, files: 3, ..Summary::default() };
    let diagnoses = [d.clone()];
    let report = Report {
        findings: &findings,
        objects: &Vec::new(),
        summary: &summary,
        version: "test",
        group_by_object: false,
        diagnoses: &diagnoses,
        trace: true,
        render_tools: &[],
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

/// Runs headless Chromium at the test's window size on `html` with `args`, under a deadline; returns
/// its standard output.
fn chromium_run(browser: &Path, html: &Path, profile: &Path, args: &[String]) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let stdout_path = dir.path().join("stdout");
    let mut child = Command::new(browser)
        .args(["--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--force-device-scale-factor=1"])
        .arg(format!("--window-size={WIDTH},{HEIGHT}"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", html.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).expect("stdout file"))
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            let out = child.wait_with_output().expect("chromium output");
            assert!(status.success(), "chromium failed ({status}): {}", String::from_utf8_lossy(&out.stderr));
            return std::fs::read_to_string(&stdout_path).expect("chromium's output");
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
    near_by(a, b, 6)
}

fn near_by(a: [u8; 3], b: [u8; 3], by: u8) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= by)
}

/// Measures the page as laid out and writes one line per fact into `<pre id="measured">`:
/// `page INNER_WIDTH SCROLL_WIDTH`, `svg RIGHT SCALE`, `box SVG NODE LEFT TOP RIGHT BOTTOM` (client px),
/// `text SVG NODE LEFT_ROOM RIGHT_ROOM TOP_ROOM BOTTOM_ROOM EFFECTIVE_PX TEXT` (room between the text and
/// its box's sides, in the SVG's units), `edge SVG TIP_X TIP_Y STROKE MARKER` (client px of the
/// arrowhead's tip: its marker's length past the path's end, the way the path last runs; MARKER is
/// `defined`, `undefined` or `none`).
const MEASURE: &str = r#"<script>
(function () {
  var out = ['page ' + window.innerWidth + ' ' + document.documentElement.scrollWidth];
  document.querySelectorAll('svg').forEach(function (svg, si) {
    var r = svg.getBoundingClientRect();
    var scale = r.width / svg.viewBox.baseVal.width;
    out.push('svg ' + r.right + ' ' + scale);
    svg.querySelectorAll('g.node').forEach(function (g, gi) {
      var rect = g.querySelector('rect.box') || g.querySelector('rect:last-of-type');
      var box = rect.getBBox();
      var c = rect.getBoundingClientRect();
      out.push(['box', si, gi, c.left, c.top, c.right, c.bottom].join(' '));
      g.querySelectorAll('text').forEach(function (t) {
        var b = t.getBBox();
        var px = parseFloat(getComputedStyle(t).fontSize) * scale;
        out.push(['text', si, gi, b.x - box.x, box.x + box.width - b.x - b.width, b.y - box.y,
          box.y + box.height - b.y - b.height, px, JSON.stringify(t.textContent)].join(' '));
      });
    });
    svg.querySelectorAll('path.edge').forEach(function (p) {
      var ref = p.getAttribute('marker-end');
      var m = ref && ref.indexOf('url(#') === 0 ? svg.querySelector(ref.slice(4, -1)) : null;
      var len = p.getTotalLength();
      var end = p.getPointAtLength(len), before = p.getPointAtLength(Math.max(0, len - 1));
      var dx = end.x - before.x, dy = end.y - before.y, n = Math.hypot(dx, dy) || 1;
      var arrow = m ? m.markerWidth.baseVal.value : 0;
      var tip = new DOMPoint(end.x + arrow * dx / n, end.y + arrow * dy / n).matrixTransform(p.getScreenCTM());
      out.push(['edge', si, tip.x, tip.y, p.getAttribute('stroke'), ref ? (m ? 'defined' : 'undefined') : 'none'].join(' '));
    });
  });
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = out.join('\n');
  document.body.appendChild(pre);
})();
</script>
"#;

/// The lines of `<pre id="measured">` in Chromium's dump of the measured page.
fn measured(dom: &str) -> Vec<String> {
    let start = dom.find("<pre id=\"measured\">").unwrap_or_else(|| panic!("the measuring script ran: {dom}"));
    let rest = &dom[start + "<pre id=\"measured\">".len()..];
    let text = &rest[..rest.find("</pre>").expect("pre ends")];
    text.lines()
        .map(|l| l.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
        .collect()
}

fn num(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("a number: {s}"))
}

/// The label lines of each `<g class="node …">`, in order, unescaped.
fn label_lines(html: &str) -> Vec<Vec<String>> {
    html.split("<g class=\"node ")
        .skip(1)
        .map(|g| {
            let g = &g[..g.find("</g>").expect("group ends")];
            g.split("<text class=\"label\"")
                .skip(1)
                .map(|t| {
                    let t = &t[t.find('>').expect("tag ends") + 1..t.find("</text>").expect("text ends")];
                    t.replace("&lt;", "<")
                        .replace("&gt;", ">")
                        .replace("&quot;", "\"")
                        .replace("&#39;", "'")
                        .replace("&amp;", "&")
                })
                .collect()
        })
        .collect()
}

#[test]
fn html_labels_are_whole_and_edges_have_arrowheads() {
    let d = diagnosis();
    let html = page(&d);
    let svg = &html[html.find("<svg ").expect("svg")..html.find("</svg>").expect("svg ends")];
    assert!(!svg.contains('…'), "no label is cut");
    // (a) Every label whole, the long ones over several lines.
    let labels = label_lines(svg);
    assert_eq!(labels.len(), d.nodes.len(), "a group per node");
    for (node, lines) in d.nodes.iter().zip(&labels) {
        assert_eq!(lines.concat().replace(' ', ""), node.label.replace(' ', ""), "{lines:?}");
        if node.label.chars().count() > 60 {
            assert!(lines.len() >= 2, "{} is wrapped: {lines:?}", node.label);
        }
    }
    // The host name breaks at its dots and dashes; the hash, longer than a line, is broken hard.
    let host = &labels[0];
    assert!(host[..host.len() - 1].iter().all(|l| l.ends_with(['.', '-'])), "{host:?}");
    assert!(labels[7].iter().any(|l| l.chars().all(|c| c.is_ascii_hexdigit()) && l.len() > 20), "{:?}", labels[7]);
    // (b) One marker per kind, defined once; every edge ends in one that is defined.
    let defs = &svg[svg.find("<defs>").expect("defs")..svg.find("</defs>").expect("defs end")];
    let ids: Vec<&str> = defs.split("<marker id=\"").skip(1).map(|m| &m[..m.find('"').expect("id ends")]).collect();
    assert!(!ids.is_empty(), "an arrowhead marker is defined");
    assert_eq!(svg.matches("<marker ").count(), ids.len(), "markers are only in <defs>");
    let edges: Vec<&str> = svg.lines().filter(|l| l.starts_with("<path class=\"edge")).collect();
    assert_eq!(edges.len(), d.nodes.iter().filter(|n| n.parent.is_some()).count(), "an edge per parent");
    for e in &edges {
        let used = e.split("marker-end=\"url(#").nth(1).map(|r| &r[..r.find(')').expect("url ends")]);
        assert!(used.is_some_and(|id| ids.contains(&id)), "the edge ends in a defined arrowhead: {e}");
    }
}

#[test]
fn chromium_draws_the_graph_readably_at_900px() {
    let browser = chromium();
    let d = diagnosis();
    let html = page(&d);
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("report.html");
    let shot = dir.path().join("shot.png");
    std::fs::write(&file, &html).expect("write page");
    chromium_run(&browser, &file, &dir.path().join("profile"), &[format!("--screenshot={}", shot.display())]);
    if let Some(keep) = std::env::var_os("EDGECHECK_SCREENSHOT") {
        std::fs::copy(&shot, keep).expect("keep screenshot");
    }
    // The same page with the measuring script (the report itself has none).
    let probe = dir.path().join("measure.html");
    std::fs::write(&probe, html.replace("</body>", &format!("{MEASURE}</body>"))).expect("write page");
    let facts = measured(&chromium_run(&browser, &probe, &dir.path().join("profile2"), &["--dump-dom".into()]));

    // (c) Nothing sticks out at 900 px, and nothing is too small to read. Every problem is listed.
    let mut problems: Vec<String> = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            problems.push(what);
        }
    };
    let mut boxes: Vec<[f64; 4]> = Vec::new();
    let mut tips: Vec<(f64, f64, [u8; 3])> = Vec::new();
    let (mut texts, mut svgs) = (0, 0);
    for f in &facts {
        let w: Vec<&str> = f.split(' ').collect();
        match w[0] {
            "page" => check(num(w[2]) <= num(w[1]), format!("horizontal scrolling: {f}")),
            "svg" => {
                svgs += 1;
                check(num(w[1]) <= f64::from(WIDTH), format!("the drawing sticks out of the window: {f}"));
            }
            "box" => boxes.push([num(w[3]), num(w[4]), num(w[5]), num(w[6])]),
            "text" => {
                texts += 1;
                for (room, side) in w[3..7].iter().zip(["left", "right", "top", "bottom"]) {
                    check(num(room) >= 0.0, format!("text out of its box ({side}): {f}"));
                }
                check(num(w[7]) >= 11.0, format!("text under 11 px: {f}"));
            }
            "edge" => {
                check(w[5] == "defined", format!("an edge without a defined arrowhead: {f}"));
                let rgb = u32::from_str_radix(w[4].trim_start_matches('#'), 16).expect("a #rrggbb stroke");
                let [_, r, g, b] = rgb.to_be_bytes();
                tips.push((num(w[2]), num(w[3]), [r, g, b]));
            }
            _ => {}
        }
    }
    check(svgs == 1, format!("{svgs} drawings"));
    check(boxes.len() == d.nodes.len(), format!("{} boxes for {} nodes", boxes.len(), d.nodes.len()));
    check(texts > 2 * d.nodes.len(), format!("only {texts} lines of text"));
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            let apart = a[2] <= b[0] || b[2] <= a[0] || a[3] <= b[1] || b[3] <= a[1];
            check(apart, format!("boxes overlap: {a:?} {b:?}"));
        }
        check(a[3] <= f64::from(HEIGHT), format!("a box below the screenshot: {a:?}"));
    }

    let (w, h, px) = decode(&shot);
    assert_eq!((w, h), (WIDTH, HEIGHT), "the window size");
    let at = |x: f64, y: f64| -> Option<[u8; 3]> {
        let (x, y) = (x.floor(), y.floor());
        (x >= 0.0 && y >= 0.0 && x < f64::from(w) && y < f64::from(h)).then(|| px[y as usize * w as usize + x as usize])
    };
    // An arrowhead: the edge's colour on both sides of its line (2 and 3 px off it), 7 to 9 px before the
    // tip, where the head is 7 to 9 px wide and the line at most 3.
    check(tips.len() == d.nodes.len() - 1, format!("{} edges for {} nodes", tips.len(), d.nodes.len()));
    for &(x, y, colour) in &tips {
        for side in [-1.0, 1.0] {
            let hits = (7..=9)
                .flat_map(|back| (2..=3).map(move |off| (back, off)))
                .filter(|&(back, off)| {
                    at(x - f64::from(back), y + side * f64::from(off)).is_some_and(|p| near_by(p, colour, 40))
                })
                .count();
            check(hits >= 3, format!("no arrowhead at ({x}, {y}), side {side}: {hits} of 6 pixels in {colour:?}"));
        }
    }

    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));

    let total = px.len();
    let error = px.iter().filter(|p| near(**p, ERROR_FILL)).count();
    let ok = px.iter().filter(|p| near(**p, OK_FILL)).count();
    let unknown = px.iter().filter(|p| near(**p, UNKNOWN_FILL)).count();
    let white = px.iter().filter(|p| near(**p, [255, 255, 255])).count();
    let mut colours: Vec<[u8; 3]> = px.clone();
    colours.sort_unstable();
    colours.dedup();
    eprintln!(
        "{w}x{h}: error fill {error}, ok fill {ok}, unknown fill {unknown}, white {white}, {} colours",
        colours.len()
    );
    // Three error/missing boxes, four ok ones and two unknown (the unprobed name and the application)
    // of 360 px by 60 or more, less their text: thousands of pixels each.
    assert!(error > 3 * 12_000, "error-node fill: {error} pixels");
    assert!(ok > 4 * 12_000, "ok-node fill: {ok} pixels");
    assert!(unknown > 2 * 12_000, "unknown-node fill (the unprobed name is not drawn fine): {unknown} pixels");
    assert!(white < total * 95 / 100, "not a blank page: {white} of {total} pixels white");
    assert!(colours.len() > 50, "text and lines were drawn: {} colours", colours.len());
}
