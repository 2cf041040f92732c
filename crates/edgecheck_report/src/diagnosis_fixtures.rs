//! Two hand-built diagnoses over the canonical findings plus three more, for the diagram renderers.
//!
//! Findings: 0 LOD001 (in no diagnosis), 1 LOD004 warning on Service `shop/web` (diagnosis 1), 2 an
//! endpoint info (in no diagnosis), 3 BKD001 Service missing, 4 BKD010 Job failed (the root cause of
//! diagnosis 0; its message carries a `<script>`), 5 TLS005 certificate expiring.
//!
//! Diagnosis 0, `https://shop.example.com/`, broken: name → entry → HTTPRoute (error) → Service
//! (missing) → Job (cause, error, root cause) and app (unknown); a Certificate side branch (warning)
//! whose label carries quotes, a backslash, a newline and a `<script>`. Chain: HTTPRoute → Service →
//! Job. Diagnosis 1, `http://api.example.com/`, at risk: name → Ingress → Service (warning, root
//! cause) → app, with an Application side branch.

use edgecheck_checks::diagnose::{Branch, ChainLink, Diagnosis, NodeState, PathNode, Role, TraceTarget, Verdict};
use edgecheck_checks::find_check;
use edgecheck_core::kind::K;
use edgecheck_core::{Finding, Layer, ObjectRef, Severity};

use crate::{fixtures, Report};

pub const PLANTED_LABEL: &str = "Certificate shop/web say \"hi\" \\ <script>alert(1)</script>\nsecond line";

fn finding(code: &str, severity: Severity, object: ObjectRef, file: &str, line: u32, message: &str) -> Finding {
    Finding {
        meta: find_check(code).expect("known code").meta(),
        severity,
        object,
        related: vec![],
        file: Some(file.into()),
        line: Some(line),
        message: message.into(),
        evidence: vec![],
        fix: None,
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

pub fn findings() -> Vec<Finding> {
    let mut v = fixtures::findings();
    let route = ObjectRef::new(K::HTTP_ROUTE, Some("shop"), "web");
    let mut missing = finding(
        "BKD001",
        Severity::Error,
        route.clone(),
        "apps/shop/route.yaml",
        12,
        "HTTPRoute `shop/web` sends traffic to Service `shop/web`, which does not exist; requests to this backend fail",
    );
    missing.evidence = vec!["backendRefs[0]: Service shop/web port 80".into()];
    missing.fix = Some("create Service `shop/web` or point the route at an existing one".into());
    missing.related = vec![ObjectRef::new(K::SERVICE, Some("shop"), "web")];
    v.push(missing);
    let mut job = finding(
        "BKD010",
        Severity::Error,
        ObjectRef::new(K::JOB, Some("shop"), "migrate"),
        "apps/shop/job.yaml",
        4,
        "Job `shop/migrate` failed: <script>alert(1)</script> & \"quoted\"",
    );
    job.evidence = vec!["condition Failed=True BackoffLimitExceeded".into(), "Event: exit code 1".into()];
    job.fix = Some("fix the Job's input and re-run it".into());
    v.push(job);
    let mut cert = finding(
        "TLS005",
        Severity::Warning,
        ObjectRef::new(K::CERTIFICATE, Some("shop"), "web"),
        "apps/shop/cert.yaml",
        7,
        "certificate in Secret `shop/web-tls` expires in 9 days",
    );
    cert.evidence = vec!["notAfter 2026-06-10T00:00:00Z".into()];
    v.push(cert);
    v
}

#[allow(clippy::too_many_arguments)]
fn node(
    role: Role,
    label: &str,
    layer: Layer,
    branch: Branch,
    parent: Option<usize>,
    state: NodeState,
    detail: &[&str],
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
        detail: detail.iter().map(|s| (*s).to_string()).collect(),
        findings: findings.to_vec(),
    }
}

pub fn diagnoses() -> Vec<Diagnosis> {
    use Branch::*;
    use NodeState::*;
    let route = ObjectRef::new(K::HTTP_ROUTE, Some("shop"), "web");
    let svc = ObjectRef::new(K::SERVICE, Some("shop"), "web");
    let job = ObjectRef::new(K::JOB, Some("shop"), "migrate");
    let shop = Diagnosis {
        target: TraceTarget::parse("https://shop.example.com/").expect("target"),
        verdict: Verdict::Broken,
        layer: Some(Layer::Backend),
        passthrough: false,
        summary: "https://shop.example.com/: broken at backend: Service `shop/web` does not exist — root cause: \
                  Job `shop/migrate` failed"
            .into(),
        root_cause: Some(4),
        breaks_at: Some(3),
        chain: vec![
            ChainLink {
                object: route,
                node: 2,
                state: "ResolvedRefs=False BackendNotFound".into(),
                finding: Some(3),
                layer: Layer::Route,
            },
            ChainLink {
                object: svc.clone(),
                node: 3,
                state: "missing".into(),
                finding: Some(3),
                layer: Layer::Backend,
            },
            ChainLink {
                object: job,
                node: 5,
                state: "failed (BackoffLimitExceeded)".into(),
                finding: Some(4),
                layer: Layer::Backend,
            },
        ],
        nodes: vec![
            node(Role::Name, "shop.example.com", Layer::Dns, Request, None, Ok, &["address 192.0.2.10"], &[]),
            node(
                Role::Entry,
                "Gateway edge/public listener `https` :443 HTTPS",
                Layer::Listener,
                Request,
                Some(0),
                Ok,
                &[],
                &[],
            ),
            node(Role::Route, "HTTPRoute shop/web", Layer::Route, Request, Some(1), Error, &["rule 0"], &[3]),
            node(
                Role::Service,
                "Service shop/web (not in the inventory)",
                Layer::Backend,
                Request,
                Some(2),
                Missing,
                &[],
                &[3],
            ),
            node(
                Role::Producer,
                PLANTED_LABEL,
                Layer::Tls,
                Certificate,
                Some(1),
                Warning,
                &["notAfter 2026-06-10"],
                &[5],
            ),
            node(Role::Cause, "Job shop/migrate", Layer::Backend, Cause, Some(3), Error, &[], &[4]),
            node(Role::App, "application", Layer::App, Request, Some(3), Unknown, &["not probed"], &[]),
        ],
        consequences: vec![3],
        causes: vec![],
        also: vec![5],
        claims: vec!["HTTPRoute shop/web claims shop.example.com".into()],
        root: None,
        cluster: None,
    };
    let api = Diagnosis {
        target: TraceTarget::parse("http://api.example.com/").expect("target"),
        verdict: Verdict::AtRisk,
        layer: Some(Layer::Backend),
        passthrough: false,
        summary: "http://api.example.com/: at risk at backend: Service `shop/web` is defined twice".into(),
        root_cause: Some(1),
        breaks_at: Some(2),
        chain: vec![ChainLink {
            object: svc,
            node: 2,
            state: "defined twice".into(),
            finding: Some(1),
            layer: Layer::Backend,
        }],
        nodes: vec![
            node(Role::Name, "api.example.com", Layer::Dns, Request, None, Ok, &[], &[]),
            node(Role::Entry, "Ingress shop/api", Layer::Listener, Request, Some(0), Ok, &["class nginx"], &[]),
            node(Role::Service, "Service shop/web", Layer::Backend, Request, Some(1), Warning, &["port 80"], &[1]),
            node(Role::App, "application", Layer::App, Request, Some(2), Unknown, &["not probed"], &[]),
            node(
                Role::Application,
                "Application argocd/shop",
                Layer::Gitops,
                Gitops,
                Some(1),
                Ok,
                &["sync Synced"],
                &[],
            ),
        ],
        consequences: vec![],
        causes: vec![],
        also: vec![],
        claims: vec![],
        root: None,
        cluster: None,
    };
    vec![shop, api]
}

/// Calls `f` with a report holding both diagnoses.
pub fn with_report<T>(f: impl FnOnce(&Report<'_>) -> T) -> T {
    let (findings, objects, summary, diagnoses) = (findings(), fixtures::objects(), fixtures::summary(), diagnoses());
    f(&Report {
        findings: &findings,
        objects: &objects,
        summary: &summary,
        version: "0.0.0-test",
        group_by_object: false,
        diagnoses: &diagnoses,
        trace: false,
        render_tools: &[],
        observations: &[],
    })
}
