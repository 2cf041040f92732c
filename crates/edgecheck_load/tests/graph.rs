//! The graph built from loaded files: what it indexes and shares, read through its queries.

use edgecheck_core::kind::K;
use edgecheck_core::{EdgeKind, Graph, Options, Target};

fn graph(text: &str) -> Graph {
    Graph::build(edgecheck_load::load_text("t.yaml", text), &Options::default())
}

/// Objects are counted per kind and namespace (numbered namespaces, counts found by binary search).
#[test]
fn objects_are_counted_by_kind_and_namespace() {
    let obj = |kind: &str, ns: &str, name: &str| {
        format!("apiVersion: v1\nkind: {kind}\nmetadata: {{name: {name}, namespace: {ns}}}\n")
    };
    let text = [
        obj("Secret", "b", "s1"),
        obj("ConfigMap", "a", "c1"),
        obj("Secret", "a", "s2"),
        obj("Secret", "b", "s3"),
        obj("ConfigMap", "c", "c2"),
    ]
    .join("---\n");
    let g = graph(&text);
    let count = |k: K, ns: &str| g.count_in_namespace(k, ns);
    assert_eq!((count(K::SECRET, "a"), count(K::SECRET, "b"), count(K::SECRET, "c")), (1, 2, 0));
    assert_eq!((count(K::CONFIG_MAP, "a"), count(K::CONFIG_MAP, "b"), count(K::CONFIG_MAP, "c")), (1, 0, 1));
    assert_eq!((count(K::SECRET, "nowhere"), count(K::SERVICE, "a")), (0, 0));
}

/// References that find nothing share one copy of what they name (a repository's every Certificate names
/// the one ClusterIssuer, #17); different names are different copies.
#[test]
fn missing_references_to_one_object_share_it() {
    let cert = |name: &str, issuer: &str| {
        format!(
            "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {{name: {name}, namespace: a}}\nspec:\n  \
             secretName: {name}-tls\n  dnsNames: [{name}.example.com]\n  issuerRef: {{name: {issuer}, kind: ClusterIssuer}}\n"
        )
    };
    let g = graph(&[cert("x", "le"), cert("y", "le"), cert("z", "other")].join("---\n"));
    let issuer = |name: &str| {
        let id = g.find(K::CERTIFICATE, Some("a"), name).expect("certificate");
        match &g.edges_from_kind(id, EdgeKind::Issuer).next().expect("issuer edge").to {
            Target::Missing(r) => r.clone(),
            other => panic!("{other:?}"),
        }
    };
    let (x, y, z) = (issuer("x"), issuer("y"), issuer("z"));
    assert!(std::sync::Arc::ptr_eq(&x, &y));
    assert_eq!((x.kind.as_str(), x.name.as_str()), ("ClusterIssuer", "le"));
    assert!(!std::sync::Arc::ptr_eq(&x, &z));
    assert_eq!(z.name, "other");
}
