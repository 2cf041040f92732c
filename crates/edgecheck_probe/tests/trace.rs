//! `trace` scenarios, one per layer: the objects and a real endpoint on 127.0.0.1 disagree in one
//! place, and the diagnosis must name that layer as the root cause with the chain that leads to it.
#![allow(clippy::unwrap_used)]

mod common;

use base64::Engine as _;
use common::*;
use edgecheck_checks::diagnose::{self, Branch, Diagnosis, TraceTarget, Verdict};
use edgecheck_core::observation::TargetObservation;
use edgecheck_core::{Finding, Graph, Layer, Options};

struct Traced {
    d: Diagnosis,
    findings: Vec<Finding>,
}

impl Traced {
    fn root(&self) -> &Finding {
        &self.findings[self.d.root_cause.expect("a root cause")]
    }
    fn chain(&self) -> Vec<String> {
        self.d.chain.iter().map(|l| format!("{} {}", l.object.kind, l.object.name)).collect()
    }
    fn codes(&self) -> Vec<&str> {
        let mut v: Vec<&str> =
            self.d.nodes.iter().flat_map(|n| n.findings.iter()).map(|&i| self.findings[i].meta.code).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Loads `yaml`, probes `url` with `opts` (or replays `obs`), runs every check, diagnoses `url`.
fn trace(yaml: &str, url: &str, obs: Vec<TargetObservation>) -> Traced {
    let options = Options::default();
    let graph = Graph::build(edgecheck_load::load_text("objects.yaml", yaml), &options);
    let t = [TraceTarget::parse(url).unwrap()];
    let selection = edgecheck_checks::Selection::default();
    let mut a =
        edgecheck_checks::analyze(&graph, &options, time_now(), &selection, &[], &obs, diagnose::Diagnose::Targets(&t));
    Traced { d: a.diagnoses.remove(0), findings: a.findings }
}

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

/// An ingress-nginx style path for shop.test: IngressClass, Ingress with TLS, Service, Deployment,
/// and the TLS Secret holding `secret` (leaf chain and key).
fn shop(secret: &Pki, selector: &str, extra_annotations: &str) -> String {
    let crt = b64(&pem("CERTIFICATE", &secret.chain));
    let key = b64(&pem("PRIVATE KEY", std::slice::from_ref(&secret.leaf_key)));
    format!(
        r#"apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  namespace: shop
  annotations:
    x: "y"{extra_annotations}
spec:
  ingressClassName: nginx
  tls:
    - hosts: [shop.test]
      secretName: shop-tls
  rules:
    - host: shop.test
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: shop
                port:
                  number: 80
---
apiVersion: v1
kind: Service
metadata:
  name: shop
  namespace: shop
spec:
  selector:
    app: {selector}
  ports:
    - name: http
      port: 80
      targetPort: http
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  namespace: shop
spec:
  selector:
    matchLabels:
      app: shop
  template:
    metadata:
      labels:
        app: shop
    spec:
      containers:
        - name: shop
          image: shop:1
          ports:
            - name: http
              containerPort: 8080
---
apiVersion: v1
kind: Secret
metadata:
  name: shop-tls
  namespace: shop
type: kubernetes.io/tls
data:
  tls.crt: {crt}
  tls.key: {key}
"#
    )
}

fn probe(url: &str, port: u16, ca: &str) -> Vec<TargetObservation> {
    edgecheck_probe::probe_blocking(&[url.to_string()], &opts(port, Some(ca)))
}

#[test]
fn healthy_path_has_no_root_cause() {
    let p = pki(Leaf::default());
    let port = https(&p, &[b"h2", b"http/1.1"], ok());
    let url = format!("https://shop.test:{port}/");
    let t = trace(&shop(&p, "shop", ""), &url, probe(&url, port, &p.ca_pem));
    assert_eq!(t.d.verdict, Verdict::Ok, "{:#?}", t.codes());
    assert!(t.d.root_cause.is_none());
    let roles: Vec<&str> = t.d.nodes.iter().filter(|n| n.branch == Branch::Request).map(|n| n.role.as_str()).collect();
    assert_eq!(roles, ["name", "address", "entry", "tls", "route", "service", "workload", "app"]);
    // The served leaf is the Secret's: both sides show the same fingerprint.
    let served = t.d.nodes.iter().find(|n| n.role.as_str() == "app").unwrap().detail.join(" ");
    let secret = t.d.nodes.iter().find(|n| n.role.as_str() == "tls").unwrap().detail.join(" ");
    let fp = secret.split("sha256 ").nth(1).unwrap().split_whitespace().next().unwrap();
    assert!(served.contains(fp), "{served} / {secret}");
}

#[test]
fn tls_root_cause_a_certificate_for_another_host() {
    // The Secret (and so the server) holds a certificate for other.test.
    let p = pki(Leaf { sans: &["other.test"], ..Leaf::default() });
    let port = https(&p, &[b"h2", b"http/1.1"], ok());
    let url = format!("https://shop.test:{port}/");
    let t = trace(&shop(&p, "shop", ""), &url, probe(&url, port, &p.ca_pem));
    assert_eq!(t.d.verdict, Verdict::Broken);
    assert_eq!(t.d.layer, Some(Layer::Tls), "{:?}", t.codes());
    assert_eq!(t.root().meta.layer, Layer::Tls);
    // What the client saw comes first: the handshake's verification failure at the endpoint.
    let first = &t.d.chain[0];
    assert_eq!(first.object.kind, "Endpoint", "{:?}", t.chain());
    assert_eq!(t.findings[first.finding.unwrap()].meta.code, "TLS101", "{:?}", t.chain());
    assert_eq!(t.d.chain.last().unwrap().object.kind, "Secret", "{:?}", t.chain());
    // The broken node is the Secret on the path.
    let at = &t.d.nodes[t.d.breaks_at.unwrap()];
    assert_eq!(at.object.as_ref().unwrap().kind, "Secret", "{at:?}");
}

#[test]
fn backend_root_cause_selector_matches_no_pod_behind_a_proxy_503() {
    // The proxy answers 503 like ingress-nginx does when the Service has no endpoints.
    let p = pki(Leaf::default());
    let h: Handler = std::sync::Arc::new(|_, _, _| {
        (
            503,
            vec![("server", "nginx".to_string()), ("content-type", "text/html".to_string())],
            b"<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center><hr><center>nginx</center></body></html>".to_vec(),
        )
    });
    let port = https(&p, &[b"h2", b"http/1.1"], h);
    let url = format!("https://shop.test:{port}/");
    let t = trace(&shop(&p, "shop-v2", ""), &url, probe(&url, port, &p.ca_pem));
    assert_eq!(t.d.verdict, Verdict::Broken, "{:?}", t.codes());
    assert_eq!(t.d.layer, Some(Layer::Backend), "{:?} {}", t.codes(), t.d.summary);
    let at = &t.d.nodes[t.d.breaks_at.unwrap()];
    assert_eq!(at.object.as_ref().unwrap().name, "shop");
    assert_eq!(at.object.as_ref().unwrap().kind, "Service");
    // The symptom (the proxy's 503 seen from outside) comes first in the chain.
    assert_eq!(t.d.chain.first().unwrap().object.kind, "Endpoint", "{:?}", t.chain());
    assert_eq!(t.d.chain.last().unwrap().object.kind, "Service", "{:?}", t.chain());
}

#[test]
fn app_root_cause_the_application_answers_500() {
    let p = pki(Leaf::default());
    let h: Handler = std::sync::Arc::new(|_, _, _| {
        (500, vec![("content-type", "application/json".to_string())], br#"{"error":"database unavailable"}"#.to_vec())
    });
    let port = https(&p, &[b"h2", b"http/1.1"], h);
    let url = format!("https://shop.test:{port}/");
    let t = trace(&shop(&p, "shop", ""), &url, probe(&url, port, &p.ca_pem));
    assert_eq!(t.d.verdict, Verdict::Broken, "{:?}", t.codes());
    assert_eq!(t.d.layer, Some(Layer::App), "{}", t.d.summary);
    assert_eq!(t.d.nodes[t.d.breaks_at.unwrap()].role.as_str(), "app");
}

#[test]
fn listener_root_cause_nothing_listens() {
    let p = pki(Leaf::default());
    let port = free_port();
    let url = format!("https://shop.test:{port}/");
    let t = trace(&shop(&p, "shop", ""), &url, probe(&url, port, &p.ca_pem));
    assert_eq!(t.d.verdict, Verdict::Broken);
    assert_eq!(t.d.layer, Some(Layer::Listener), "{}", t.d.summary);
    // Nothing later on the path is blamed: the app node was never reached.
    let app = t.d.nodes.iter().find(|n| n.role.as_str() == "app").unwrap();
    assert!(app.findings.is_empty(), "{app:?}");
}

#[test]
fn route_root_cause_hostname_outside_the_listener() {
    // A Gateway listener for *.example.com on the probed port; the route asks for shop.test, so no
    // listener takes it and the gateway answers 404 for the host.
    let p = pki(Leaf::default());
    let h: Handler = std::sync::Arc::new(|_, _, _| (404, vec![("server", "envoy".to_string())], Vec::new()));
    let port = https(&p, &[b"h2", b"http/1.1"], h);
    let yaml = format!(
        r#"apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: eg
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: edge
spec:
  gatewayClassName: eg
  listeners:
    - name: https
      port: {port}
      protocol: HTTPS
      hostname: "*.example.com"
      allowedRoutes:
        namespaces:
          from: All
      tls:
        certificateRefs:
          - name: edge-tls
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: shop
  namespace: shop
spec:
  parentRefs:
    - name: edge
      namespace: edge
  hostnames: [shop.test]
  rules:
    - backendRefs:
        - name: shop
          port: 80
"#
    );
    let url = format!("https://shop.test:{port}/");
    let t = trace(&yaml, &url, probe(&url, port, &p.ca_pem));
    assert_eq!(t.d.verdict, Verdict::Broken, "{:?}", t.codes());
    assert_eq!(t.d.layer, Some(Layer::Route), "{}", t.d.summary);
    assert_eq!(t.root().meta.code, "RTE001", "{}", t.d.summary);
    assert!(t.root().message.contains("NoMatchingListenerHostname"), "{}", t.root().message);
    // The symptom: the gateway's own 404 for a host an object claims, then the route it never took.
    assert_eq!(t.chain(), [format!("Endpoint {url}"), "HTTPRoute shop".to_string()]);
    assert_eq!(t.findings[t.d.chain[0].finding.unwrap()].meta.code, "RTE100");
}

#[test]
fn dns_root_cause_the_name_does_not_resolve() {
    // A DNS server on loopback that answers NXDOMAIN to everything.
    let sock = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let dns_port = sock.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut buf = [0u8; 512];
        while let Ok((n, from)) = sock.recv_from(&mut buf) {
            if n < 12 {
                continue;
            }
            let mut r = buf[..n].to_vec();
            r[2] = 0x81 | (buf[2] & 0x01); // response, recursion desired copied
            r[3] = 0x83; // recursion available, NXDOMAIN
            r[6..12].fill(0); // no answer, authority or additional records
            let _ = sock.send_to(&r, from);
        }
    });
    let p = pki(Leaf::default());
    let url = "https://shop.test/".to_string();
    let mut o = opts(443, None);
    o.resolve.clear();
    o.dns_server = Some(format!("127.0.0.1:{dns_port}"));
    let obs = edgecheck_probe::probe_blocking(std::slice::from_ref(&url), &o);
    let t = trace(&shop(&p, "shop", ""), &url, obs);
    assert_eq!(t.d.verdict, Verdict::Broken, "{:?}", t.codes());
    assert_eq!(t.d.layer, Some(Layer::Dns), "{}", t.d.summary);
    assert_eq!(t.d.nodes[t.d.breaks_at.unwrap()].role.as_str(), "name");
    assert!(t.d.nodes[0].detail.iter().any(|d| d.contains("NxDomain")), "{:?}", t.d.nodes[0].detail);
}

#[test]
fn stale_certificate_the_secret_was_renewed_but_the_server_serves_the_old_one() {
    // The server still presents the certificate it loaded 60 days ago; the Secret holds the renewal.
    let old = pki(Leaf { from_days: -60, to_days: 30, ..Leaf::default() });
    let renewed = pki(Leaf { from_days: -1, to_days: 89, ..Leaf::default() });
    let port = https(&old, &[b"h2", b"http/1.1"], ok());
    let url = format!("https://shop.test:{port}/");
    let t = trace(&shop(&renewed, "shop", ""), &url, probe(&url, port, &old.ca_pem));
    assert_eq!(t.d.verdict, Verdict::Broken, "{:?}", t.codes());
    assert_eq!(t.d.layer, Some(Layer::Tls), "{}", t.d.summary);
    let root = t.root();
    assert!(root.message.contains("reload"), "{}", root.message);
    assert!(root.related.iter().any(|r| r.kind == "Secret" && r.name == "shop-tls"), "{:?}", root.related);
    // Both fingerprints are in the evidence, and the broken node is the Secret on the path.
    let ev = root.evidence.join("\n");
    let fp = |p: &Pki| edgecheck_core::cert::CertInfo::from_der(&p.chain[0]).unwrap().sha256.to_string();
    assert!(ev.contains(&fp(&old)) && ev.contains(&fp(&renewed)), "{ev}");
    assert_eq!(t.d.nodes[t.d.breaks_at.unwrap()].object.as_ref().unwrap().kind, "Secret");
}

#[test]
fn grpc_through_an_l7_ingress_to_a_server_without_h2() {
    // ingress-nginx told to speak gRPC to the backend, but what answers on the edge negotiates
    // HTTP/1.1 only: native gRPC cannot pass.
    let p = pki(Leaf::default());
    let port = https(&p, &[b"http/1.1"], ok());
    let url = format!("grpcs://shop.test:{port}/");
    let yaml = shop(&p, "shop", "\n    nginx.ingress.kubernetes.io/backend-protocol: GRPC");
    let obs = edgecheck_probe::probe_blocking(std::slice::from_ref(&url), &opts(port, Some(&p.ca_pem)));
    assert!(obs[0].grpc_expected);
    let t = trace(&yaml, &url, obs);
    assert_ne!(t.d.verdict, Verdict::Ok, "{:?}", t.codes());
    let root = t.root();
    assert!(matches!(root.meta.layer, Layer::Route | Layer::App), "{}", t.d.summary);
    let text = format!("{} {}", root.message, root.fix.clone().unwrap_or_default());
    assert!(text.contains("passthrough") || text.contains("grpc-web"), "{text}");
    assert!(t.codes().contains(&"APP003"), "{:?}", t.codes());
}
