//! Generates a realistic GitOps repository for the lint benchmark: `gen_repo DIR APPS`.
//!
//! Each app is a namespace with a Deployment, a Service, an Ingress, an HTTPRoute, a cert-manager
//! Certificate, a TLS Secret holding a real certificate and key (generated here), a ConfigMap and an
//! Argo CD Application: 8 objects per app, spread over a few files per app like real repositories. The
//! shared Gateway has its address pool and its certificate: the repository is healthy, as most linted
//! repositories are (a missing Gateway-wide object would put every host's path in the output).
//!
//! `SHAPE` varies what large repositories share, so that a step quadratic in one of them shows:
//! `wildcard` (every Certificate asks for `*.apps.example.com`), `one-namespace` (every app in namespace
//! `shared`, names suffixed by the app's number), `one-host` (every app on `shop.apps.example.com`, a path each).

use std::fmt::Write as _;
use std::path::PathBuf;

use base64::Engine as _;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "bench-repo".into()));
    let apps: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(2500);
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    // A handful of distinct key pairs is enough; certificates differ per app.
    let ca_key = rcgen::KeyPair::generate().expect("key");
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(rcgen::DnType::CommonName, "bench CA");
    let root = ca_params.self_signed(&ca_key).expect("root");
    let _ = root;
    let root_issuer = rcgen::Issuer::new(ca_params, &ca_key);
    // Leaves are issued by an intermediate, and tls.crt holds leaf + intermediate, as ACME CAs serve.
    let int_key = rcgen::KeyPair::generate().expect("key");
    let mut int_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
    int_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    int_params.distinguished_name.push(rcgen::DnType::CommonName, "bench intermediate");
    let intermediate = int_params.signed_by(&int_key, &root_issuer).expect("intermediate");
    let int_pem = intermediate.pem();
    let issuer = rcgen::Issuer::new(int_params, &int_key);
    let leaf_key = rcgen::KeyPair::generate().expect("key");
    let key_pem = leaf_key.serialize_pem();
    std::fs::create_dir_all(dir.join("gateway")).expect("mkdir");
    std::fs::write(
        dir.join("gateway/gateway.yaml"),
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: cilium\nspec:\n  controllerName: io.cilium/gateway-controller\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: public\n  namespace: edge\nspec:\n  gatewayClassName: cilium\n  listeners:\n    - name: https\n      port: 443\n      protocol: HTTPS\n      hostname: \"*.apps.example.com\"\n      allowedRoutes: {namespaces: {from: All}}\n      tls: {certificateRefs: [{name: wildcard-tls}]}\n---\napiVersion: cilium.io/v2alpha1\nkind: CiliumLoadBalancerIPPool\nmetadata:\n  name: lan\nspec:\n  blocks: [{cidr: 192.168.10.240/28}]\n---\napiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: wildcard\n  namespace: edge\nspec:\n  secretName: wildcard-tls\n  dnsNames: [\"*.apps.example.com\"]\n  issuerRef: {name: letsencrypt, kind: ClusterIssuer}\n---\napiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: nginx\n  annotations: {ingressclass.kubernetes.io/is-default-class: \"true\"}\nspec:\n  controller: k8s.io/ingress-nginx\n",
    )
    .expect("write");
    let shape = std::env::var("SHAPE").unwrap_or_default();
    for i in 0..apps {
        let app = format!("app-{i:05}");
        let (ns, sfx) = if shape == "one-namespace" {
            ("shared".to_string(), format!("-{i:05}"))
        } else {
            (app.clone(), String::new())
        };
        let (host, path) = if shape == "one-host" {
            ("shop.apps.example.com".to_string(), format!("/app{i}"))
        } else {
            (format!("app{i}.apps.example.com"), "/".to_string())
        };
        let dns = if shape == "wildcard" { "\"*.apps.example.com\"".to_string() } else { host.clone() };
        let d = dir.join("apps").join(&app);
        std::fs::create_dir_all(&d).expect("mkdir");
        let params = rcgen::CertificateParams::new(vec![dns.trim_matches('"').to_string()]).expect("params");
        let cert = params.signed_by(&leaf_key, &issuer).expect("cert");
        let mut workload = String::new();
        let _ = write!(
            workload,
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web{sfx}\n  namespace: {ns}\n  labels: {{app: web{sfx}}}\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {{app: web{sfx}}}\n  template:\n    metadata:\n      labels: {{app: web{sfx}, tier: frontend}}\n    spec:\n      containers:\n        - name: web\n          image: ghcr.io/acme/web:1.{i}\n          args: [\"--port=8080\", \"--log-level=info\"]\n          ports:\n            - {{name: http, containerPort: 8080}}\n          readinessProbe:\n            httpGet: {{path: /healthz, port: http}}\n          resources:\n            requests: {{cpu: 100m, memory: 128Mi}}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web{sfx}\n  namespace: {ns}\nspec:\n  selector: {{app: web{sfx}}}\n  ports:\n    - {{name: http, port: 80, targetPort: http}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config{sfx}\n  namespace: {ns}\ndata:\n  LOG_LEVEL: info\n  FEATURE_FLAGS: \"a,b,c\"\n"
        );
        std::fs::write(d.join("workload.yaml"), workload).expect("write");
        let routes = format!(
            "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web{sfx}\n  namespace: {ns}\n  annotations:\n    nginx.ingress.kubernetes.io/ssl-redirect: \"true\"\nspec:\n  ingressClassName: nginx\n  tls:\n    - hosts: [{host}]\n      secretName: web-tls{sfx}\n  rules:\n    - host: {host}\n      http:\n        paths:\n          - path: {path}\n            pathType: Prefix\n            backend:\n              service: {{name: web{sfx}, port: {{name: http}}}}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web{sfx}\n  namespace: {ns}\nspec:\n  parentRefs: [{{name: public, namespace: edge, sectionName: https}}]\n  hostnames: [{host}]\n  rules:\n    - matches: [{{path: {{type: PathPrefix, value: {path}}}}}]\n      backendRefs: [{{name: web{sfx}, port: 80}}]\n"
        );
        std::fs::write(d.join("routes.yaml"), routes).expect("write");
        let tls = format!(
            "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: web{sfx}\n  namespace: {ns}\nspec:\n  secretName: web-tls{sfx}\n  dnsNames: [{dns}]\n  issuerRef: {{name: letsencrypt, kind: ClusterIssuer}}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: web-tls{sfx}\n  namespace: {ns}\ntype: kubernetes.io/tls\ndata:\n  tls.crt: {}\n  tls.key: {}\n",
            b64(&format!("{}{int_pem}", cert.pem())),
            b64(&key_pem)
        );
        std::fs::write(d.join("tls.yaml"), tls).expect("write");
        let app = format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {app}\n  namespace: argocd\nspec:\n  project: default\n  source:\n    repoURL: https://github.com/acme/platform.git\n    path: apps/{app}\n    targetRevision: main\n  destination:\n    server: https://kubernetes.default.svc\n    namespace: {ns}\n  syncPolicy:\n    automated: {{prune: true, selfHeal: true}}\n"
        );
        std::fs::write(d.join("application.yaml"), app).expect("write");
    }
    println!("{} objects in {}", apps * 8 + 5, dir.display());
}
