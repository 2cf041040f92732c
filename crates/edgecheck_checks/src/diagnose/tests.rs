//! Who claims a host, how the path is built, and where the root cause lands.

use edgecheck_core::{Graph, Layer, Options};

use super::*;
use crate::select::Selection;

fn run(yaml: &str, url: &str) -> (Diagnosis, Vec<Finding>) {
    let options = Options::default();
    let graph = Graph::build(edgecheck_load::load_text("t.yaml", yaml), &options);
    let t = [TraceTarget::parse(url).expect("url")];
    let mut a = crate::analyze(
        &graph,
        &options,
        crate::test_support::NOW,
        &Selection::default(),
        &[],
        &[],
        Diagnose::Targets(&t),
    );
    (a.diagnoses.remove(0), a.findings)
}

fn entry(d: &Diagnosis) -> &PathNode {
    d.nodes.iter().find(|n| n.role == Role::Entry).expect("entry")
}

fn claimed_by(d: &Diagnosis) -> &str {
    d.claims.first().map(String::as_str).unwrap_or("")
}

#[test]
fn targets_parse_like_urls() {
    let t = TraceTarget::parse("https://Shop.Example.com.:8443/api?x=1").expect("url");
    assert_eq!((t.host.as_str(), t.port, t.path.as_str()), ("shop.example.com", 8443, "/api"));
    assert_eq!(t.target, "https://shop.example.com:8443/api");
    let t = TraceTarget::parse("grpcs://api.example.com").expect("url");
    assert_eq!((t.port, t.tls(), t.grpc()), (443, true, true));
    assert_eq!(TraceTarget::parse("shop.example.com").expect("bare").target, "https://shop.example.com/");
    assert!(TraceTarget::parse("ftp://x/").is_none());
    assert!(TraceTarget::parse("https://:443/").is_none());
    assert!(TraceTarget::parse("https://h:99999/").is_none());
}

const INGRESSES: &str = r#"
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: wildcard, namespace: web}
spec:
  ingressClassName: nginx
  rules:
    - host: "*.example.com"
      http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: catchall, port: {number: 80}}}}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: shop, namespace: web}
spec:
  ingressClassName: nginx
  rules:
    - host: shop.example.com
      http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: front, port: {number: 80}}}}
          - {path: /api, pathType: Prefix, backend: {service: {name: api, port: {number: 80}}}}
"#;

#[test]
fn exact_host_beats_wildcard_and_the_longest_path_wins() {
    let (d, _) = run(INGRESSES, "https://shop.example.com/api/v1/items");
    assert!(claimed_by(&d).contains("Ingress `web/shop`"), "{:?}", d.claims);
    assert!(d.claims.iter().any(|c| c.contains("also claimed by Ingress `web/wildcard`")), "{:?}", d.claims);
    let svc = d.nodes.iter().find(|n| n.role == Role::Service).expect("service");
    assert_eq!(svc.object.as_ref().map(|o| o.name.as_str()), Some("api"));
    let (d, _) = run(INGRESSES, "https://shop.example.com/apix");
    let svc = d.nodes.iter().find(|n| n.role == Role::Service).expect("service");
    assert_eq!(svc.object.as_ref().map(|o| o.name.as_str()), Some("front"), "Prefix matches by path element");
    // One label only for an Ingress wildcard.
    let (d, _) = run(INGRESSES, "https://a.b.example.com/");
    assert_eq!(d.verdict, Verdict::Unclaimed, "{:?}", d.claims);
    let (d, _) = run(INGRESSES, "https://blog.example.com/");
    assert!(claimed_by(&d).contains("Ingress `web/wildcard`"), "{:?}", d.claims);
}

#[test]
fn traefik_rules_decide_by_host_and_path() {
    let yaml = r#"
apiVersion: traefik.io/v1alpha1
kind: IngressRoute
metadata: {name: shop, namespace: web}
spec:
  entryPoints: [websecure]
  routes:
    - match: Host(`shop.example.com`) && PathPrefix(`/api`)
      kind: Rule
      services: [{name: api, port: 80}]
    - match: Host(`shop.example.com`) && !PathPrefix(`/api`)
      kind: Rule
      services: [{name: front, port: 80}]
  tls: {secretName: shop-tls}
"#;
    let (d, _) = run(yaml, "https://shop.example.com/api/x");
    let svc = d.nodes.iter().find(|n| n.role == Role::Service).expect("service");
    assert_eq!(svc.object.as_ref().map(|o| o.name.as_str()), Some("api"));
    let (d, _) = run(yaml, "https://shop.example.com/cart");
    let svc = d.nodes.iter().find(|n| n.role == Role::Service).expect("service");
    assert_eq!(svc.object.as_ref().map(|o| o.name.as_str()), Some("front"));
    assert_eq!(entry(&d).label, "Traefik entry points websecure");
    let tls = d.nodes.iter().find(|n| n.role == Role::Tls).expect("tls");
    assert_eq!(tls.object.as_ref().map(|o| o.name.as_str()), Some("shop-tls"));
    let (d, _) = run(yaml, "https://other.example.com/");
    assert_eq!(d.verdict, Verdict::Unclaimed);
}

const GATEWAY: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: cilium}
spec: {controllerName: io.cilium/gateway-controller}
---
apiVersion: cilium.io/v2
kind: CiliumLoadBalancerIPPool
metadata: {name: lan}
spec: {blocks: [{cidr: 192.168.10.240/28}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: edge}
spec:
  gatewayClassName: cilium
  listeners:
    - name: https
      port: 443
      protocol: HTTPS
      hostname: "*.example.com"
      allowedRoutes: {namespaces: {from: All}}
      tls: {certificateRefs: [{name: wildcard-tls}]}
    - name: passthrough
      port: 443
      protocol: TLS
      hostname: argocd.example.com
      tls: {mode: Passthrough}
      allowedRoutes: {namespaces: {from: All}, kinds: [{kind: TLSRoute}]}
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: argocd, namespace: argocd}
spec:
  parentRefs: [{name: edge, namespace: edge, sectionName: passthrough}]
  hostnames: [argocd.example.com]
  rules: [{backendRefs: [{name: argocd-server, port: 443}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: shop}
spec:
  parentRefs: [{name: edge, namespace: edge}]
  hostnames: [shop.example.com]
  rules:
    - matches: [{path: {type: PathPrefix, value: /}}]
      backendRefs: [{name: shop, port: 80}]
"#;

#[test]
fn gateway_routes_follow_their_attached_listener() {
    let (d, _) = run(GATEWAY, "https://shop.example.com/");
    assert!(!d.passthrough);
    let entry = entry(&d);
    assert!(entry.label.contains("Gateway edge/edge listener `https` :443 HTTPS"), "{}", entry.label);
    let tls = d.nodes.iter().find(|n| n.role == Role::Tls).expect("tls");
    assert_eq!(tls.object.as_ref().map(|o| o.name.as_str()), Some("wildcard-tls"));
    assert_eq!(tls.layer, Layer::Tls);
}

#[test]
fn passthrough_puts_tls_after_the_backend() {
    let (d, _) = run(GATEWAY, "https://argocd.example.com/");
    assert!(d.passthrough, "{:?}", d.claims);
    assert!(entry(&d).label.contains("listener `passthrough`"), "{}", entry(&d).label);
    let order: Vec<&str> = d.nodes.iter().filter(|n| n.branch == Branch::Request).map(|n| n.role.as_str()).collect();
    let pos = |r: &str| order.iter().position(|x| *x == r).unwrap_or(usize::MAX);
    assert!(pos("service") < pos("tls") && pos("tls") < pos("app"), "{order:?}");
    // No Secret on a passthrough path: the certificate is the backend's.
    assert!(d.nodes.iter().all(|n| n.object.as_ref().is_none_or(|o| o.kind != "Secret")));
}

#[test]
fn the_earliest_failing_layer_wins_and_later_layers_are_not_blamed() {
    // The route's listener does not exist (route layer) and its Service is missing too (backend).
    let yaml = format!(
        "{GATEWAY}---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {{name: blog, namespace: shop}}\nspec:\n  parentRefs: [{{name: edge, namespace: edge, sectionName: nope}}]\n  hostnames: [blog.example.com]\n  rules: [{{backendRefs: [{{name: blog, port: 80}}]}}]\n"
    );
    let (d, findings) = run(&yaml, "https://blog.example.com/");
    assert_eq!(d.verdict, Verdict::Broken);
    assert_eq!(d.layer, Some(Layer::Route), "{}", d.summary);
    let root = &findings[d.root_cause.expect("root")];
    assert_eq!(root.meta.code, "RTE001", "{}", d.summary);
}

/// Issue 19, item 3: one verdict per host from all who claim it. A healthy HTTPRoute and a broken Ingress
/// both claim the host (a migration in progress): each door is diagnosed and the host is broken.
#[test]
fn issue_19_one_verdict_from_every_door() {
    const MIGRATION: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: cilium}
spec: {controllerName: io.cilium/gateway-controller}
---
apiVersion: cilium.io/v2
kind: CiliumLoadBalancerIPPool
metadata: {name: lan}
spec: {blocks: [{cidr: 192.168.10.240/28}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: public, namespace: shop}
spec:
  gatewayClassName: cilium
  listeners:
  - {name: http, port: 80, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  parentRefs: [{name: public}]
  hostnames: [shop.example.com]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: shop}
spec:
  ingressClassName: nginx
  rules:
  - host: shop.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 9090}}}}]}
"#;
    let (d, findings) = run(MIGRATION, "http://shop.example.com/");
    assert_eq!(d.verdict, Verdict::Broken, "{:?}", d.claims);
    assert_eq!(d.root_cause.map(|i| findings[i].meta.code), Some("BKD002"));
    assert!(
        d.claims.iter().any(|c| c == "via gateway Gateway `shop/public`: HTTPRoute `shop/web` is ok"),
        "{:?}",
        d.claims
    );
    assert!(
        d.claims.iter().any(|c| c == "via ingress IngressClass `nginx`: Ingress `shop/web` is broken (BKD002)"),
        "{:?}",
        d.claims
    );
    // Without the broken Ingress, the HTTPRoute alone serves the host: ok.
    let healthy = MIGRATION.split("---\napiVersion: networking.k8s.io/v1\nkind: Ingress\n").next().unwrap_or("");
    let (d, _) = run(healthy, "http://shop.example.com/");
    assert_eq!(d.verdict, Verdict::Ok, "{:?}", d.claims);
}

/// Issue 15, item 13: a finding about one parentRef of a route does not mark broken a host the route
/// serves through another parent. `web/apex` is attached to Gateway `envoy` and rejected by Gateway
/// `other` (whose listener hostname excludes the apex): the apex over `envoy` is fine; the rejection
/// is still a finding, and a route rejected by its only parent is still broken at route.
#[test]
fn a_rejection_by_one_parent_is_not_a_cause_through_another() {
    const TWO_PARENTS: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: envoy, namespace: edge}
spec:
  gatewayClassName: eg
  listeners:
  - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: other, namespace: edge}
spec:
  gatewayClassName: eg
  listeners:
  - {name: http, port: 80, protocol: HTTP, hostname: "*.example.com", allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: web}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: apex, namespace: web}
spec:
  hostnames: [example.com]
  parentRefs: [{name: envoy, namespace: edge}, {name: other, namespace: edge}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: only, namespace: web}
spec:
  hostnames: [example.org]
  parentRefs: [{name: other, namespace: edge}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
"#;
    let (d, findings) = run(TWO_PARENTS, "http://example.com/");
    assert!(findings.iter().any(|f| f.meta.code == "RTE001" && f.object.name == "apex"), "{findings:?}");
    assert_ne!(d.verdict, Verdict::Broken, "{}", d.summary);
    assert!(d.root_cause.is_none(), "{}", d.summary);
    let (d, findings) = run(TWO_PARENTS, "http://example.org/");
    assert_eq!(d.verdict, Verdict::Broken, "{}", d.summary);
    assert_eq!(findings[d.root_cause.expect("root")].meta.code, "RTE001", "{}", d.summary);
}

/// #15 item 13: a host served over TLS without a Secret (Traefik `tls: {}`, an Ingress without a tls entry
/// for the host) gets what the controller decides, often its self-signed default: never ✓ on the objects'
/// word. A Secret the route names is judged as before.
#[test]
fn a_certificate_no_secret_names_is_not_ok() {
    let traefik = |tls: &str| {
        format!(
            r#"
apiVersion: traefik.io/v1alpha1
kind: IngressRoute
metadata: {{name: shop, namespace: web}}
spec:
  entryPoints: [websecure]
  routes:
    - match: Host(`shop.example.com`)
      kind: Rule
      services: [{{name: shop, port: 80}}]
  tls: {tls}
---
apiVersion: v1
kind: Service
metadata: {{name: shop, namespace: web}}
spec: {{ports: [{{port: 80}}]}}
"#
        )
    };
    let tls_node = |d: &Diagnosis| d.nodes.iter().find(|n| n.role == Role::Tls).cloned().expect("a tls node");
    let (d, _) = run(&traefik("{}"), "https://shop.example.com/");
    let n = tls_node(&d);
    assert_eq!(n.state, NodeState::Unknown, "{n:?}");
    assert!(n.label.contains("TRAEFIK DEFAULT CERT"), "{}", n.label);

    let (d, _) = run(&traefik("{certResolver: letsencrypt}"), "https://shop.example.com/");
    let n = tls_node(&d);
    assert_eq!(n.state, NodeState::Unknown);
    assert!(n.label.contains("certResolver `letsencrypt`"), "{}", n.label);

    let store = "---\napiVersion: traefik.io/v1alpha1\nkind: TLSStore\nmetadata: {name: default, namespace: traefik}\nspec: {defaultCertificate: {secretName: wildcard-tls}}\n";
    let (d, _) = run(&format!("{}{store}", traefik("{}")), "https://shop.example.com/");
    assert!(tls_node(&d).label.contains("defaultCertificate Secret `wildcard-tls`"), "{}", tls_node(&d).label);

    // An Ingress for the host without a tls entry, over https; an ALB's ACM certificate is named.
    let ingress = |annotations: &str| {
        format!(
            "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {{name: shop, namespace: web, annotations: {{{annotations}}}}}\nspec:\n  rules:\n    - host: shop.example.com\n      http: {{paths: [{{path: /, pathType: Prefix, backend: {{service: {{name: shop, port: {{number: 80}}}}}}}}]}}\n"
        )
    };
    let (d, _) = run(&ingress(""), "https://shop.example.com/");
    assert_eq!(tls_node(&d).state, NodeState::Unknown);
    assert!(tls_node(&d).label.contains("default certificate"), "{}", tls_node(&d).label);
    let (d, _) = run(
        &ingress("alb.ingress.kubernetes.io/certificate-arn: arn:aws:acm:eu-west-1:1:certificate/x"),
        "https://shop.example.com/",
    );
    assert!(tls_node(&d).label.starts_with("ACM certificate arn:aws:acm"), "{}", tls_node(&d).label);

    // Near miss: a route that names its Secret has a Secret node, judged by what the Secret holds.
    let (d, _) = run(&traefik("{secretName: shop-tls}"), "https://shop.example.com/");
    let n = tls_node(&d);
    assert!(n.object.as_ref().is_some_and(|o| o.kind == "Secret" && o.name == "shop-tls"), "{n:?}");
}

/// #15 item 13: a finding about one host of an object (a Certificate that does not cover `b`) does not mark
/// another host of the same object (`a`) broken; the host it is about still is.
#[test]
fn a_finding_about_one_host_does_not_break_another_host_of_the_object() {
    let yaml = r#"
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: shop}
spec:
  ingressClassName: nginx
  tls:
    - hosts: [a.example.com, b.example.com]
      secretName: web-tls
  rules:
    - host: a.example.com
      http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
    - host: b.example.com
      http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web, namespace: shop}
spec:
  secretName: web-tls
  dnsNames: [a.example.com]
  issuerRef: {name: le, kind: ClusterIssuer}
---
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata: {name: le}
spec: {selfSigned: {}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{port: 80}]}
"#;
    let (a, findings) = run(yaml, "https://a.example.com/");
    assert!(findings.iter().any(|f| f.code() == "TLS015"), "the finding exists");
    assert_eq!(a.verdict, Verdict::Ok, "{:?}", a.summary);
    let (b, findings) = run(yaml, "https://b.example.com/");
    assert_eq!(b.verdict, Verdict::Broken, "{:?}", b.summary);
    assert_eq!(b.root_cause.map(|i| findings[i].code()), Some("TLS015"), "{:?}", b.summary);
}

/// A host claimed only below `/` (an HTTPRoute for `/v1/`) is diagnosed at a path that is claimed, not
/// reported unclaimed.
#[test]
fn a_host_claimed_only_below_the_root_is_diagnosed_at_its_path() {
    let yaml = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: cilium}
spec: {controllerName: io.cilium/gateway-controller}
---
apiVersion: cilium.io/v2
kind: CiliumLoadBalancerIPPool
metadata: {name: lan}
spec: {blocks: [{cidr: 192.168.10.240/28}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: gw}
spec:
  gatewayClassName: cilium
  listeners: [{name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: otel, namespace: otel}
spec:
  parentRefs: [{name: gw, namespace: gw}]
  hostnames: [otel.example.com]
  rules:
    - matches: [{path: {type: PathPrefix, value: /v1/}}]
      backendRefs: [{name: otel, port: 4318}]
---
apiVersion: v1
kind: Service
metadata: {name: otel, namespace: otel}
spec: {ports: [{port: 4318}]}
"#;
    let options = Options::default();
    let graph = Graph::build(edgecheck_load::load_text("t.yaml", yaml), &options);
    let a =
        crate::analyze(&graph, &options, crate::test_support::NOW, &Selection::default(), &[], &[], Diagnose::Hosts);
    let d = a.diagnoses.iter().find(|d| d.target.host == "otel.example.com").expect("diagnosed");
    assert_eq!(d.target.target, "http://otel.example.com/v1/");
    assert_eq!(d.verdict, Verdict::Ok, "{}", d.summary);
}

#[test]
fn a_route_naming_a_host_in_several_rules_and_a_wildcard_claims_it_once() {
    let yaml = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: a, namespace: web}\nspec:\n  rules:\n  - host: shop.example.com\n    http: {paths: [{path: /api, pathType: Prefix, backend: {service: {name: api, port: {number: 80}}}}]}\n  - host: shop.example.com\n    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: front, port: {number: 80}}}}]}\n  - host: '*.example.com'\n    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: front, port: {number: 80}}}}]}\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: b, namespace: web}\nspec:\n  rules:\n  - host: shop.example.com\n    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: b, port: {number: 80}}}}]}\n";
    let (d, _) = run(yaml, "http://shop.example.com/");
    let a = d.claims.iter().filter(|c| c.contains("Ingress `web/a`")).count();
    let b = d.claims.iter().filter(|c| c.contains("Ingress `web/b`")).count();
    assert_eq!((a, b), (1, 1), "{:?}", d.claims);
}

/// A host is diagnosed at a request a claim takes: not at `/` when only a redirect no HTTPS listener takes
/// claims it there (a webhook under `/hook/`), not at 443 when its route is attached to a passthrough
/// listener on 9094 only.
#[test]
fn a_host_is_diagnosed_where_an_attached_route_takes_it() {
    let yaml = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: gw}
spec:
  gatewayClassName: envoy
  listeners:
    - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
    - {name: https, port: 443, protocol: HTTPS, allowedRoutes: {namespaces: {from: All}}, tls: {certificateRefs: [{name: tls}]}}
    - {name: kafka, port: 9094, protocol: TLS, tls: {mode: Passthrough}, allowedRoutes: {namespaces: {from: All}, kinds: [{kind: TLSRoute}]}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: https-redirect, namespace: gw}
spec:
  parentRefs: [{name: gw, sectionName: http}]
  rules: [{filters: [{type: RequestRedirect, requestRedirect: {scheme: https, statusCode: 301}}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: webhook, namespace: flux}
spec:
  parentRefs: [{name: gw, namespace: gw, sectionName: https}]
  hostnames: [hook.example.com]
  rules:
    - matches: [{path: {type: PathPrefix, value: /hook/}}]
      backendRefs: [{name: receiver, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: receiver, namespace: flux}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: broker, namespace: kafka}
spec:
  parentRefs: [{name: gw, namespace: gw, sectionName: kafka}]
  hostnames: [broker.example.com]
  rules: [{backendRefs: [{name: broker, port: 9094}]}]
---
apiVersion: v1
kind: Service
metadata: {name: broker, namespace: kafka}
spec: {ports: [{port: 9094}]}
"#;
    let options = Options::default();
    let graph = Graph::build(edgecheck_load::load_text("t.yaml", yaml), &options);
    let a =
        crate::analyze(&graph, &options, crate::test_support::NOW, &Selection::default(), &[], &[], Diagnose::Hosts);
    let target = |host: &str| {
        a.diagnoses.iter().find(|d| d.target.host == host).map(|d| d.target.target.clone()).unwrap_or_default()
    };
    assert_eq!(target("hook.example.com"), "https://hook.example.com/hook/", "{:?}", a.diagnoses);
    assert_eq!(target("broker.example.com"), "https://broker.example.com:9094/", "{:?}", a.diagnoses);
}
