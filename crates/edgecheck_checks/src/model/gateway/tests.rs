//! The Gateway API model against hand-written manifests.

use super::*;
use crate::test_support::graph_from_text;

fn model(text: &str) -> (Graph, GatewayModel) {
    let (g, _) = graph_from_text("t.yaml", text);
    let m = GatewayModel::compute(&g);
    (g, m)
}

fn conds(
    g: &Graph,
    m: &GatewayModel,
    k: K,
    ns: Option<&str>,
    name: &str,
) -> Vec<(Option<String>, String, bool, String)> {
    let id = g.find(k, ns, name).expect("object");
    m.of(id)
        .iter()
        .map(|c| {
            (
                c.listener
                    .clone()
                    .or_else(|| c.parent.as_ref().map(|p| p.section_name.as_deref().unwrap_or_default().to_string())),
                c.condition_type.as_str().to_string(),
                c.status,
                c.reason.as_str().to_string(),
            )
        })
        .collect()
}

fn has(v: &[(Option<String>, String, bool, String)], l: Option<&str>, t: &str, s: bool, r: &str) -> bool {
    v.iter().any(|c| c.0.as_deref() == l && c.1 == t && c.2 == s && c.3 == r)
}

const GW: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: cilium}
spec: {controllerName: io.cilium/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: public, namespace: edge}
spec:
  gatewayClassName: cilium
  listeners:
  - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
  - name: https
    port: 443
    protocol: HTTPS
    hostname: "*.example.com"
    tls: {certificateRefs: [{name: wild}]}
    allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {edge: "yes"}}}}
  - name: pass
    port: 443
    protocol: TLS
    hostname: db.example.com
    tls: {mode: Passthrough}
---
apiVersion: v1
kind: Secret
metadata: {name: wild, namespace: edge}
type: kubernetes.io/tls
data: {tls.crt: "", tls.key: ""}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {edge: "yes"}}
"#;

#[test]
fn healthy_gateway_and_routes() {
    let text = format!(
        "{GW}---\n{}",
        r#"apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  parentRefs: [{name: public, namespace: edge, sectionName: https}]
  hostnames: [a.b.example.com]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: db, namespace: edge}
spec:
  parentRefs: [{name: public, sectionName: pass}]
  hostnames: [db.example.com]
  rules: [{backendRefs: [{name: db, port: 5432}]}]
"#
    );
    let (g, m) = model(&text);
    let gw = conds(&g, &m, K::GATEWAY, Some("edge"), "public");
    assert!(has(&gw, None, "Accepted", true, "Accepted"), "{gw:?}");
    assert!(has(&gw, Some("https"), "Conflicted", false, "NoConflicts"));
    assert!(has(&gw, Some("https"), "ResolvedRefs", true, "ResolvedRefs"));
    // object-level first, then listeners in spec order
    assert_eq!(gw[0].1, "Accepted");
    assert_eq!(gw[2].0.as_deref(), Some("http"));
    let web = conds(&g, &m, K::HTTP_ROUTE, Some("shop"), "web");
    assert_eq!(
        web,
        vec![
            (Some("https".into()), "Accepted".into(), true, "Accepted".into()),
            (Some("https".into()), "ResolvedRefs".into(), true, "ResolvedRefs".into()),
        ]
    );
    let gid = g.find(K::GATEWAY, Some("edge"), "public").expect("gw");
    assert_eq!(m.listener(gid, "https").map(|l| l.attached_routes), Some(1));
    assert_eq!(
        m.listener(gid, "pass").map(|l| l.supported_kinds.clone()),
        Some(vec![edgecheck_core::Str::from("TLSRoute")])
    );
    let db = conds(&g, &m, K::TLS_ROUTE, Some("edge"), "db");
    assert!(has(&db, Some("pass"), "Accepted", true, "Accepted"), "{db:?}");
    assert_eq!(m.shared_tls_ports.len(), 1);
    assert_eq!(m.shared_tls_ports[0].port, 443);
}

#[test]
fn route_rejections() {
    let text = format!(
        "{GW}---\n{}",
        r#"apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: host, namespace: shop}
spec:
  parentRefs: [{name: public, namespace: edge, sectionName: https}, {name: public, namespace: edge, sectionName: nope}, {name: public, namespace: edge, port: 8443}]
  hostnames: [example.com]
---
apiVersion: v1
kind: Namespace
metadata: {name: other}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ns, namespace: other}
spec:
  parentRefs: [{name: public, namespace: edge, sectionName: https}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: kind, namespace: edge}
spec:
  parentRefs: [{name: public, sectionName: https}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: xns, namespace: shop}
spec:
  parentRefs: [{name: public, namespace: edge, sectionName: http}]
  rules: [{backendRefs: [{name: api, namespace: edge, port: 80}]}]
"#
    );
    let (g, m) = model(&text);
    let h = conds(&g, &m, K::HTTP_ROUTE, Some("shop"), "host");
    assert!(has(&h, Some("https"), "Accepted", false, "NoMatchingListenerHostname"), "{h:?}");
    assert!(has(&h, Some("nope"), "Accepted", false, "NoMatchingParent"));
    assert!(has(&h, Some(""), "Accepted", false, "NoMatchingParent"));
    let n = conds(&g, &m, K::HTTP_ROUTE, Some("other"), "ns");
    assert!(has(&n, Some("https"), "Accepted", false, "NotAllowedByListeners"), "{n:?}");
    let k = conds(&g, &m, K::TLS_ROUTE, Some("edge"), "kind");
    assert!(has(&k, Some("https"), "Accepted", false, "NotAllowedByListeners"), "{k:?}");
    let x = conds(&g, &m, K::HTTP_ROUTE, Some("shop"), "xns");
    assert!(has(&x, Some("http"), "Accepted", true, "Accepted"));
    assert!(has(&x, Some("http"), "ResolvedRefs", false, "RefNotPermitted"), "{x:?}");
}

#[test]
fn listener_conflicts_and_refs() {
    let text = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: edge}
spec:
  gatewayClassName: x
  listeners:
  - {name: a, port: 443, protocol: HTTPS, hostname: a.com, tls: {certificateRefs: [{name: s, namespace: certs}]}}
  - {name: b, port: 443, protocol: HTTP}
  - {name: c, port: 8443, protocol: HTTPS, tls: {certificateRefs: [{name: opaque}]}}
  - {name: d, port: 8443, protocol: HTTPS, tls: {certificateRefs: [{name: made}]}}
  - {name: e, port: 9000, protocol: HTTPS, tls: {mode: Passthrough}}
  - {name: f, port: 9001, protocol: TLS, allowedRoutes: {kinds: [{kind: HTTPRoute}]}, tls: {mode: Passthrough}}
  - {name: g, port: 9002, protocol: FTP}
---
apiVersion: v1
kind: Secret
metadata: {name: opaque, namespace: edge}
type: Opaque
data: {tls.crt: ""}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: made, namespace: edge}
spec: {secretName: made, dnsNames: [x.com], issuerRef: {name: le}}
"#;
    let (g, m) = model(text);
    let v = conds(&g, &m, K::GATEWAY, Some("edge"), "gw");
    assert!(has(&v, Some("a"), "Conflicted", true, "ProtocolConflict"), "{v:?}");
    assert!(has(&v, Some("b"), "Conflicted", true, "ProtocolConflict"));
    assert!(has(&v, Some("a"), "ResolvedRefs", false, "RefNotPermitted"));
    assert!(has(&v, Some("c"), "Conflicted", true, "HostnameConflict"));
    assert!(has(&v, Some("c"), "ResolvedRefs", false, "InvalidCertificateRef"));
    assert!(has(&v, Some("d"), "ResolvedRefs", true, "ResolvedRefs"), "cert-manager makes it");
    assert!(has(&v, Some("e"), "Accepted", false, "UnsupportedValue"));
    assert!(has(&v, Some("f"), "ResolvedRefs", false, "InvalidRouteKinds"));
    assert!(has(&v, Some("g"), "Accepted", false, "UnsupportedProtocol"));
    assert!(has(&v, None, "Accepted", true, "ListenersNotValid"), "f is accepted (only its kinds are wrong)");
    assert!(has(&v, None, "Programmed", false, "Invalid"), "no listener is programmed");
    // GatewayClass `x` missing, no classes in the inventory: not reported (installed elsewhere).
    assert!(!has(&v, None, "Accepted", false, "Pending"));
}

#[test]
fn class_parameters() {
    let text = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: a}
spec: {controllerName: io.cilium/gateway-controller, parametersRef: {group: cilium.io, kind: CiliumGatewayClassConfig, name: missing, namespace: kube-system}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: b}
spec: {controllerName: x, parametersRef: {group: example.io, kind: Unknown, name: elsewhere}}
---
apiVersion: cilium.io/v2alpha1
kind: CiliumGatewayClassConfig
metadata: {name: other, namespace: kube-system}
"#;
    let (g, m) = model(text);
    assert!(has(&conds(&g, &m, K::GATEWAY_CLASS, None, "a"), None, "Accepted", false, "InvalidParameters"));
    assert!(has(&conds(&g, &m, K::GATEWAY_CLASS, None, "b"), None, "Accepted", true, "Accepted"));
}
#[test]
fn listener_sets_lose_to_the_gateway_and_carry_routes() {
    let text = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: edge}
spec:
  gatewayClassName: x
  allowedListeners: {namespaces: {from: All}}
  listeners:
  - {name: http, port: 80, protocol: HTTP, hostname: a.example.com}
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XListenerSet
metadata: {name: team, namespace: shop}
spec:
  parentRef: {name: gw, namespace: edge}
  listeners:
  - {name: dup, port: 80, protocol: HTTP, hostname: a.example.com}
  - {name: own, port: 80, protocol: HTTP, hostname: shop.example.com}
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XListenerSet
metadata: {name: closed, namespace: shop}
spec:
  parentRef: {name: other, namespace: edge}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  parentRefs: [{group: gateway.networking.x-k8s.io, kind: XListenerSet, name: team, sectionName: own}]
  hostnames: [shop.example.com]
"#;
    let (g, m) = model(text);
    let gw = conds(&g, &m, K::GATEWAY, Some("edge"), "gw");
    assert!(has(&gw, Some("http"), "Conflicted", false, "NoConflicts"), "{gw:?}");
    let ls = conds(&g, &m, K::LISTENER_SET, Some("shop"), "team");
    // One of its listeners conflicts: accepted, with the reason saying so (as a Gateway's).
    assert!(has(&ls, None, "Accepted", true, "ListenersNotValid"), "{ls:?}");
    assert!(has(&ls, Some("dup"), "Conflicted", true, "HostnameConflict"));
    assert!(has(&ls, Some("dup"), "Accepted", false, "HostnameConflict"));
    assert!(has(&ls, Some("own"), "Conflicted", false, "NoConflicts"));
    let web = conds(&g, &m, K::HTTP_ROUTE, Some("shop"), "web");
    assert!(has(&web, Some("own"), "Accepted", true, "Accepted"), "{web:?}");
    let id = g.find(K::LISTENER_SET, Some("shop"), "team").expect("set");
    assert_eq!(m.listener(id, "own").map(|l| l.attached_routes), Some(1));
    let closed = conds(&g, &m, K::LISTENER_SET, Some("shop"), "closed");
    assert!(has(&closed, None, "Accepted", false, "ParentNotAccepted"));
}

/// Of two ListenerSets with the same listener, the older wins when creation times are known (a dump), even
/// against the order of their names; in Git (no creation times) the order is by name, and the message says
/// that it is a guess.
#[test]
fn listener_set_precedence_by_creation_time() {
    let sets = |a: &str, b: &str| {
        format!(
            r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: gw, namespace: edge}}
spec:
  gatewayClassName: x
  allowedListeners: {{namespaces: {{from: Same}}}}
  listeners: [{{name: http, port: 80, protocol: HTTP, hostname: gw.example.com}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {{name: a-team, namespace: edge{a}}}
spec:
  parentRef: {{name: gw}}
  listeners: [{{name: web, port: 80, protocol: HTTP, hostname: shared.example.com}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {{name: b-team, namespace: edge{b}}}
spec:
  parentRef: {{name: gw}}
  listeners: [{{name: web, port: 80, protocol: HTTP, hostname: shared.example.com}}]
"#
        )
    };
    // b-team was created first: it wins although a-team sorts first.
    let dump = sets(
        r#", resourceVersion: "2", creationTimestamp: "2026-05-02T00:00:00Z""#,
        r#", resourceVersion: "1", creationTimestamp: "2026-05-01T00:00:00Z""#,
    );
    let (g, m) = model(&dump);
    let a = conds(&g, &m, K::LISTENER_SET_STD, Some("edge"), "a-team");
    let b = conds(&g, &m, K::LISTENER_SET_STD, Some("edge"), "b-team");
    assert!(has(&a, Some("web"), "Conflicted", true, "HostnameConflict"), "{a:?}");
    assert!(has(&a, None, "Accepted", false, "ListenersNotValid"), "{a:?}");
    assert!(has(&b, Some("web"), "Conflicted", false, "NoConflicts"), "{b:?}");
    let aid = g.find(K::LISTENER_SET_STD, Some("edge"), "a-team").expect("set");
    let msg = &m.of(aid).iter().find(|c| c.reason == Reason::HostnameConflict).expect("conflict").message;
    assert!(!msg.contains("unknown in Git"), "{msg}");
    let gid = g.find(K::GATEWAY, Some("edge"), "gw").expect("gw");
    assert_eq!(m.attached_listener_sets.get(&gid), Some(&1));
    // In Git: by name, and said to be a guess.
    let (g, m) = model(&sets("", ""));
    let b = conds(&g, &m, K::LISTENER_SET_STD, Some("edge"), "b-team");
    assert!(has(&b, Some("web"), "Conflicted", true, "HostnameConflict"), "{b:?}");
    let bid = g.find(K::LISTENER_SET_STD, Some("edge"), "b-team").expect("set");
    let msg = &m.of(bid).iter().find(|c| c.reason == Reason::HostnameConflict).expect("conflict").message;
    assert!(msg.contains("unknown in Git"), "{msg}");
}

/// Mixed TLS modes on one port follow what is known of the implementation: a conflict where it is known
/// not to support them, nothing where it does, the LSN002 record where nothing says.
#[test]
fn mixed_tls_modes_follow_supported_features() {
    let gw = |class: &str, controller: &str, status: &str| {
        format!(
            r#"
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {{name: {class}, uid: "c"}}
spec: {{controllerName: {controller}}}
{status}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {{name: gw, namespace: edge}}
spec:
  gatewayClassName: {class}
  listeners:
  - {{name: https, port: 443, protocol: HTTPS, hostname: a.example.com, tls: {{certificateRefs: [{{name: a}}]}}}}
  - {{name: pass, port: 443, protocol: TLS, hostname: b.example.com, tls: {{mode: Passthrough}}}}
"#
        )
    };
    let conflict = |text: &str| {
        let (g, m) = model(text);
        let c = conds(&g, &m, K::GATEWAY, Some("edge"), "gw");
        (has(&c, Some("pass"), "Accepted", false, "ProtocolConflict"), m.shared_tls_ports.len())
    };
    // Status with the object spelling, listing mixed mode; then the string spelling without it.
    let listed = "status: {supportedFeatures: [{name: Gateway}, {name: TLSRouteModeMixed}]}";
    let unlisted = "status: {supportedFeatures: [Gateway, TLSRoute]}";
    assert_eq!(conflict(&gw("c", "io.cilium/gateway-controller", listed)), (false, 0));
    assert_eq!(conflict(&gw("c", "io.cilium/gateway-controller", unlisted)), (true, 0));
    // No status: the table (NGINX Gateway Fabric: not supported; Envoy Gateway: supported; Cilium: unknown).
    assert_eq!(conflict(&gw("c", "gateway.nginx.org/nginx-gateway-controller", "")), (true, 0));
    assert_eq!(conflict(&gw("c", "gateway.envoyproxy.io/gatewayclass-controller", "")), (false, 0));
    assert_eq!(conflict(&gw("c", "io.cilium/gateway-controller", "")), (false, 1));
}
