//! What the controllers apply (docs/design.md "Builds"): charts rendered with the real `helm template`,
//! overlays with the real `kustomize build` (or `kubectl kustomize`), Flux substitution, builds that
//! cannot be rendered (LOD010) and directories no build applies (LOD011). `scripts/test.sh` installs helm
//! and kubectl when they are missing.

use crate::support::{codes, edgecheck, json, Dir};

const REPO: &str = "https://github.com/acme/platform.git";

/// A checkout of `REPO` (a `.git` with the remote) in a temp directory.
fn checkout() -> Dir {
    let d = Dir::new();
    d.write(".git/config", format!("[remote \"origin\"]\n\turl = {REPO}\n"));
    d.write(".git/HEAD", "ref: refs/heads/main\n");
    d
}

/// Findings of `code` as `file:line`.
fn at(v: &serde_json::Value, code: &str) -> Vec<String> {
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == code)
        .map(|f| format!("{}:{}", f["file"].as_str().unwrap_or("-"), f["line"].as_u64().unwrap_or(0)))
        .collect()
}

/// Findings of `code` as `cluster file` (a lint of several clusters).
fn in_clusters(v: &serde_json::Value, code: &str) -> Vec<String> {
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == code)
        .map(|f| format!("{} {}", f["cluster"].as_str().unwrap_or("-"), f["file"].as_str().unwrap_or("-")))
        .collect()
}

/// The evidence of the findings of `code`, as one string to search.
fn evidence(v: &serde_json::Value, code: &str) -> String {
    v["findings"]
        .as_array()
        .expect("f")
        .iter()
        .filter(|f| f["code"] == code)
        .map(|f| f["evidence"].to_string())
        .collect()
}

/// The messages of the findings of `code`.
fn messages(v: &serde_json::Value, code: &str) -> Vec<String> {
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == code)
        .map(|f| f["message"].as_str().unwrap_or("").to_string())
        .collect()
}

fn lint(d: &Dir, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["lint", ".", "--format", "json", "--no-config"];
    args.extend_from_slice(extra);
    let r = edgecheck(d.path(), &args);
    assert!(r.code == 0 || r.code == 1, "exit {}: {}", r.code, r.stderr);
    json(&r)
}

const CLASS: &str = "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n";

/// A chart whose Ingress serves `.Values.host` from a Certificate for `.Values.certHost`.
fn web_chart(d: &Dir, dir: &str) {
    d.write(&format!("{dir}/Chart.yaml"), "apiVersion: v2\nname: web\nversion: 0.1.0\n");
    d.write(&format!("{dir}/values.yaml"), "host: web.example.com\ncertHost: web.example.com\n");
    d.write(
        &format!("{dir}/templates/ingress.yaml"),
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  ingressClassName: nginx\n  tls:\n    - hosts: [{{ .Values.host | quote }}]\n      secretName: web-tls\n  rules:\n    - host: {{ .Values.host }}\n      http:\n        paths:\n          - path: /\n            pathType: Prefix\n            backend:\n              service:\n                name: {{ .Release.Name }}\n                port:\n                  number: 80\n",
    );
    d.write(
        &format!("{dir}/templates/service.yaml"),
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  ports:\n    - port: 80\n      targetPort: 8080\n",
    );
    d.write(
        &format!("{dir}/templates/certificate.yaml"),
        "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  secretName: web-tls\n  dnsNames:\n    - {{ .Values.certHost }}\n  issuerRef: {name: le, kind: ClusterIssuer}\n",
    );
    d.write(
        "cluster/issuer.yaml",
        "apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata: {name: le}\nspec: {selfSigned: {}}\n",
    );
    d.write("cluster/class.yaml", CLASS);
}

fn application(name: &str, source: &str) -> String {
    format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: {name}, namespace: argocd}}\nspec:\n  project: default\n  destination: {{server: https://kubernetes.default.svc, namespace: web}}\n{source}")
}

#[test]
fn a_chart_whose_values_set_a_host_its_certificate_does_not_cover_is_found_in_the_template() {
    let d = checkout();
    web_chart(&d, "charts/web");
    d.write(
        "argocd/web.yaml",
        application(
            "web",
            &format!("  source:\n    repoURL: {REPO}\n    path: charts/web\n    helm:\n      valuesObject:\n        host: shop.example.com\n"),
        ),
    );
    let v = lint(&d, &[]);
    // The Certificate's dnsNames line in the chart template.
    assert_eq!(at(&v, "TLS015"), vec!["charts/web/templates/certificate.yaml:7"], "{v}");
    // And where the value that line reads is set: the chart's values.yaml, at its line.
    assert!(evidence(&v, "TLS015").contains("`.Values.certHost` is set in charts/web/values.yaml:2"), "{v}");
    // `trace --from` names it as `lint` does.
    let t = json(&edgecheck(
        d.path(),
        &["trace", "https://shop.example.com/", "--from", ".", "--no-probe", "--format", "json", "--no-config"],
    ));
    assert!(evidence(&t, "TLS015").contains("`.Values.certHost` is set in charts/web/values.yaml:2"), "{t}");
    // Set inline by the Application, the inline values are named instead (never the value).
    d.write(
        "argocd/web.yaml",
        application(
            "web",
            &format!("  source:\n    repoURL: {REPO}\n    path: charts/web\n    helm:\n      valuesObject:\n        host: shop.example.com\n        certHost: api.example.com\n"),
        ),
    );
    let v = lint(&d, &[]);
    let e = evidence(&v, "TLS015");
    assert!(e.contains("`.Values.certHost` is set in the inline values of Application `argocd/web`"), "{e}");
    assert!(!e.contains("api.example.com\\\" is set"), "{e}");
    let objects = v["objects"].as_array().expect("objects");
    let ingress = objects.iter().find(|o| o["kind"] == "Ingress").expect("the rendered Ingress");
    assert_eq!(ingress["namespace"], "web", "the destination namespace: {ingress}");
    assert_eq!(ingress["file"], "charts/web/templates/ingress.yaml");

    // Near miss: the chart's own values agree.
    let d = checkout();
    web_chart(&d, "charts/web");
    d.write("argocd/web.yaml", application("web", &format!("  source:\n    repoURL: {REPO}\n    path: charts/web\n")));
    let v = lint(&d, &[]);
    assert!(at(&v, "TLS015").is_empty(), "{v}");
    assert!(!codes(&v).contains(&"LOD010".to_string()), "{v}");
    // Not rendered, the chart's objects are not seen at all: one info says so.
    let v = lint(&d, &["--render", "never"]);
    assert!(!v["objects"].as_array().expect("objects").iter().any(|o| o["kind"] == "Ingress"), "{v}");
    let lod010: Vec<_> = v["findings"].as_array().expect("f").iter().filter(|f| f["code"] == "LOD010").collect();
    assert_eq!(lod010.len(), 1, "{v}");
    assert_eq!(lod010[0]["severity"], "info");
}

#[test]
fn a_copy_without_git_is_read_as_the_applications_repository_and_says_so() {
    // The same repository as a tarball or CI artifact: no `.git`, no `repo-urls`.
    let d = Dir::new();
    web_chart(&d, "charts/web");
    d.write(
        "argocd/web.yaml",
        application(
            "web",
            &format!("  source:\n    repoURL: {REPO}\n    path: charts/web\n    helm:\n      valuesObject:\n        host: shop.example.com\n"),
        ),
    );
    // An Application of another repository whose path this directory does not have.
    d.write(
        "argocd/other.yaml",
        application("other", "  source:\n    repoURL: https://github.com/acme/other\n    path: deploy/prod\n"),
    );
    let v = lint(&d, &[]);
    // The chart is rendered from the copy, in the destination namespace.
    assert_eq!(at(&v, "TLS015"), vec!["charts/web/templates/certificate.yaml:7"], "{v}");
    let ingress = v["objects"].as_array().expect("objects").iter().find(|o| o["kind"] == "Ingress").cloned();
    assert_eq!(ingress.expect("the rendered Ingress")["namespace"], "web");
    // Said once, at the Application read from the copy; the other repository's path is not judged.
    assert_eq!(at(&v, "LOD012"), vec!["argocd/web.yaml:8"], "{v}");
    assert!(at(&v, "GIT001").is_empty(), "{v}");

    // Near miss: with `.git` and its remote nothing is assumed.
    d.write(".git/config", format!("[remote \"origin\"]\n\turl = {REPO}\n"));
    d.write(".git/HEAD", "ref: refs/heads/main\n");
    let v = lint(&d, &[]);
    assert!(at(&v, "LOD012").is_empty(), "{v}");
    assert_eq!(at(&v, "TLS015"), vec!["charts/web/templates/certificate.yaml:7"], "{v}");
}

#[test]
fn multi_source_values_and_helm_release_values_from_are_read() {
    // Argo CD: the chart from one source, the values from `$values/...` of a `ref` source.
    let d = checkout();
    web_chart(&d, "charts/web");
    d.write("envs/prod/web.yaml", "host: shop.example.com\n");
    d.write(
        "argocd/web.yaml",
        application(
            "web",
            &format!("  sources:\n    - repoURL: {REPO}\n      path: charts/web\n      helm:\n        valueFiles: [$values/envs/prod/web.yaml]\n    - repoURL: {REPO}\n      ref: values\n"),
        ),
    );
    let v = lint(&d, &[]);
    assert_eq!(at(&v, "TLS015"), vec!["charts/web/templates/certificate.yaml:7"], "{v}");
    // Near miss: the same values file agrees with the certificate.
    d.write("envs/prod/web.yaml", "host: web.example.com\n");
    assert!(at(&lint(&d, &[]), "TLS015").is_empty());

    // Flux: a HelmRelease of the chart in this checkout, values from a ConfigMap.
    let release = |cm_host: &str| {
        let d = checkout();
        web_chart(&d, "charts/web");
        d.write(
            "clusters/main/web.yaml",
            format!("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: web, namespace: web}}\nspec:\n  interval: 10m\n  releaseName: web\n  chart:\n    spec:\n      chart: ./charts/web\n      sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}\n  valuesFrom:\n    - kind: ConfigMap\n      name: web-values\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: web-values, namespace: web}}\ndata:\n  values.yaml: |\n    host: {cm_host}\n"),
        );
        d
    };
    let d = release("shop.example.com");
    let v = lint(&d, &[]);
    assert_eq!(at(&v, "TLS015"), vec!["charts/web/templates/certificate.yaml:7"], "{v}");
    let d = release("web.example.com");
    assert!(at(&lint(&d, &[]), "TLS015").is_empty());
}

const BASE_SVC: &str = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports:\n    - name: http\n      port: 80\n      targetPort: 8080\n";
const BASE_DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx, ports: [{containerPort: 8080}]}]}\n";
const BASE_INGRESS: &str = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  ingressClassName: nginx\n  rules:\n    - host: web.example.com\n      http:\n        paths:\n          - path: /\n            pathType: Prefix\n            backend:\n              service:\n                name: web\n                port:\n                  number: 80\n";

fn overlay(port: u16) -> Dir {
    let d = checkout();
    d.write("base/kustomization.yaml", "resources: [svc.yaml, deploy.yaml, ingress.yaml]\n");
    d.write("base/svc.yaml", BASE_SVC);
    d.write("base/deploy.yaml", BASE_DEPLOY);
    d.write("base/ingress.yaml", BASE_INGRESS);
    d.write(
        "overlays/prod/kustomization.yaml",
        format!("namespace: prod\nresources: [../../base]\npatches:\n  - target: {{kind: Service, name: web}}\n    patch: |\n      - op: replace\n        path: /spec/ports/0/port\n        value: {port}\n"),
    );
    d.write("cluster/class.yaml", CLASS);
    d
}

#[test]
fn an_overlay_that_patches_the_service_port_away_from_the_ingress_is_found() {
    let v = lint(&overlay(8081), &[]);
    let bkd002 = at(&v, "BKD002");
    assert_eq!(bkd002.len(), 1, "{v}");
    // At the Ingress's resource file, where the port is written; the overlay's patch that changed the
    // Service is named, at its line.
    assert!(bkd002[0].starts_with("base/ingress.yaml:"), "{bkd002:?}");
    let evidence = evidence(&v, "BKD002");
    assert!(evidence.contains("Service `prod/web` is patched at overlays/prod/kustomization.yaml:4"), "{evidence}");
    let objects = v["objects"].as_array().expect("objects");
    assert!(objects.iter().any(|o| o["kind"] == "Service" && o["namespace"] == "prod"), "{v}");
    // Near miss: the patch keeps the port.
    assert!(at(&lint(&overlay(80), &[]), "BKD002").is_empty());
    // Unrendered, the base alone is fine: the fault exists only in what the cluster runs.
    assert!(at(&lint(&overlay(8081), &["--render", "never"]), "BKD002").is_empty());
}

/// A strategic-merge patch file that sets the field a finding points at is named with its line: the overlay,
/// not the base, decides the value. Near miss: a patch of another object is not named.
#[test]
fn a_patch_file_that_sets_the_field_is_named() {
    let d = overlay(80);
    let patch = |name: &str| {
        format!("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {{name: {name}}}\nspec:\n  rules:\n    - host: web.example.com\n      http:\n        paths:\n          - path: /\n            pathType: Prefix\n            backend:\n              service:\n                name: web\n                port:\n                  number: 8081\n")
    };
    d.write(
        "overlays/prod/kustomization.yaml",
        "namespace: prod\nresources: [../../base]\npatches:\n  - path: ingress-port.yaml\n",
    );
    d.write("overlays/prod/ingress-port.yaml", patch("web"));
    let v = lint(&d, &[]);
    assert!(evidence(&v, "BKD002").contains("is set by the patch overlays/prod/ingress-port.yaml:"), "{v}");
    let t = json(&edgecheck(
        d.path(),
        &["trace", "http://web.example.com/", "--from", ".", "--no-probe", "--format", "json", "--no-config"],
    ));
    assert!(evidence(&t, "BKD002").contains("is set by the patch overlays/prod/ingress-port.yaml:"), "{t}");
    // Near miss: the finding (the base's own port) with a patch of another Ingress.
    let d = overlay(8081);
    d.write("overlays/prod/other.yaml", patch("webhook"));
    let v = lint(&d, &[]);
    assert!(!evidence(&v, "BKD002").contains("other.yaml"), "{v}");
}

#[test]
fn a_name_prefix_renames_what_kustomize_does_not_rewrite() {
    let route = "apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\nmetadata: {name: web}\nspec:\n  entryPoints: [websecure]\n  routes:\n    - match: Host(`web.example.com`)\n      kind: Rule\n      services: [{name: web, port: 80}]\n";
    let make = |with_route: bool| {
        let d = checkout();
        let extra = if with_route { ", route.yaml" } else { "" };
        d.write("app/kustomization.yaml", format!("resources: [svc.yaml, deploy.yaml, ingress.yaml{extra}]\n"));
        d.write("app/svc.yaml", BASE_SVC);
        d.write("app/deploy.yaml", BASE_DEPLOY);
        d.write("app/ingress.yaml", BASE_INGRESS);
        if with_route {
            d.write("app/route.yaml", route);
        }
        d.write("cluster/class.yaml", CLASS);
        d.write(
            "argocd/web.yaml",
            application(
                "web",
                &format!("  source:\n    repoURL: {REPO}\n    path: app\n    kustomize:\n      namePrefix: prod-\n"),
            ),
        );
        d
    };
    // kustomize renames the Service and rewrites the Ingress's reference, not the IngressRoute's.
    let v = lint(&make(true), &[]);
    let names: Vec<String> = v["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .map(|o| format!("{}/{}", o["kind"].as_str().unwrap_or(""), o["name"].as_str().unwrap_or("")))
        .collect();
    assert!(names.contains(&"Service/prod-web".to_string()), "{names:?}");
    let bkd001 = at(&v, "BKD001");
    assert_eq!(bkd001.len(), 1, "only the IngressRoute's reference breaks: {v}");
    assert!(bkd001[0].starts_with("app/route.yaml:"), "{bkd001:?}");
    // Near miss: without the IngressRoute nothing breaks.
    assert!(at(&lint(&make(false), &[]), "BKD001").is_empty());
}

/// A Flux tree: a Kustomization of `apps/portal` with substitution from a ConfigMap, a Gateway for
/// `*.example.com`, and an HTTPRoute for `portal.${DOMAIN}`.
fn flux(domain: &str) -> Dir {
    let d = checkout();
    d.write(
        "clusters/main/flux-system/gotk-sync.yaml",
        format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  interval: 1m\n  url: {REPO}\n  ref: {{branch: main}}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: ./clusters/main\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"),
    );
    d.write("clusters/main/flux-system/kustomization.yaml", "resources: [gotk-sync.yaml]\n");
    d.write(
        "clusters/main/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: portal, namespace: flux-system}\nspec:\n  interval: 10m\n  path: ./apps/portal\n  prune: true\n  targetNamespace: portal\n  sourceRef: {kind: GitRepository, name: flux-system}\n  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: cluster-settings\n",
    );
    d.write(
        "clusters/main/settings.yaml",
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cluster-settings, namespace: flux-system}}\ndata:\n  DOMAIN: {domain}\n"),
    );
    d.write(
        "clusters/main/gateway.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: cilium}\nspec: {controllerName: io.cilium/gateway-controller}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: main, namespace: gateway}\nspec:\n  gatewayClassName: cilium\n  listeners:\n    - name: http\n      port: 80\n      protocol: HTTP\n      hostname: \"*.example.com\"\n      allowedRoutes: {namespaces: {from: All}}\n",
    );
    d.write(
        "apps/portal/route.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: portal}\nspec:\n  parentRefs: [{name: main, namespace: gateway}]\n  hostnames: [\"portal.${DOMAIN}\"]\n  rules:\n    - backendRefs: [{name: portal, port: 80}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: portal}\nspec:\n  ports: [{port: 80, targetPort: 8080}]\n",
    );
    d
}

#[test]
fn flux_substitution_decides_both_ways() {
    // Fine only once substituted: the host is under the listener's wildcard.
    let v = lint(&flux("example.com"), &[]);
    assert!(at(&v, "RTE001").is_empty(), "{v}");
    let route = v["objects"].as_array().expect("objects").iter().find(|o| o["kind"] == "HTTPRoute").cloned();
    let route = route.expect("the rendered route");
    assert_eq!(route["namespace"], "portal", "targetNamespace: {route}");
    // Broken only once substituted: example.org is no host of the listener.
    let v = lint(&flux("example.org"), &[]);
    // At the hostnames line of the resource file.
    assert_eq!(at(&v, "RTE001"), vec!["apps/portal/route.yaml:5"], "{v}");
    // Unrendered, the placeholder is never judged.
    assert!(at(&lint(&flux("example.org"), &["--render", "never"]), "RTE001").is_empty());
}

/// #15 item 10: a component's kustomize `replacements` set each Flux Kustomization's `targetNamespace` from
/// the Namespace object of its directory (the layout of many home-ops repositories). The
/// rendered Kustomization carries it, and what it builds lands there.
#[test]
fn kustomize_replacements_set_a_flux_target_namespace() {
    let d = flux("example.com");
    d.write(
        "clusters/main/shop.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: shop, namespace: flux-system}\nspec:\n  interval: 10m\n  path: ./apps/shop\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    d.write(
        "components/target-namespace/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nreplacements:\n  - source: {kind: Namespace, fieldPath: metadata.name}\n    targets:\n      - select: {kind: Kustomization}\n        fieldPaths: [spec.targetNamespace]\n        options: {create: true}\n",
    );
    d.write(
        "apps/shop/kustomization.yaml",
        "namespace: shop\nresources: [namespace.yaml, web/ks.yaml]\ncomponents: [../../components/target-namespace]\n",
    );
    d.write("apps/shop/namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n");
    d.write(
        "apps/shop/web/ks.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: web, namespace: flux-system}\nspec:\n  interval: 10m\n  path: ./apps/shop/web/app\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n",
    );
    d.write("apps/shop/web/app/kustomization.yaml", "resources: [web.yaml]\n");
    d.write(
        "apps/shop/web/app/web.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports: [{port: 80}]\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  rules:\n    - host: shop.example.com\n      http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}\n",
    );
    let v = lint(&d, &[]);
    let objects = v["objects"].as_array().expect("objects");
    let ingress = objects.iter().find(|o| o["kind"] == "Ingress").expect("the Ingress");
    assert_eq!(ingress["namespace"], "shop", "the replaced targetNamespace: {ingress}");
    assert!(at(&v, "BKD001").is_empty() && at(&v, "RTE002").is_empty(), "{v}");
}

/// A Flux Kustomization that its directory's kustomization does not list (commented out, never added) is not
/// applied, so it is no build: its broken path is not a template error. Near miss: listed, it is one.
#[test]
fn a_flux_kustomization_its_kustomization_does_not_list_is_no_build() {
    let d = flux("example.com");
    d.write(
        "clusters/main/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  interval: 10m\n  path: ./apps/media\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    d.write("apps/media/kustomization.yaml", "resources:\n  - ./web/ks.yaml\n  # - ./old/ks.yaml\n");
    let ks = |name: &str| {
        format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: ./apps/media/{name}/app\n  prune: true\n  targetNamespace: media\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n")
    };
    d.write("apps/media/web/ks.yaml", ks("web"));
    d.write("apps/media/web/app/kustomization.yaml", "resources: [cm.yaml]\n");
    d.write("apps/media/web/app/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n");
    d.write("apps/media/old/ks.yaml", ks("old"));
    // A component listed as a resource: kustomize (and Flux) refuse it.
    d.write("apps/media/old/app/kustomization.yaml", "resources: [../../component]\n");
    d.write(
        "apps/media/component/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [cm.yaml]\n",
    );
    d.write("apps/media/component/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\n");
    let v = lint(&d, &[]);
    let errors: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .expect("f")
        .iter()
        .filter(|f| f["code"] == "LOD010" && f["severity"] == "error")
        .collect();
    assert!(errors.is_empty(), "{v}");
    let cm = v["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .find(|o| o["kind"] == "ConfigMap" && o["name"] == "web")
        .cloned();
    assert_eq!(cm.expect("the listed one is rendered")["namespace"], "media");
    // Listed, the same Kustomization is applied, and its error is Flux's: an error naming the cause.
    d.write("apps/media/kustomization.yaml", "resources:\n  - ./web/ks.yaml\n  - ./old/ks.yaml\n");
    let v = lint(&d, &[]);
    let errors: Vec<String> = v["findings"]
        .as_array()
        .expect("f")
        .iter()
        .filter(|f| f["code"] == "LOD010" && f["severity"] == "error")
        .map(|f| f["message"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(errors.len(), 1, "{v}");
    assert!(errors[0].starts_with("Kustomization flux-system/old") && errors[0].contains("Component"), "{errors:?}");
}

/// A Flux Kustomization's `components` join the kustomization at its path, as Flux adds them there: the
/// path's own patches can patch what a component adds (a database cluster the app's patch resizes).
#[test]
fn flux_components_join_the_kustomization_at_the_path() {
    let d = flux("example.com");
    d.write(
        "clusters/main/db.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: books, namespace: flux-system}\nspec:\n  path: ./apps/books\n  targetNamespace: books\n  components: [../../components/db]\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    d.write(
        "components/db/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [db.yaml]\n",
    );
    d.write(
        "components/db/db.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: books-db}\ndata: {size: small}\n",
    );
    d.write("apps/books/kustomization.yaml", "resources: [app.yaml]\npatches:\n  - path: patches/db.yaml\n");
    d.write("apps/books/app.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: books}\n");
    d.write(
        "apps/books/patches/db.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: books-db}\ndata: {size: large}\n",
    );
    let v = lint(&d, &[]);
    let errors: Vec<&serde_json::Value> =
        v["findings"].as_array().expect("f").iter().filter(|f| f["code"] == "LOD010").collect();
    assert!(errors.is_empty(), "{v}");
    let names: Vec<&str> = v["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .filter(|o| o["namespace"] == "books")
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert!(names.contains(&"books") && names.contains(&"books-db"), "{v}");
    // Nothing is written into the checkout.
    assert!(d.path().join("apps/books/kustomization.yaml").read_link().is_err());
    let k = std::fs::read_to_string(d.path().join("apps/books/kustomization.yaml")).expect("read");
    assert!(!k.contains("components"), "{k}");
    // A checkout without `.git` (an archive, a CI's export): the components still resolve from the path.
    std::fs::remove_dir_all(d.path().join(".git")).expect("remove .git");
    let v = lint(&d, &[]);
    assert_eq!(messages(&v, "LOD010"), Vec::<String>::new());
    let books_db =
        v["objects"].as_array().expect("objects").iter().any(|o| o["namespace"] == "books" && o["name"] == "books-db");
    assert!(books_db, "{v}");
}

/// A build made in a temporary directory that fails is told in the checkout's terms: no temporary path
/// (which would differ from run to run) in the message.
#[test]
fn a_failing_flux_component_build_names_the_checkout_not_a_temporary_directory() {
    let d = flux("example.com");
    d.write(
        "clusters/main/db.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: books, namespace: flux-system}\nspec:\n  path: ./apps/books\n  components: [../../components/missing]\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    d.write("apps/books/kustomization.yaml", "resources: [app.yaml]\n");
    d.write("apps/books/app.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: books}\n");
    let v = lint(&d, &[]);
    let messages = messages(&v, "LOD010");
    assert_eq!(messages.len(), 1, "{v}");
    let checkout = d.path().canonicalize().expect("checkout");
    let missing = format!("{}/components/missing", checkout.display());
    assert!(messages[0].contains(&missing), "{}", messages[0]);
    assert!(!messages[0].contains("mirror"), "{}", messages[0]);
}

#[test]
fn directories_no_build_applies_are_reported_once_each() {
    let d = overlay(80);
    d.write("staging/web.yaml", BASE_SVC.replace("name: web", "name: old-web"));
    d.write("staging/more.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old}\n");
    // An archive is kept on purpose: not reported.
    d.write("old/more.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: older}\n");
    let v = lint(&d, &[]);
    let lod011: Vec<&serde_json::Value> =
        v["findings"].as_array().expect("f").iter().filter(|f| f["code"] == "LOD011").collect();
    let dirs: Vec<&str> = lod011.iter().map(|f| f["file"].as_str().unwrap_or("")).collect();
    // `cluster/` holds the IngressClass, `staging/` two objects: one finding per directory.
    assert_eq!(dirs, vec!["cluster", "staging"], "{v}");
    assert_eq!(lod011[1]["message"], "2 objects here are applied by no build (`more.yaml`, `web.yaml`)", "{v}");
    // Near miss: the overlay includes them.
    let d = overlay(80);
    d.write("overlays/prod/kustomization.yaml", "namespace: prod\nresources: [../../base, ../../cluster]\n");
    d.write("cluster/kustomization.yaml", "resources: [class.yaml]\n");
    assert!(!codes(&lint(&d, &[])).contains(&"LOD011".to_string()));
}

#[test]
fn a_build_that_cannot_render_says_why() {
    // The tool is missing: one warning naming the build.
    let d = checkout();
    web_chart(&d, "charts/web");
    d.write("argocd/web.yaml", application("web", &format!("  source:\n    repoURL: {REPO}\n    path: charts/web\n")));
    let v = lint(&d, &["--helm", "/nonexistent/helm"]);
    let f: Vec<&serde_json::Value> =
        v["findings"].as_array().expect("f").iter().filter(|f| f["code"] == "LOD010").collect();
    assert_eq!(f.len(), 1, "{v}");
    assert_eq!(f[0]["severity"], "warning");
    assert!(f[0]["message"].as_str().unwrap_or("").contains("/nonexistent/helm"), "{}", f[0]);
    assert!(f[0]["evidence"].to_string().contains("Application argocd/web"), "{}", f[0]);

    // A template error: an error with helm's own message, at the Application.
    d.write("charts/web/templates/broken.yaml", "kind: ConfigMap\nmetadata:\n  name: {{ .Values.missing.deeper }}\n");
    let v = lint(&d, &[]);
    let f: Vec<&serde_json::Value> =
        v["findings"].as_array().expect("f").iter().filter(|f| f["code"] == "LOD010").collect();
    assert_eq!(f.len(), 1, "{v}");
    assert_eq!(f[0]["severity"], "error");
    assert_eq!(f[0]["file"], "argocd/web.yaml");
    assert!(f[0]["message"].as_str().unwrap_or("").contains("nil pointer"), "{}", f[0]);

    // A tool that hangs is killed at the deadline.
    let hang = d.write("bin/helm", "#!/bin/sh\nsleep 30\n");
    std::fs::set_permissions(&hang, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let started = std::time::Instant::now();
    let v = lint(&d, &["--helm", "bin/helm", "--render-timeout", "1s"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(v.to_string().contains("killed after 1 s"), "{v}");
    // A tool that eats memory is killed at the bound (#16): a stand-in whose child holds an endless line.
    let greedy = d.write("bin/helm", "#!/bin/sh\ntail /dev/zero\n");
    std::fs::set_permissions(&greedy, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let started = std::time::Instant::now();
    let v = lint(&d, &["--helm", "bin/helm", "--render-memory", "64MiB", "--render-timeout", "20s"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(15), "{:?}", started.elapsed());
    assert!(v.to_string().contains("killed: memory over the limit of 64 MiB"), "{v}");
    // A remote chart is listed, not fetched.
    let d = checkout();
    d.write(
        "argocd/podinfo.yaml",
        application("podinfo", "  source:\n    repoURL: https://stefanprodan.github.io/podinfo\n    chart: podinfo\n    targetRevision: 6.5.0\n"),
    );
    let r = edgecheck(d.path(), &["lint", ".", "--no-config", "--show-builds"]);
    assert!(r.stdout.contains("Application argocd/podinfo"), "{}", r.stdout);
    assert!(r.stdout.contains("not rendered: remote: Helm repository chart `podinfo` 6.5.0"), "{}", r.stdout);
}

#[test]
fn no_rendered_secret_value_reaches_any_output() {
    const PLANTED: &str = "hunter2-planted-render-secret";
    let d = checkout();
    d.write("charts/s/Chart.yaml", "apiVersion: v2\nname: s\nversion: 0.1.0\n");
    d.write(
        "charts/s/templates/secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData:\n  password: {{ .Values.password }}\ndata:\n  token: {{ .Values.password | b64enc }}\n",
    );
    d.write("charts/s/values.yaml", format!("password: {PLANTED}\n"));
    d.write("argocd/s.yaml", application("s", &format!("  source:\n    repoURL: {REPO}\n    path: charts/s\n")));
    let b64 = "aHVudGVyMi1wbGFudGVkLXJlbmRlci1zZWNyZXQ=";
    for format in ["text", "json", "sarif", "markdown", "html", "dot", "mermaid"] {
        let r = edgecheck(d.path(), &["lint", ".", "--no-config", "--show-builds", "--format", format]);
        for out in [&r.stdout, &r.stderr] {
            assert!(!out.contains(PLANTED) && !out.contains(b64), "{format} leaks the rendered value");
        }
    }
    // The Secret was rendered (summarised), not skipped.
    let v = lint(&d, &[]);
    assert!(v["objects"].as_array().expect("o").iter().any(|o| o["kind"] == "Secret"), "{v}");
}

#[test]
fn an_app_of_apps_chart_is_rendered_and_its_applications_are_builds() {
    let d = checkout();
    web_chart(&d, "charts/web");
    d.write("apps/Chart.yaml", "apiVersion: v2\nname: apps\nversion: 0.1.0\n");
    d.write("apps/values.yaml", "host: shop.example.com\n");
    d.write(
        "apps/templates/web.yaml",
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\n  namespace: argocd\nspec:\n  project: default\n  destination: {{server: https://kubernetes.default.svc, namespace: web}}\n  source:\n    repoURL: {REPO}\n    path: charts/web\n    helm:\n      valuesObject:\n        host: {{{{ .Values.host }}}}\n"),
    );
    let r = edgecheck(d.path(), &["lint", ".", "--no-config", "--show-builds", "--format", "json"]);
    let listing = r.stdout.split("\n{").next().unwrap_or("").to_string();
    assert!(listing.contains("chart apps"), "{listing}");
    assert!(listing.contains("Application argocd/web"), "{listing}");
    let v = lint(&d, &[]);
    // The host comes from the root chart's values, through the Application it renders.
    assert_eq!(at(&v, "TLS015"), vec!["charts/web/templates/certificate.yaml:7"], "{v}");
    // The chart's directories are applied; only `cluster/` (the IngressClass and the issuer) is loose.
    assert_eq!(at(&v, "LOD011"), vec!["cluster:0"], "{v}");
}

/// An ApplicationSet expands to its Applications (#12): a git directory generator over the checkout (Go
/// template, an exclusion) and a list generator whose elements set a chart's values; the generated
/// Applications are builds, their findings point at the files the user edits.
#[test]
fn application_sets_expand_to_their_applications() {
    let d = checkout();
    let svc = |port: u16, host: &str| {
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports: [{port: 80}]\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  ingressClassName: nginx\n  rules:\n    - host: HOST\n      http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: PORT}}}}]}\n"
            .replace("HOST", host)
            .replace("PORT", &port.to_string())
    };
    d.write("cluster/class.yaml", CLASS);
    for (app, port) in [("shop", 8080), ("blog", 80)] {
        d.write(&format!("apps/{app}/kustomization.yaml"), "resources: [web.yaml]\n");
        d.write(&format!("apps/{app}/web.yaml"), svc(port, &format!("{app}.example.com")));
    }
    // Excluded by the generator: no build applies it.
    d.write("apps/legacy/web.yaml", svc(80, "legacy.example.com").replace("name: web", "name: legacy"));
    d.write(
        "argocd/apps.yaml",
        format!("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {{name: apps, namespace: argocd}}\nspec:\n  goTemplate: true\n  generators:\n    - git:\n        repoURL: {REPO}\n        revision: HEAD\n        directories:\n          - path: apps/*\n          - {{path: apps/legacy, exclude: true}}\n  template:\n    metadata: {{name: '{{{{.path.basename}}}}'}}\n    spec:\n      project: default\n      source: {{repoURL: {REPO}, targetRevision: HEAD, path: '{{{{.path.path}}}}'}}\n      destination: {{server: https://kubernetes.default.svc, namespace: 'team-{{{{.path.basename}}}}'}}\n"),
    );
    web_chart(&d, "charts/web");
    d.write(
        "argocd/web.yaml",
        format!("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {{name: web, namespace: argocd}}\nspec:\n  generators:\n    - list:\n        elements:\n          - {{env: prod, host: web.example.com}}\n          - {{env: staging, host: staging.example.com}}\n  template:\n    metadata: {{name: 'web-{{{{env}}}}'}}\n    spec:\n      project: default\n      source:\n        repoURL: {REPO}\n        path: charts/web\n        helm:\n          valuesObject: {{host: '{{{{host}}}}'}}\n      destination: {{server: https://kubernetes.default.svc, namespace: 'web-{{{{env}}}}'}}\n"),
    );
    let v = lint(&d, &[]);
    // The shop Application's overlay: its Ingress names a port its Service lacks, in namespace team-shop.
    assert_eq!(at(&v, "BKD002"), vec!["apps/shop/web.yaml:14"], "{v}");
    let objects = v["objects"].as_array().expect("objects");
    let ingress_ns = |file: &str| {
        objects.iter().find(|o| o["kind"] == "Ingress" && o["file"] == file).map(|o| o["namespace"].clone())
    };
    assert_eq!(ingress_ns("apps/shop/web.yaml"), Some("team-shop".into()), "{v}");
    assert_eq!(ingress_ns("apps/blog/web.yaml"), Some("team-blog".into()), "{v}");
    // The staging element's host is one the chart's Certificate does not cover; prod's is.
    let tls015: Vec<&serde_json::Value> =
        v["findings"].as_array().expect("f").iter().filter(|f| f["code"] == "TLS015").collect();
    assert_eq!(tls015.len(), 1, "{v}");
    assert!(tls015[0]["message"].as_str().unwrap_or("").contains("staging.example.com"), "{}", tls015[0]);
    assert_eq!(tls015[0]["file"], "charts/web/templates/certificate.yaml");
    assert_eq!(tls015[0]["object"]["namespace"], "web-staging");
    // The excluded directory is applied by no build.
    let lod011: Vec<String> = at(&v, "LOD011");
    assert!(lod011.iter().any(|f| f.starts_with("apps/legacy")), "{lod011:?}");
    assert!(at(&v, "LOD010").is_empty(), "{v}");
}

/// A build that was not rendered (a kustomization inflating a Helm chart, which needs --enable-helm) makes
/// objects no file holds: a Service its route names is not reported missing in its namespace. Near miss:
/// without the chart, the missing Service is a warning (the namespace's other Service shows the repository
/// manages Services there).
#[test]
fn what_an_unrendered_build_makes_is_not_missing() {
    let d = checkout();
    let app = |with_chart: bool| {
        let chart = if with_chart {
            "helmCharts:\n  - {name: gitea, repo: https://dl.gitea.com/charts/, version: 12.7.0, releaseName: gitea}\n"
        } else {
            ""
        };
        format!("namespace: gitea\nresources: [route.yaml, db.yaml]\n{chart}")
    };
    d.write("apps/gitea/kustomization.yaml", app(true));
    d.write(
        "apps/gitea/route.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: gitea}\nspec:\n  hostnames: [git.example.com]\n  rules: [{backendRefs: [{name: gitea-http, port: 3000}]}]\n",
    );
    d.write(
        "apps/gitea/db.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: gitea-db}\nspec: {ports: [{port: 5432}]}\n",
    );
    d.write(
        "argocd/gitea.yaml",
        application("gitea", &format!("  source:\n    repoURL: {REPO}\n    path: apps/gitea\n"))
            .replace("namespace: web", "namespace: gitea"),
    );
    let v = lint(&d, &[]);
    assert!(at(&v, "BKD001").is_empty(), "{v}");
    d.write("apps/gitea/kustomization.yaml", app(false));
    let v = lint(&d, &[]);
    assert_eq!(at(&v, "BKD001"), vec!["apps/gitea/route.yaml:6"], "{v}");
}

/// Two clusters share `apps/base`; only `prod` deploys `apps/base/billing`. In `lab`'s inventory that app's
/// files are another cluster's, not loose objects of this one: checked unrendered, its route would name a
/// Service in another namespace without a ReferenceGrant (a false RTE002).
#[test]
fn another_clusters_apps_are_not_this_clusters_loose_files() {
    let d = checkout();
    for cluster in ["prod", "lab"] {
        d.write(
            &format!("clusters/{cluster}/flux-system/gotk-sync.yaml"),
            format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  path: ./clusters/{cluster}\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"),
        );
        d.write(&format!("clusters/{cluster}/flux-system/kustomization.yaml"), "resources: [gotk-sync.yaml]\n");
    }
    d.write(
        "clusters/prod/billing.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: billing, namespace: flux-system}\nspec:\n  path: ./apps/base/billing\n  targetNamespace: billing\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    d.write("apps/base/billing/kustomization.yaml", "resources: [app.yaml]\n");
    d.write(
        "apps/base/billing/app.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: billing}\nspec:\n  hostnames: [billing.example.com]\n  rules: [{backendRefs: [{name: billing, namespace: billing, port: 80}]}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: billing}\nspec: {ports: [{port: 80}]}\n",
    );
    let v = lint(&d, &[]);
    let bad: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .expect("f")
        .iter()
        .filter(|f| f["severity"] == "error" || f["severity"] == "warning" || f["code"] == "LOD011")
        .collect();
    assert!(bad.is_empty(), "{v}");
    // The route is in prod's inventory, in its namespace, and in no other.
    let routes: Vec<(String, String)> = v["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .filter(|o| o["kind"] == "HTTPRoute")
        .map(|o| (o["cluster"].as_str().unwrap_or("-").to_string(), o["namespace"].as_str().unwrap_or("-").to_string()))
        .collect();
    assert_eq!(routes, [("prod".to_string(), "billing".to_string())], "{v}");
}

#[test]
fn what_edgecheck_cannot_render_is_never_an_error() {
    let d = checkout();
    // A plugin source and a jsonnet directory: the repo-server renders them, edgecheck does not.
    d.write("plugin/kustomization.yaml", "patches: [not-a-patch-object]\n");
    d.write("jsonnet/app.jsonnet", "{}\n");
    d.write(
        "argocd/apps.yaml",
        format!(
            "{}---\n{}",
            application(
                "p",
                &format!("  source:\n    repoURL: {REPO}\n    path: plugin\n    plugin: {{name: kustomized-helm}}\n")
            ),
            application("j", &format!("  source:\n    repoURL: {REPO}\n    path: jsonnet\n"))
        ),
    );
    // A kustomization nobody points at that does not build: a warning, not an error.
    d.write("hack/kustomization.yaml", "resources: [../missing]\n");
    // An ApplicationSet that needs the cluster to expand (a clusters generator) still applies the
    // directories its git generator names: they are not loose.
    d.write(
        "argocd/set.yaml",
        format!("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {{name: all, namespace: argocd}}\nspec:\n  generators:\n    - matrix:\n        generators:\n          - clusters: {{}}\n          - git:\n              repoURL: {REPO}\n              revision: HEAD\n              directories: [{{path: 'services/*'}}]\n  template: {{metadata: {{name: x}}, spec: {{}}}}\n"),
    );
    d.write("services/a/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
    let v = lint(&d, &[]);
    let lod010: Vec<(String, String)> = v["findings"]
        .as_array()
        .expect("f")
        .iter()
        .filter(|f| f["code"] == "LOD010")
        .map(|f| (f["severity"].as_str().unwrap_or("").to_string(), f["message"].as_str().unwrap_or("").to_string()))
        .collect();
    assert!(lod010.iter().all(|(s, _)| s != "error"), "{lod010:?}");
    // Applications say what this repository applies: a kustomization none of them points at is an info.
    assert!(lod010.iter().any(|(s, m)| s == "info" && m.contains("no controller points at")), "{lod010:?}");
    // Near miss: a repository of plain kustomizations (no controller): its broken one is a warning.
    let plain = checkout();
    plain.write("hack/kustomization.yaml", "resources: [../missing]\n");
    plain.write("apps/kustomization.yaml", "resources: [cm.yaml]\n");
    plain.write("apps/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
    let v = lint(&plain, &[]);
    let warned = v["findings"].as_array().expect("f").iter().any(|f| {
        f["code"] == "LOD010"
            && f["severity"] == "warning"
            && f["message"].as_str().unwrap_or("").contains("no controller points at")
    });
    assert!(warned, "{v}");
    assert!(lod010.iter().any(|(s, _)| s == "info"), "{lod010:?}");
    assert!(!codes(&v).contains(&"LOD011".to_string()), "{v}");
    // Near miss: the same kustomization named by an Application is the controller's template error.
    d.write("argocd/hack.yaml", application("hack", &format!("  source:\n    repoURL: {REPO}\n    path: hack\n")));
    let v = lint(&d, &[]);
    let errors: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .expect("f")
        .iter()
        .filter(|f| f["code"] == "LOD010" && f["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{v}");
    assert!(errors[0]["message"].as_str().unwrap_or("").starts_with("Application argocd/hack"), "{}", errors[0]);
}

#[test]
fn a_second_lint_of_an_unchanged_repository_renders_nothing() {
    const PLANTED: &str = "hunter2-planted-cache-secret";
    let cache = Dir::new();
    let d = checkout();
    web_chart(&d, "charts/web");
    d.write(
        "charts/web/templates/secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData:\n  password: {{ .Values.password }}\n",
    );
    d.write(
        "charts/web/values.yaml",
        format!("host: shop.example.com\ncertHost: web.example.com\npassword: {PLANTED}\n"),
    );
    d.write("argocd/web.yaml", application("web", &format!("  source:\n    repoURL: {REPO}\n    path: charts/web\n")));
    let run = |extra: &[&str]| {
        let mut args = vec!["lint", ".", "--no-config", "--show-builds", "--no-snippets"];
        args.extend_from_slice(extra);
        let out = assert_cmd::Command::cargo_bin("edgecheck")
            .expect("binary")
            .current_dir(d.path())
            .args(&args)
            .env("NO_COLOR", "1")
            .env("XDG_CACHE_HOME", cache.path())
            .output()
            .expect("run");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = run(&[]);
    assert!(first.contains("Application argocd/web") && first.contains(": rendered, 4 objects"), "{first}");
    let second = run(&[]);
    assert!(second.contains(": cached, 4 objects"), "{second}");
    // The same findings, from the cache.
    let findings = |out: &str| out.lines().filter(|l| l.starts_with("error[") || l.starts_with("warning[")).count();
    assert_eq!(findings(&first), findings(&second));
    assert!(second.contains("error[TLS015]"), "{second}");
    // --no-cache renders again; an edit renders again.
    assert!(run(&["--no-cache"]).contains(": rendered, 4 objects"));
    d.write(
        "charts/web/values.yaml",
        format!("host: web.example.com\ncertHost: web.example.com\npassword: {PLANTED}\n"),
    );
    let edited = run(&[]);
    assert!(edited.contains(": rendered, 4 objects") && !edited.contains("error[TLS015]"), "{edited}");
    // What is stored holds no Secret value, and only the user can read it.
    let dir = cache.path().join("edgecheck/render");
    let mut entries = 0;
    for e in std::fs::read_dir(&dir).expect("cache dir").flatten() {
        entries += 1;
        let text = std::fs::read_to_string(e.path()).expect("entry");
        assert!(!text.contains(PLANTED), "the cache holds the Secret's value");
        let mode = std::os::unix::fs::PermissionsExt::mode(&e.metadata().expect("meta").permissions());
        assert_eq!(mode & 0o077, 0, "{:o}", mode);
    }
    assert!(entries >= 2);
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&dir).expect("dir").permissions());
    assert_eq!(mode & 0o077, 0, "{:o}", mode);
}

/// A Helm repository on loopback: `index.yaml` and the packaged chart, served until the test ends.
fn helm_repository(
    chart: &std::path::Path,
) -> (String, std::thread::JoinHandle<()>, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://127.0.0.1:{}", listener.local_addr().expect("addr").port());
    let out = tempfile::tempdir().expect("tmp");
    let status = std::process::Command::new("helm")
        .args(["package", &chart.to_string_lossy(), "--destination", &out.path().to_string_lossy()])
        .output()
        .expect("helm package");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let status = std::process::Command::new("helm")
        .args(["repo", "index", &out.path().to_string_lossy(), "--url", &url])
        .output()
        .expect("helm repo index");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let served = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = served.clone();
    let handle = std::thread::spawn(move || {
        let root = out;
        listener.set_nonblocking(false).ok();
        for stream in listener.incoming().take(16) {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..n]).to_string();
            let path = req.split_whitespace().nth(1).unwrap_or("/").trim_start_matches('/').to_string();
            let body = std::fs::read(root.path().join(&path)).ok();
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let _ = match body {
                Some(b) => {
                    let _ = write!(s, "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", b.len());
                    s.write_all(&b)
                }
                None => write!(s, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
            };
        }
    });
    (url, handle, served)
}

#[test]
fn remote_charts_are_rendered_with_fetch_and_listed_without() {
    let chart = checkout();
    web_chart(&chart, "web");
    let (url, _server, served) = helm_repository(&chart.path().join("web"));
    let d = checkout();
    d.write(
        "cluster/issuer.yaml",
        "apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata: {name: le}\nspec: {selfSigned: {}}\n",
    );
    d.write("cluster/class.yaml", CLASS);
    d.write(
        "clusters/main/web.yaml",
        format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {{name: charts, namespace: flux-system}}\nspec: {{url: {url}}}\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: web, namespace: web}}\nspec:\n  chart:\n    spec:\n      chart: web\n      version: 0.1.0\n      sourceRef: {{kind: HelmRepository, name: charts, namespace: flux-system}}\n  values:\n    host: shop.example.com\n"),
    );
    // Without --fetch: listed, nothing pulled.
    let v = lint(&d, &["--no-cache"]);
    assert!(at(&v, "TLS015").is_empty(), "{v}");
    let w: Vec<&serde_json::Value> =
        v["findings"].as_array().expect("f").iter().filter(|f| f["code"] == "LOD010").collect();
    assert_eq!(w.len(), 1, "{v}");
    assert!(w[0]["evidence"].to_string().contains("pass --fetch"), "{}", w[0]);
    assert_eq!(served.load(std::sync::atomic::Ordering::SeqCst), 0, "nothing is fetched without --fetch");
    // With --fetch: helm pulls 0.1.0 from the repository, and the chart's objects are checked, shown at the
    // HelmRelease that names the chart.
    let v = lint(&d, &["--no-cache", "--fetch"]);
    assert_eq!(at(&v, "TLS015"), vec!["clusters/main/web.yaml:6"], "{v}");
    assert!(served.load(std::sync::atomic::Ordering::SeqCst) >= 2, "index and chart were served");
    assert!(!codes(&v).contains(&"LOD010".to_string()), "{v}");
}

/// A remote chart helm already pulled is rendered from helm's cache without --fetch, but only the archive
/// the repository's cached index lists with the same digest (#12 item 2).
#[test]
fn remote_charts_in_helms_cache_are_rendered_without_fetch() {
    let chart = checkout();
    web_chart(&chart, "web");
    // helm's home as `helm repo add acme …` and a pull leave it: the list, the index, the archive.
    let home = tempfile::tempdir().expect("tmp");
    let cache = home.path().join("repository");
    std::fs::create_dir_all(&cache).expect("mkdir");
    let helm = |args: &[&str]| {
        let out = std::process::Command::new("helm").args(args).output().expect("helm");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    helm(&["package", &chart.path().join("web").to_string_lossy(), "--destination", &cache.to_string_lossy()]);
    helm(&["repo", "index", &cache.to_string_lossy(), "--url", "https://charts.example.org"]);
    std::fs::rename(cache.join("index.yaml"), cache.join("acme-index.yaml")).expect("rename");
    let repositories = home.path().join("repositories.yaml");
    std::fs::write(
        &repositories,
        "apiVersion: \"\"\nrepositories:\n  - name: acme\n    url: https://charts.example.org/\n",
    )
    .expect("write");
    let d = checkout();
    d.write(
        "cluster/issuer.yaml",
        "apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata: {name: le}\nspec: {selfSigned: {}}\n",
    );
    d.write("cluster/class.yaml", CLASS);
    let release = |version: &str| {
        format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {{name: acme, namespace: flux-system}}\nspec: {{url: https://charts.example.org}}\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: web, namespace: web}}\nspec:\n  chart:\n    spec:\n      chart: web\n      version: {version}\n      sourceRef: {{kind: HelmRepository, name: acme, namespace: flux-system}}\n  values:\n    host: shop.example.com\n")
    };
    let run = |version: &str| {
        d.write("clusters/main/web.yaml", release(version));
        let out = assert_cmd::Command::cargo_bin("edgecheck")
            .expect("binary")
            .current_dir(d.path())
            .args(["lint", ".", "--format", "json", "--no-config", "--no-cache"])
            .env("HELM_REPOSITORY_CONFIG", &repositories)
            .env("HELM_REPOSITORY_CACHE", &cache)
            .output()
            .expect("run");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("json")
    };
    let v = run("0.1.0");
    assert_eq!(at(&v, "TLS015"), vec!["clusters/main/web.yaml:6"], "{v}");
    assert!(!codes(&v).contains(&"LOD010".to_string()), "{v}");
    // Near miss: a version helm has not pulled is listed as remote, never fetched.
    let v = run("0.2.0");
    assert!(at(&v, "TLS015").is_empty(), "{v}");
    let w: Vec<&serde_json::Value> =
        v["findings"].as_array().expect("f").iter().filter(|f| f["code"] == "LOD010").collect();
    assert!(w.len() == 1 && w[0]["evidence"].to_string().contains("not in helm's cache"), "{v}");
}

/// A local chart whose dependencies are not vendored is listed without --fetch; with it, helm fetches them
/// into a copy of the chart (the checkout is not written) and the subchart's objects are checked (#12 item 2).
#[test]
fn chart_dependencies_are_fetched_only_with_fetch() {
    let chart = checkout();
    web_chart(&chart, "web");
    let (url, _server, served) = helm_repository(&chart.path().join("web"));
    let d = checkout();
    d.write("cluster/class.yaml", CLASS);
    d.write(
        "cluster/issuer.yaml",
        "apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata: {name: le}\nspec: {selfSigned: {}}\n",
    );
    d.write(
        "charts/umbrella/Chart.yaml",
        format!("apiVersion: v2\nname: umbrella\nversion: 1.0.0\ndependencies:\n  - name: web\n    version: 0.1.0\n    repository: {url}\n"),
    );
    d.write("charts/umbrella/values.yaml", "web:\n  host: shop.example.com\n");
    d.write(
        "argocd/umbrella.yaml",
        application("umbrella", &format!("  source:\n    repoURL: {REPO}\n    path: charts/umbrella\n")),
    );
    let v = lint(&d, &["--no-cache"]);
    let w: Vec<&serde_json::Value> =
        v["findings"].as_array().expect("f").iter().filter(|f| f["code"] == "LOD010").collect();
    assert!(w.len() == 1 && w[0]["evidence"].to_string().contains("not vendored"), "{v}");
    assert_eq!(served.load(std::sync::atomic::Ordering::SeqCst), 0, "nothing is fetched without --fetch");
    let v = lint(&d, &["--no-cache", "--fetch"]);
    assert!(!codes(&v).contains(&"LOD010".to_string()), "{v}");
    // The subchart's Certificate does not cover the host the umbrella's values give its Ingress.
    let tls015: Vec<&serde_json::Value> =
        v["findings"].as_array().expect("f").iter().filter(|f| f["code"] == "TLS015").collect();
    assert_eq!(tls015.len(), 1, "{v}");
    assert!(served.load(std::sync::atomic::Ordering::SeqCst) >= 2, "index and chart were served");
    assert!(!d.path().join("charts/umbrella/charts").exists(), "the checkout is not written");
}

/// A HelmRelease's `chartRef` to an OCIRepository names the chart and tag helm would pull (#12 item 2); one
/// to a source the inputs do not hold says so.
#[test]
fn oci_chart_refs_name_the_chart_they_pull() {
    let d = checkout();
    let release = |source: &str| {
        format!("{source}apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: podinfo, namespace: web}}\nspec:\n  chartRef: {{kind: OCIRepository, name: podinfo}}\n")
    };
    let oci = "apiVersion: source.toolkit.fluxcd.io/v1beta2\nkind: OCIRepository\nmetadata: {name: podinfo, namespace: web}\nspec:\n  url: oci://ghcr.io/stefanprodan/charts/podinfo\n  ref: {tag: 6.5.4}\n---\n";
    d.write("clusters/main/podinfo.yaml", release(oci));
    let evidence = |v: &serde_json::Value| {
        v["findings"]
            .as_array()
            .expect("f")
            .iter()
            .filter(|f| f["code"] == "LOD010")
            .map(|f| f["evidence"].to_string())
            .collect::<Vec<_>>()
    };
    let e = evidence(&lint(&d, &["--no-cache"]));
    assert!(
        e.len() == 1
            && e[0].contains("oci://ghcr.io/stefanprodan/charts/podinfo 6.5.4")
            && e[0].contains("pass --fetch"),
        "{e:?}"
    );
    d.write("clusters/main/podinfo.yaml", release(""));
    let e = evidence(&lint(&d, &["--no-cache"]));
    assert!(e.len() == 1 && e[0].contains("a source the inputs do not hold"), "{e:?}");
}

#[test]
fn cluster_selects_one_clusters_builds_and_files() {
    // Flux's documented layout, and trees told apart only by where their self-applying roots sit.
    for layout in ["clusters", "kubernetes"] {
        two_clusters(layout);
    }
}

/// Two clusters' Flux trees under `{layout}/prod` and `{layout}/lab`, each with its own settings and Gateway,
/// sharing `apps/portal`.
fn two_clusters(layout: &str) {
    let d = checkout();
    for (cluster, domain) in [("prod", "example.com"), ("lab", "example.org")] {
        d.write(
            &format!("{layout}/{cluster}/flux-system/gotk-sync.yaml"),
            format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  path: ./{layout}/{cluster}\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"),
        );
        d.write(&format!("{layout}/{cluster}/flux-system/kustomization.yaml"), "resources: [gotk-sync.yaml]\n");
        d.write(
            &format!("{layout}/{cluster}/apps.yaml"),
            format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: portal, namespace: flux-system}}\nspec:\n  path: ./apps/portal\n  targetNamespace: portal-{cluster}\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n  postBuild: {{substituteFrom: [{{kind: ConfigMap, name: cluster-settings}}]}}\n"),
        );
        // Each cluster has its own settings under the same name: each build reads its own cluster's.
        d.write(
            &format!("{layout}/{cluster}/settings.yaml"),
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cluster-settings, namespace: flux-system}}\ndata: {{DOMAIN: {domain}}}\n"),
        );
    }
    d.write(
        &format!("{layout}/prod/gateway.yaml"),
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: cilium}\nspec: {controllerName: io.cilium/gateway-controller}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: main, namespace: gateway}\nspec:\n  gatewayClassName: cilium\n  listeners:\n    - {name: http, port: 80, protocol: HTTP, hostname: \"*.example.com\", allowedRoutes: {namespaces: {from: All}}}\n",
    );
    d.write(
        &format!("{layout}/lab/gateway.yaml"),
        std::fs::read_to_string(d.path().join(format!("{layout}/prod/gateway.yaml")))
            .expect("gw")
            .replace("example.com", "example.org"),
    );
    d.write(
        "apps/portal/route.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: portal}\nspec:\n  parentRefs: [{name: main, namespace: gateway}]\n  hostnames: [\"portal.${DOMAIN}\"]\n  rules: [{backendRefs: [{name: portal, port: 80}]}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: portal}\nspec: {ports: [{port: 80}]}\n",
    );
    for cluster in ["prod", "lab"] {
        let r =
            edgecheck(d.path(), &["lint", ".", "--no-config", "--show-builds", "--no-snippets", "--cluster", cluster]);
        assert!(r.stdout.contains(&format!("cluster {cluster}")), "{}", r.stdout);
        let other = if cluster == "prod" { "lab" } else { "prod" };
        assert!(!r.stdout.contains(&format!("cluster {other}")), "{}", r.stdout);
        // Each cluster's route meets its own Gateway: the hosts agree, nothing is wrong.
        assert!(!r.stdout.contains("RTE001"), "{}", r.stdout);
        let v = json(&edgecheck(d.path(), &["lint", ".", "--no-config", "--format", "json", "--cluster", cluster]));
        let hosts: Vec<&str> =
            v["diagnoses"].as_array().expect("d").iter().filter_map(|d| d["host"].as_str()).collect();
        let want = if cluster == "prod" { "portal.example.com" } else { "portal.example.org" };
        assert_eq!(hosts, vec![want], "{v}");
    }
    // Without --cluster each cluster is an inventory of its own, reported apart: each build reads its own
    // cluster's `cluster-settings`, and objects say which cluster's inventory they are in.
    let v = json(&edgecheck(d.path(), &["lint", ".", "--no-config", "--format", "json"]));
    let mut hosts: Vec<&str> =
        v["diagnoses"].as_array().expect("d").iter().filter_map(|d| d["host"].as_str()).collect();
    hosts.sort_unstable();
    assert_eq!(hosts, vec!["portal.example.com", "portal.example.org"], "{v}");
    let mut routes: Vec<(String, String)> = v["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .filter(|o| o["kind"] == "HTTPRoute")
        .map(|o| (o["cluster"].as_str().unwrap_or("-").to_string(), o["namespace"].as_str().unwrap_or("-").to_string()))
        .collect();
    routes.sort();
    assert_eq!(
        routes,
        [("lab".to_string(), "portal-lab".to_string()), ("prod".to_string(), "portal-prod".to_string())]
    );
    assert!(!codes(&v).contains(&"LOD004".to_string()), "{v}");
    let text = edgecheck(d.path(), &["lint", ".", "--no-config", "--no-snippets"]).stdout;
    assert!(
        text.contains(". · cluster lab") && text.contains(". · cluster prod") && text.contains("2 clusters:"),
        "{text}"
    );
    // Each build is rendered once in a run, without the cache too (#17): linting both clusters runs the
    // tool as often as linting one, which renders every cluster's builds (it ran three times as often).
    let runs = |extra: &[&str]| -> usize {
        let (real, name) = match which("kustomize") {
            Some(p) => (p, "kustomize-counted"),
            None => {
                (which("kubectl").expect("kustomize or kubectl (scripts/test.sh installs kubectl)"), "kubectl-counted")
            }
        };
        let log = d.path().join("runs.log");
        let _ = std::fs::remove_file(&log);
        let tool = d.write(
            &format!("bin/{name}"),
            format!(
                "#!/bin/sh\ncase \"$*\" in *version*) ;; *) echo run >> '{}' ;; esac\nexec '{}' \"$@\"\n",
                log.display(),
                real.display()
            ),
        );
        std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
        let tool = format!("bin/{name}");
        let mut args = vec!["lint", ".", "--no-config", "--no-cache", "--kustomize", tool.as_str()];
        args.extend_from_slice(extra);
        let r = edgecheck(d.path(), &args);
        assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
        std::fs::read_to_string(&log).unwrap_or_default().lines().count()
    };
    let one = runs(&["--cluster", "prod"]);
    assert!(one >= 4, "every cluster's builds are rendered: {one}");
    assert_eq!(runs(&[]), one, "both clusters' parts reuse the first pass's renders");
    // SARIF says it too, beside the build.
    d.write(
        "apps/portal/extra.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: extra}\nspec:\n  parentRefs: [{name: main, namespace: gateway}]\n  hostnames: [Extra.Example.com]\n  rules: [{backendRefs: [{name: portal, port: 80}]}]\n",
    );
    let sarif = edgecheck(d.path(), &["lint", ".", "--no-config", "--format", "sarif"]).stdout;
    let sarif: serde_json::Value = serde_json::from_str(&sarif).expect("sarif");
    let mut clusters: Vec<String> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["ruleId"] == "DNS001")
        .map(|r| {
            format!(
                "{}|{}",
                r["properties"]["cluster"].as_str().unwrap_or("-"),
                r["properties"]["build"].as_str().unwrap_or("-")
            )
        })
        .collect();
    clusters.sort();
    assert_eq!(clusters.len(), 2, "{sarif}");
    assert!(clusters[0].starts_with("lab|Kustomization flux-system/portal"), "{clusters:?}");
    assert!(clusters[1].starts_with("prod|Kustomization flux-system/portal"), "{clusters:?}");
    // A cluster no build targets is bad usage, naming the clusters there are.
    let r = edgecheck(d.path(), &["lint", ".", "--no-config", "--cluster", "staging"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--cluster staging") && r.stderr.contains("lab, prod"), "{}", r.stderr);
}

#[test]
fn symlinks_that_leave_the_checkout_are_not_followed_into_a_build() {
    // #16: a hostile checkout links a chart template, a values file or a kustomize resource to a file
    // outside it; helm and kustomize would read it into the output. The build is not rendered, with the
    // reason, and what lies outside never reaches any output.
    const PLANTED: &str = "planted-outside-the-checkout";
    let outside = Dir::new();
    let secret = outside.write(
        "secret.yaml",
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {PLANTED}, namespace: web}}\ndata: {{k: {PLANTED}}}\n"
        ),
    );
    let d = checkout();
    // A chart with a template linked out.
    d.write("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n");
    d.write("charts/web/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: inside}\n");
    std::os::unix::fs::symlink(&secret, d.path().join("charts/web/templates/linked.yaml")).expect("link");
    d.write("argocd/web.yaml", application("web", &format!("  source:\n    repoURL: {REPO}\n    path: charts/web\n")));
    // A kustomization whose resource is linked out.
    d.write("apps/shop/kustomization.yaml", "resources: [cm.yaml, linked.yaml]\n");
    d.write("apps/shop/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop, namespace: web}\n");
    std::os::unix::fs::symlink(&secret, d.path().join("apps/shop/linked.yaml")).expect("link");
    d.write("argocd/shop.yaml", application("shop", &format!("  source:\n    repoURL: {REPO}\n    path: apps/shop\n")));
    let r = edgecheck(d.path(), &["lint", ".", "--no-config", "--show-builds", "--no-cache"]);
    assert!(r.code == 0 || r.code == 1, "exit {}: {}", r.code, r.stderr);
    assert!(
        r.stdout.contains(
            "not rendered: `charts/web/templates/linked.yaml` is a symbolic link that leads out of the linted checkout"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("not rendered: `apps/shop/linked.yaml` is a symbolic link that leads out of the linted checkout"),
        "{}",
        r.stdout
    );
    for format in ["text", "json"] {
        let r = edgecheck(d.path(), &["lint", ".", "--no-config", "--no-cache", "--format", format]);
        assert!(!r.stdout.contains(PLANTED) && !r.stderr.contains(PLANTED), "{format}: {}", r.stdout);
    }
    // Near miss: a link that stays inside the checkout is followed as before.
    std::fs::remove_file(d.path().join("apps/shop/linked.yaml")).expect("rm");
    std::os::unix::fs::symlink("cm.yaml", d.path().join("apps/shop/linked.yaml")).expect("link");
    std::fs::remove_file(d.path().join("charts/web/templates/linked.yaml")).expect("rm");
    let r = edgecheck(d.path(), &["lint", ".", "--no-config", "--show-builds", "--no-cache"]);
    assert!(!r.stdout.contains("symbolic link"), "{}", r.stdout);
    assert!(r.stdout.contains("Application argocd/shop"), "{}", r.stdout);
}

/// `name` on `PATH`.
fn which(name: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.is_file())
}

#[test]
fn a_failed_build_that_rewrites_its_files_does_not_lint_their_placeholders() {
    // A kustomization fills hostnames from an env file that is not in the checkout (git-ignored), with
    // `replacements`: its build fails, and its files hold placeholders only the build would replace. They
    // are not checked as written (48 false errors on a public repository); LOD010 says the build was not
    // rendered. Near miss: a failed build that rewrites nothing still has its files checked as written.
    let d = checkout();
    d.write(
        "apps/web/route.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: web, namespace: web}\nspec:\n  hostnames: [web.AUTOMATIC_REPLACE]\n  rules: [{backendRefs: [{name: web, port: 80}]}]\n",
    );
    let kustomization = "resources: [route.yaml]\nconfigMapGenerator:\n- name: env\n  envs: [env/cluster.env]\n";
    let replacements = "replacements:\n- source: {kind: ConfigMap, name: env, fieldPath: data.DOMAIN}\n  targets:\n  - select: {kind: HTTPRoute}\n    fieldPaths: [spec.hostnames.0]\n    options: {delimiter: '.', index: 1}\n";
    d.write("apps/web/kustomization.yaml", format!("{kustomization}{replacements}"));
    let v = lint(&d, &["--no-cache"]);
    assert!(!codes(&v).contains(&"DNS001".to_string()), "{v}");
    assert!(evidence(&v, "LOD010").contains("apps/web"), "{v}");
    d.write("apps/web/kustomization.yaml", kustomization);
    let v = lint(&d, &["--no-cache"]);
    assert!(codes(&v).contains(&"DNS001".to_string()), "{v}");
}

#[test]
fn a_file_loose_in_one_clusters_build_directory_is_not_checked_in_another_cluster() {
    // Two Flux clusters, each with its own Gateway. prod's Kustomization builds apps/external, whose
    // kustomization lists route.yaml but not extra.yaml (loose in prod). extra.yaml claims a prod host: lab's
    // part checked it against lab's Gateway (*.example.org) and called it broken.
    let d = checkout();
    for (cluster, domain) in [("prod", "example.com"), ("lab", "example.org")] {
        d.write(
            &format!("clusters/{cluster}/flux-system/gotk-sync.yaml"),
            format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  path: ./clusters/{cluster}\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"),
        );
        d.write(
            &format!("clusters/{cluster}/gateway.yaml"),
            format!("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {{name: envoy}}\nspec: {{controllerName: gateway.envoyproxy.io/gatewayclass-controller}}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {{name: main, namespace: gateway}}\nspec:\n  gatewayClassName: envoy\n  listeners:\n    - {{name: http, port: 80, protocol: HTTP, hostname: \"*.{domain}\", allowedRoutes: {{namespaces: {{from: All}}}}}}\n"),
        );
    }
    d.write(
        "clusters/prod/external.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: external, namespace: flux-system}\nspec:\n  path: ./apps/external\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    let route = |name: &str, host: &str| {
        format!("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {{name: {name}, namespace: external}}\nspec:\n  parentRefs: [{{name: main, namespace: gateway}}]\n  hostnames: [{host}]\n  rules: [{{backendRefs: [{{name: {name}, port: 80}}]}}]\n---\napiVersion: v1\nkind: Service\nmetadata: {{name: {name}, namespace: external}}\nspec: {{ports: [{{port: 80}}]}}\n")
    };
    d.write("apps/external/kustomization.yaml", "resources: [route.yaml]\n");
    d.write("apps/external/route.yaml", route("nas", "nas.example.com"));
    d.write("apps/external/extra.yaml", route("pve", "pve.example.com"));
    let v = lint(&d, &["--no-cache"]);
    let rte001: Vec<&serde_json::Value> =
        v["findings"].as_array().expect("findings").iter().filter(|f| f["code"] == "RTE001").collect();
    assert!(rte001.is_empty(), "{rte001:?}");
    // It is still loose in prod, where its directory is built.
    let loose: Vec<(String, String)> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "LOD011")
        .map(|f| (f["cluster"].as_str().unwrap_or("-").to_string(), f["file"].as_str().unwrap_or("-").to_string()))
        .collect();
    assert_eq!(loose, [("prod".to_string(), "apps/external".to_string())], "{v}");
}

#[test]
fn two_loose_files_defining_one_object_are_alternatives_not_duplicates() {
    // In a repository with builds, files no build applies (LOD011) that define the same object are kept
    // side by side (a runbook's steps, a doc's working and failing versions): no duplicate the cluster
    // sees. Near miss: without builds, every file is what is applied, and two definitions collide.
    let d = checkout();
    d.write("apps/web/kustomization.yaml", "resources: [svc.yaml]\n");
    d.write(
        "apps/web/svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: web}\nspec: {ports: [{port: 80}]}\n",
    );
    let deploy = |replicas: u32| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: db, namespace: db}}\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: db}}}}\n  template:\n    metadata: {{labels: {{app: db}}}}\n    spec: {{containers: [{{name: db, image: postgres:17}}]}}\n")
    };
    d.write("recover/04-restore.yaml", deploy(0));
    d.write("recover/11-restore.yaml", deploy(1));
    let v = lint(&d, &["--no-cache"]);
    assert!(codes(&v).contains(&"LOD011".to_string()), "{v}");
    assert!(!codes(&v).contains(&"LOD004".to_string()), "{v}");
    let plain = Dir::new();
    plain.write("recover/04-restore.yaml", deploy(0));
    plain.write("recover/11-restore.yaml", deploy(1));
    let v = lint(&plain, &[]);
    assert!(codes(&v).contains(&"LOD004".to_string()), "{v}");
}

/// Two Flux clusters over one checkout, each with `clusters/<name>/flux-system` and the Flux Kustomizations
/// `extra` names (`name=path`).
fn flux_clusters(d: &Dir, clusters: &[(&str, &[(&str, &str)])]) {
    for (cluster, kustomizations) in clusters {
        d.write(
            &format!("clusters/{cluster}/flux-system/gotk-sync.yaml"),
            format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  url: {REPO}\n  ref: {{branch: main}}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  path: ./clusters/{cluster}\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"),
        );
        for (name, spec) in *kustomizations {
            d.write(
                &format!("clusters/{cluster}/{name}.yaml"),
                format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: {name}, namespace: flux-system}}\nspec:\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n{spec}"),
            );
        }
    }
}

#[test]
fn an_aggregate_of_directories_flux_applies_one_by_one_is_not_a_plain_root() {
    // `infra/network` lists `gw` and `vpn`; each cluster's Flux applies `gw`, only prod applies `vpn` (and
    // holds the ReferenceGrant its route needs). As a plain root, the aggregate put vpn's route in lab,
    // where no grant allows it: a false RTE002 (petebeegle/homelab).
    let d = checkout();
    let both: &[(&str, &str)] = &[("gw", "  path: ./infra/network/gw\n"), ("auth", "  path: ./infra/auth\n")];
    let prod: Vec<(&str, &str)> = both.iter().copied().chain([("vpn", "  path: ./infra/network/vpn\n")]).collect();
    flux_clusters(&d, &[("prod", &prod), ("lab", both)]);
    d.write("infra/network/kustomization.yaml", "resources: [./gw, ./vpn]\n");
    d.write("infra/network/gw/kustomization.yaml", "resources: [gateway.yaml]\n");
    d.write(
        "infra/network/gw/gateway.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: envoy}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: main, namespace: gateway}\nspec:\n  gatewayClassName: envoy\n  listeners:\n    - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}\n",
    );
    d.write("infra/network/vpn/kustomization.yaml", "resources: [route.yaml]\n");
    d.write(
        "infra/network/vpn/route.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: vpn-ui, namespace: vpn}\nspec:\n  parentRefs: [{name: main, namespace: gateway}]\n  hostnames: [vpn.example.com]\n  rules: [{backendRefs: [{name: auth, namespace: auth, port: 80}]}]\n",
    );
    d.write(
        "infra/auth/service.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: auth, namespace: auth}\nspec: {ports: [{port: 80}]}\n",
    );
    let grant = "apiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: vpn, namespace: auth}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: vpn}]\n  to: [{group: \"\", kind: Service}]\n";
    d.write("clusters/prod/grant.yaml", grant);
    let v = lint(&d, &["--no-cache"]);
    assert!(in_clusters(&v, "RTE002").is_empty(), "{v}");
    // An overlay of a directory a controller applies, which changes it (here its namespace), is still a build
    // of its own; the aggregate is not.
    d.write("overlays/staging/kustomization.yaml", "namespace: staging\nresources: [../../infra/network/gw]\n");
    let r = edgecheck(d.path(), &["lint", ".", "--show-builds", "--no-config", "--no-cache"]);
    assert!(r.stdout.contains("kustomization overlays/staging"), "{}", r.stdout);
    assert!(!r.stdout.contains("kustomization infra/network "), "{}", r.stdout);
    std::fs::remove_dir_all(d.path().join("overlays")).expect("rm");
    // Near miss: prod, which applies vpn, loses its grant.
    std::fs::remove_file(d.path().join("clusters/prod/grant.yaml")).expect("rm");
    let v = lint(&d, &["--no-cache"]);
    assert_eq!(in_clusters(&v, "RTE002"), ["prod infra/network/vpn/route.yaml"], "{v}");
}

#[test]
fn a_helm_release_reads_the_values_its_own_clusters_build_generated() {
    // One directory holds a HelmRelease of a chart in the checkout and the ConfigMap of its values, made by
    // a configMapGenerator with a `${domain}` each cluster's Flux Kustomization substitutes. Two copies of
    // the ConfigMap, one per cluster: each cluster's release reads its own, where it used to read none.
    let d = checkout();
    web_chart(&d, "charts/web");
    let ks = |domain: &str| format!("  path: ./apps/web\n  postBuild:\n    substitute: {{domain: {domain}}}\n");
    let (prod, lab) = (ks("example.com"), ks("example.org"));
    flux_clusters(&d, &[("prod", &[("web", prod.as_str())]), ("lab", &[("web", lab.as_str())])]);
    d.write(
        "apps/web/kustomization.yaml",
        "resources: [release.yaml]\nconfigMapGenerator:\n  - name: web-values\n    namespace: web\n    files: [values.yaml=values.yaml]\n    options: {disableNameSuffixHash: true}\n",
    );
    d.write("apps/web/values.yaml", "host: web.${domain}\n");
    d.write(
        "apps/web/release.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: web}\nspec:\n  releaseName: web\n  chart:\n    spec:\n      chart: ./charts/web\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n  valuesFrom:\n    - kind: ConfigMap\n      name: web-values\n",
    );
    let v = lint(&d, &["--no-cache"]);
    // The certificate is for web.example.com: lab's host (web.example.org) is not covered; prod's is.
    assert_eq!(in_clusters(&v, "TLS015"), ["lab charts/web/templates/certificate.yaml"], "{v}");
    assert!(!evidence(&v, "LOD010").contains("is not in the inputs"), "{v}");
}

#[test]
fn a_config_named_from_elsewhere_says_which_repository_a_mirror_clone_is() {
    // A clone of a local mirror: `origin` is a path, so the Flux GitRepository's URL names no linted
    // checkout and nothing is rendered. `--config` from outside the clone, with `repo-urls`, says which
    // repository it is.
    let d = flux("example.org");
    d.write(".git/config", "[remote \"origin\"]\n\turl = /srv/mirrors/platform.git\n");
    let elsewhere = Dir::new();
    elsewhere.write("ci.toml", format!("repo-urls = [\"{REPO}\"]\n"));
    let run = |config: Option<&std::path::Path>| {
        let cfg = config.map(|c| c.display().to_string());
        let mut args = vec!["lint", ".", "--format", "json"];
        match &cfg {
            Some(c) => args.extend(["--config", c.as_str()]),
            None => args.push("--no-config"),
        }
        json(&edgecheck(d.path(), &args))
    };
    assert!(at(&run(None), "RTE001").is_empty(), "nothing rendered without it");
    let v = run(Some(&elsewhere.path().join("ci.toml")));
    assert_eq!(at(&v, "RTE001"), vec!["apps/portal/route.yaml:5"], "{v}");
    // Near misses: a configuration from elsewhere that names another repository, and one inside the clone
    // (its URLs name its own directory, as a found configuration's do, not the whole clone).
    elsewhere.write("other.toml", "repo-urls = [\"https://github.com/acme/other.git\"]\n");
    assert!(at(&run(Some(&elsewhere.path().join("other.toml"))), "RTE001").is_empty());
    d.write("examples/x/ci.toml", format!("repo-urls = [\"{REPO}\"]\n"));
    assert!(at(&run(Some(&d.path().join("examples/x/ci.toml"))), "RTE001").is_empty());
    // A configuration in a directory above the clone (`/tmp/ci.toml` for `/tmp/clone`) names the clone too,
    // not the directory it is in.
    let above = Dir::new();
    let clone = above.path().join("clone");
    std::fs::rename(d.path(), &clone).or_else(|_| copy_dir(d.path(), &clone)).expect("move the clone");
    above.write("ci.toml", format!("repo-urls = [\"{REPO}\"]\n"));
    let cfg = above.path().join("ci.toml").display().to_string();
    let v = json(&edgecheck(&clone, &["lint", ".", "--format", "json", "--config", &cfg]));
    assert_eq!(at(&v, "RTE001"), vec!["apps/portal/route.yaml:5"], "{v}");
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()))?;
        } else {
            std::fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}

#[test]
fn a_failed_build_keeps_only_the_files_its_kustomization_lists() {
    // A kustomization that cannot be rendered here (an env file that is not in the checkout) lists
    // cluster.yaml; a `recover/` directory beside it holds two runbook steps that define the same
    // database. They are no files of the build (kustomize would not read them): in a repository whose
    // other builds render, loose alternatives, not a duplicate (theepicsaxguy/homelab). What it lists is
    // still checked as written.
    let d = checkout();
    let db = |size: &str| {
        format!("apiVersion: postgresql.cnpg.io/v1\nkind: Cluster\nmetadata: {{name: db, namespace: auth}}\nspec: {{instances: 1, storage: {{size: {size}}}}}\n")
    };
    d.write(
        "auth/kustomization.yaml",
        "resources: [cluster.yaml]\nconfigMapGenerator:\n- name: env\n  envs: [env/cluster.env]\n",
    );
    d.write("auth/cluster.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: ext, namespace: auth}\nspec: {type: ExternalName, externalName: not_a_host}\n");
    d.write("auth/recover/04-cluster.yaml", db("1Gi"));
    d.write("auth/recover/11-cluster.yaml", db("2Gi"));
    // Another build that renders.
    d.write("web/kustomization.yaml", "resources: [svc.yaml]\n");
    d.write(
        "web/svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: web}\nspec: {ports: [{port: 80}]}\n",
    );
    let v = lint(&d, &["--no-cache"]);
    assert!(evidence(&v, "LOD010").contains("auth"), "{v}");
    assert!(at(&v, "LOD004").is_empty(), "{v}");
    assert_eq!(at(&v, "LOD011"), vec!["auth/recover:0"], "{v}");
    assert_eq!(at(&v, "DNS001"), vec!["auth/cluster.yaml:4"], "listed, checked as written: {v}");
    // Near miss: listed by the failed build, the two copies are one build's duplicate.
    d.write(
        "auth/kustomization.yaml",
        "resources: [cluster.yaml, recover/04-cluster.yaml, recover/11-cluster.yaml]\nconfigMapGenerator:\n- name: env\n  envs: [env/cluster.env]\n",
    );
    let v = lint(&d, &["--no-cache"]);
    assert_eq!(at(&v, "LOD004"), vec!["auth/recover/11-cluster.yaml:1"], "{v}");
}

#[test]
fn a_flux_kustomization_of_an_external_artifact_sets_the_namespace_of_what_it_applies() {
    // An ExternalArtifact packs `kubernetes/apps/auth/app` as `./apps/auth/app` (Flux's artifact generator): the path
    // is found below the Kustomization's own directories, and its targetNamespace is where the objects
    // there land, though the build is not rendered here. A ReferenceGrant written without a namespace is
    // auth's, not default's (xunholy/k8s-gitops: two false RTE002).
    let ks = |target: &str| {
        format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: auth, namespace: flux-system}}\nspec:\n  path: ./apps/auth/app\n{target}  sourceRef: {{kind: ExternalArtifact, name: auth, namespace: flux-system}}\n")
    };
    let d = checkout();
    d.write("kubernetes/apps/auth/ks.yaml", ks("  targetNamespace: auth\n"));
    d.write("kubernetes/apps/auth/app/kustomization.yaml", "resources: [svc.yaml, grant.yaml]\n");
    d.write(
        "kubernetes/apps/auth/app/svc.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: sso}\nspec: {ports: [{port: 80}]}\n",
    );
    d.write(
        "kubernetes/apps/auth/app/grant.yaml",
        "apiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: web}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: web}]\n  to: [{group: \"\", kind: Service}]\n",
    );
    d.write(
        "kubernetes/apps/web/route.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: envoy}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: main, namespace: web}\nspec:\n  gatewayClassName: envoy\n  listeners: [{name: http, port: 80, protocol: HTTP}]\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: login, namespace: web}\nspec:\n  parentRefs: [{name: main}]\n  rules: [{backendRefs: [{name: sso, namespace: auth, port: 80}]}]\n",
    );
    let v = lint(&d, &["--no-cache"]);
    assert!(at(&v, "RTE002").is_empty(), "{v}");
    // Near miss: without targetNamespace the grant stays in default, where it allows nothing.
    d.write("kubernetes/apps/auth/ks.yaml", ks(""));
    let v = lint(&d, &["--no-cache"]);
    assert_eq!(at(&v, "RTE002"), vec!["kubernetes/apps/web/route.yaml:18"], "{v}");
}

/// An ApplicationSet edgecheck cannot expand (a `clusters` generator) whose template renders a chart from a
/// repository it names by placeholder, into its own (Argo CD's) namespace: it may make more Applications,
/// which make anything anywhere, so a Service a route names is not reported missing. Near misses: a template
/// whose source is a directory of this checkout (its files are the inputs: the Service is missing), and one
/// whose chart goes to a namespace it names (only that namespace is out of sight).
#[test]
fn what_an_unexpanded_application_set_makes_is_not_missing() {
    let d = checkout();
    d.write(
        "apps/auth/route.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: auth, namespace: auth}\nspec:\n  hostnames: [auth.example.com]\n  rules: [{backendRefs: [{name: auth-server, port: 80}]}]\n",
    );
    d.write(
        "apps/auth/redis.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: auth-redis, namespace: auth}\nspec: {ports: [{port: 6379}]}\n",
    );
    let set = |source: &str, namespace: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {{name: addons, namespace: argocd}}\nspec:\n  generators:\n    - clusters: {{selector: {{matchLabels: {{role: control-plane}}}}}}\n  template:\n    metadata: {{name: 'addons-{{{{name}}}}'}}\n    spec:\n      project: default\n{source}      destination: {{name: '{{{{name}}}}', namespace: {namespace}}}\n"
        )
    };
    let remote =
        "      source: {repoURL: '{{metadata.annotations.addons_repo}}', path: charts/addons, targetRevision: main}\n";
    d.write("bootstrap/addons.yaml", set(remote, "argocd"));
    let v = lint(&d, &[]);
    assert!(at(&v, "BKD001").is_empty(), "{v}");
    // The template's source is this checkout's directory: nothing out of sight.
    let local = format!("      source: {{repoURL: '{REPO}', path: apps/auth, targetRevision: main}}\n");
    d.write("bootstrap/addons.yaml", set(&local, "argocd"));
    let v = lint(&d, &[]);
    assert_eq!(at(&v, "BKD001"), vec!["apps/auth/route.yaml:6"], "{v}");
    // A chart into a namespace the template names: that namespace only.
    let chart = "      source: {repoURL: 'https://charts.example.com', chart: addons, targetRevision: 1.0.0}\n";
    d.write("bootstrap/addons.yaml", set(chart, "monitoring"));
    let v = lint(&d, &[]);
    assert_eq!(at(&v, "BKD001"), vec!["apps/auth/route.yaml:6"], "{v}");
    d.write("bootstrap/addons.yaml", set(chart, "auth"));
    let v = lint(&d, &[]);
    assert!(at(&v, "BKD001").is_empty(), "{v}");
}

/// A repository a generator fills in (kubefirst's gitops template): a line that is a placeholder alone where
/// mapping entries go does not parse, and the file is a template, not invalid YAML; an Application's
/// `helm.values` holding one is not rendered, and that is not an error. Near miss: a broken file without a
/// placeholder is invalid YAML.
#[test]
fn placeholder_lines_make_a_template_not_invalid_yaml() {
    let d = checkout();
    d.write(
        "registry/ingress.yaml",
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: argocd\n  annotations:\n    nginx.ingress.kubernetes.io/backend-protocol: HTTP\n    <CERT_MANAGER_ISSUER_ANNOTATION_1>\nspec:\n  ingressClassName: nginx\n",
    );
    d.write("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n");
    d.write(
        "registry/web.yaml",
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: web, namespace: argocd}}\nspec:\n  project: default\n  source:\n    repoURL: {REPO}\n    path: charts/web\n    helm:\n      values: |\n        ingress:\n          annotations:\n            nginx.ingress.kubernetes.io/backend-protocol: HTTP\n            <CERT_MANAGER_ISSUER_ANNOTATION_1>\n  destination: {{server: https://kubernetes.default.svc, namespace: web}}\n"
        ),
    );
    let v = lint(&d, &[]);
    assert!(at(&v, "LOD001").is_empty(), "{v}");
    assert_eq!(v["summary"]["skipped_templates"], 1, "{v}");
    let not_rendered: Vec<&serde_json::Value> =
        v["findings"].as_array().expect("findings").iter().filter(|f| f["code"] == "LOD010").collect();
    assert_eq!(not_rendered.len(), 1, "{v}");
    assert_eq!(not_rendered[0]["severity"], "info", "{v}");
    assert!(not_rendered[0].to_string().contains("a template to be filled in"), "{v}");
    d.write(
        "registry/ingress.yaml",
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: argocd\n  annotations:\n    nginx.ingress.kubernetes.io/backend-protocol: HTTP\n    cert-manager.io/cluster-issuer\nspec:\n  ingressClassName: nginx\n",
    );
    let v = lint(&d, &[]);
    assert_eq!(at(&v, "LOD001"), vec!["registry/ingress.yaml:8"], "{v}");
}

/// An ApplicationSet whose Go template edgecheck refuses is named with the reason, which quotes the action it
/// could not read: a URL's password in it is masked in every format.
#[test]
fn a_refused_application_set_template_does_not_print_a_password() {
    const PLANTED: &str = "hunter2-planted-appset-secret";
    let d = checkout();
    d.write(
        "argocd/set.yaml",
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {{name: b, namespace: argocd}}\nspec:\n  goTemplate: true\n  generators: [{{list: {{elements: [{{n: a}}]}}}}]\n  template:\n    metadata: {{name: '{{{{ \"https://deploy:{PLANTED}@git.example.com/x\" | bad\\q }}}}'}}\n    spec: {{destination: {{namespace: x}}}}\n"
        ),
    );
    let mut seen = false;
    for format in ["text", "json", "sarif", "markdown", "html"] {
        let r = edgecheck(d.path(), &["lint", ".", "--no-config", "--show-builds", "--format", format]);
        for out in [&r.stdout, &r.stderr] {
            assert!(!out.contains(PLANTED), "{format} leaks the password: {out}");
            seen |= out.contains("https://deploy:***@git.example.com/x");
        }
    }
    assert!(seen, "the refusal is reported, with the password masked");
}

/// An app-of-apps chart that does not render (helm missing) makes Applications edgecheck cannot see: no
/// directory is then said to be applied by no build. A chart that makes no Applications keeps the finding.
#[test]
fn directories_are_not_called_unapplied_when_an_app_of_apps_chart_did_not_render() {
    let setup = |template: &str| {
        let d = checkout();
        d.write("argocd/root.yaml", application("root", &format!("  source:\n    repoURL: {REPO}\n    path: apps\n")));
        d.write("apps/Chart.yaml", "apiVersion: v2\nname: apps\nversion: 0.1.0\n");
        d.write("apps/templates/guestbook.yaml", template);
        d.write("guestbook/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: guestbook, namespace: web}\nspec:\n  ports: [{port: 80}]\n");
        // A build that renders (kustomize), so that there is something applied.
        d.write(
            "argocd/other.yaml",
            application("other", &format!("  source:\n    repoURL: {REPO}\n    path: other\n")),
        );
        d.write("other/kustomization.yaml", "resources: [cm.yaml]\n");
        d.write("other/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\n");
        d
    };
    let app_template = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: guestbook\n  namespace: argocd\nspec:\n  project: default\n  source:\n    repoURL: {{ .Values.repoURL }}\n    path: guestbook\n  destination: {server: https://kubernetes.default.svc, namespace: web}\n";
    let v = lint(&setup(app_template), &["--helm", "/nonexistent/helm"]);
    assert!(at(&v, "LOD011").is_empty(), "{v}");
    // Near miss: the chart makes a ConfigMap only; `guestbook/` is applied by nothing.
    let v = lint(&setup("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), &["--helm", "/nonexistent/helm"]);
    assert_eq!(at(&v, "LOD011").len(), 1, "{v}");
}
