//! The canonical set of findings every renderer is tested over.

use edgecheck_checks::model::{ExpectedCondition, Health, HealthStatus, ParentKey};
use edgecheck_checks::{find_check, ObjectEntry, Summary};
use edgecheck_core::kind::K;
use edgecheck_core::{Finding, ObjectRef, Severity};

pub fn findings() -> Vec<Finding> {
    let lod1 = find_check("LOD001").expect("LOD001").meta();
    let lod4 = find_check("LOD004").expect("LOD004").meta();
    vec![
        Finding {
            meta: lod1,
            severity: Severity::Error,
            object: ObjectRef {
                api_version: None,
                kind: "File".into(),
                namespace: None,
                name: "apps/shop/ingress.yaml".into(),
            },
            related: vec![],
            file: Some("apps/shop/ingress.yaml".into()),
            line: Some(14),
            message: "invalid YAML: did not find expected key | pipes (column 5)".into(),
            evidence: vec!["apps/shop/ingress.yaml:14".into()],
            fix: Some("fix the syntax at this line".into()),
            patch: None,
            ignore_annotation: None,
            port: None,
            hosts: Vec::new(),
            field: None,
            root: None,
            cluster: None,
            build: None,
            notes: vec![],
        },
        Finding {
            meta: lod4,
            severity: Severity::Warning,
            object: ObjectRef::new(K::SERVICE, Some("shop"), "web"),
            related: vec![ObjectRef::new(K::INGRESS, Some("shop"), "web")],
            file: Some("apps/shop/svc.yaml".into()),
            line: Some(3),
            message: "Service `shop/web` is defined twice".into(),
            evidence: vec!["first definition: apps/shop/svc-old.yaml:1".into()],
            fix: Some("delete one".into()),
            patch: Some("metadata:\n  name: web-v2\n".into()),
            ignore_annotation: None,
            port: None,
            hosts: Vec::new(),
            field: None,
            root: None,
            cluster: None,
            build: None,
            notes: vec![],
        },
        Finding {
            meta: lod4,
            severity: Severity::Info,
            object: ObjectRef::endpoint("https://shop.example.com/"),
            related: vec![],
            file: None,
            line: None,
            message: "an endpoint finding without a file".into(),
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
        },
    ]
}

pub fn objects() -> Vec<ObjectEntry> {
    vec![ObjectEntry {
        object: ObjectRef::new(K::HTTP_ROUTE, Some("shop"), "web"),
        file: Some("apps/shop/route.yaml".into()),
        line: Some(1),
        build: None,
        root: None,
        cluster: None,
        health: Some(Health {
            status: HealthStatus::Degraded,
            message: "ResolvedRefs=False BackendNotFound".into(),
            layer: None,
            own: false,
        }),
        expected_conditions: vec![ExpectedCondition {
            parent: Some(std::sync::Arc::new(ParentKey {
                kind: Some("Gateway".into()),
                namespace: Some("edge".into()),
                name: "public".into(),
                section_name: Some("https".into()),
                ..ParentKey::default()
            })),
            listener: None,
            condition_type: edgecheck_checks::model::condition::ConditionType::ResolvedRefs,
            status: false,
            reason: edgecheck_checks::model::condition::Reason::BackendNotFound,
            message: "".into(),
        }],
        listeners: vec![],
    }]
}

pub fn summary() -> Summary {
    Summary {
        objects: 12,
        errors: 1,
        warnings: 1,
        infos: 1,
        suppressed: 2,
        files: 4,
        skipped_documents: 1,
        skipped_templates: 3,
        targets: 0,
        ..Summary::default()
    }
}
