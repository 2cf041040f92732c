//! Namespaces that builds set (kustomize overlays and bases, Flux `targetNamespace`), and objects a
//! chart renders where the repository cannot see them.

use crate::support::{codes, edgecheck, json, Dir};

/// `kind/namespace/name` of every object in the JSON report.
fn objects(v: &serde_json::Value) -> Vec<String> {
    v["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .map(|o| {
            format!(
                "{}/{}/{}",
                o["kind"].as_str().unwrap_or(""),
                o["namespace"].as_str().unwrap_or("-"),
                o["name"].as_str().unwrap_or("")
            )
        })
        .collect()
}

const SVC: &str = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: written\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n";
const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx, ports: [{containerPort: 8080}]}]}\n";
const INGRESS: &str = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  ingressClassName: nginx\n  rules: [{host: web.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}}]\n";
const CLASS: &str = "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n";

#[test]
fn the_outermost_kustomization_sets_the_namespace_and_renames_the_namespace_object() {
    let d = Dir::new();
    d.write("base/kustomization.yaml", "resources: [svc.yaml, deploy.yaml]\nnamespace: base-ns\n");
    d.write("base/svc.yaml", SVC);
    d.write("base/deploy.yaml", DEPLOY);
    d.write(
        "overlays/prod/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: prod\nresources:\n  - ../../base\n  - ./namespace.yaml\n  - ingress.yaml\n",
    );
    d.write("overlays/prod/namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: _}\n");
    d.write("overlays/prod/ingress.yaml", INGRESS);
    d.write("class.yaml", CLASS);
    let r = edgecheck(d.path(), &["lint", ".", "--format", "json"]);
    let v = json(&r);
    let objs = objects(&v);
    for want in ["Service/prod/web", "Deployment/prod/web", "Ingress/prod/web", "Namespace/-/prod"] {
        assert!(objs.contains(&want.to_string()), "{want} not in {objs:?}");
    }
    assert!(
        !codes(&v).iter().any(|c| c.starts_with("BKD")),
        "the overlay's Ingress reaches its base's Service: {}",
        r.stdout
    );
}

#[test]
fn a_base_two_overlays_place_differently_is_rendered_in_each_and_keeps_its_own_namespace_unrendered() {
    let d = Dir::new();
    d.write("base/kustomization.yaml", "resources: [svc.yaml]\nnamespace: base-ns\n");
    d.write("base/svc.yaml", SVC);
    d.write("prod/kustomization.yaml", "namespace: prod\nresources: [../base]\n");
    d.write("stage/kustomization.yaml", "namespace: stage\nresources: [../base]\n");
    // Listed by nobody: a stray file beside a kustomization takes its namespace only when it has none.
    d.write("prod/stray.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stray, namespace: kept}\n");
    d.write("prod/loose.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: loose}\n");
    // Rendered, each overlay applies its own copy.
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json"]));
    let objs = objects(&v);
    for want in ["Service/prod/web", "Service/stage/web", "ConfigMap/kept/stray", "ConfigMap/prod/loose"] {
        assert!(objs.contains(&want.to_string()), "{want} not in {objs:?}");
    }
    assert!(!objs.contains(&"Service/base-ns/web".to_string()), "{objs:?}");
    // Not rendered, the inventory holds the base once, in its own namespace.
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json", "--render", "never"]));
    let objs = objects(&v);
    for want in ["Service/base-ns/web", "ConfigMap/kept/stray", "ConfigMap/prod/loose"] {
        assert!(objs.contains(&want.to_string()), "{want} not in {objs:?}");
    }
}

#[test]
fn a_flux_kustomization_target_namespace_covers_its_path() {
    let d = Dir::new();
    d.write(
        "clusters/main/shop.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: shop, namespace: flux-system}\nspec:\n  path: ./apps/shop/app\n  targetNamespace: shop\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    d.write("apps/shop/app/kustomization.yaml", "resources: [svc.yaml, deploy.yaml, ingress.yaml]\n");
    d.write("apps/shop/app/svc.yaml", SVC);
    d.write("apps/shop/app/deploy.yaml", DEPLOY);
    d.write("apps/shop/app/ingress.yaml", INGRESS);
    // Not under the path: left alone.
    d.write("apps/other/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: other}\n");
    d.write("class.yaml", CLASS);
    let r = edgecheck(d.path(), &["lint", ".", "--format", "json"]);
    let v = json(&r);
    let objs = objects(&v);
    for want in ["Service/shop/web", "Deployment/shop/web", "Ingress/shop/web", "ConfigMap/other/cfg"] {
        assert!(objs.contains(&want.to_string()), "{want} not in {objs:?}");
    }
    assert!(!codes(&v).iter().any(|c| c.starts_with("BKD")), "{}", r.stdout);
}

#[test]
fn a_service_a_chart_renders_into_the_namespace_is_not_reported_missing() {
    let route = "apiVersion: traefik.io/v1alpha1\nkind: IngressRoute\nmetadata: {name: portal, namespace: portal}\nspec:\n  entryPoints: [websecure]\n  routes:\n    - match: Host(`portal.example.com`)\n      kind: Rule\n      services: [{name: portal-helm, port: 9000}]\n";
    let other =
        "apiVersion: v1\nkind: Service\nmetadata: {name: agent, namespace: portal}\nspec: {ports: [{port: 80}]}\n";
    let app = |source: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: portal, namespace: argocd}}\nspec:\n  project: default\n  destination: {{server: https://kubernetes.default.svc, namespace: portal}}\n  source:\n{source}")
    };
    // The chart comes from a Helm repository: its Service is not in the repository.
    let d = Dir::new();
    d.write("portal/route.yaml", route);
    d.write("portal/agent.yaml", other);
    d.write(
        "argo/app.yaml",
        app("    repoURL: https://charts.example.com/\n    chart: portal\n    targetRevision: 1.0.0\n"),
    );
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json"]));
    assert!(!codes(&v).contains(&"BKD001".to_string()), "{v}");

    // Near miss: the Application's path holds plain manifests that were loaded, so the Service would be
    // there.
    let d = Dir::new();
    d.write("portal/route.yaml", route);
    d.write("portal/agent.yaml", other);
    d.write("argo/app.yaml", app("    repoURL: https://git.example.com/acme/platform.git\n    path: portal\n"));
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json"]));
    assert!(codes(&v).contains(&"BKD001".to_string()), "{v}");
}

/// A Flux cluster `clusters/{env}`: its sync Kustomization and one, `apps`, that applies `apps/{env}` (with
/// `spec` lines `extra`).
fn flux_cluster(d: &Dir, env: &str, extra: &str) {
    d.write(
        &format!("clusters/{env}/sync.yaml"),
        format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  path: ./clusters/{env}\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"),
    );
    d.write(
        &format!("clusters/{env}/apps.yaml"),
        format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: apps, namespace: flux-system}}\nspec:\n  path: ./apps/{env}\n{extra}  sourceRef: {{kind: GitRepository, name: flux-system}}\n"),
    );
}

#[test]
fn overlays_and_clusters_are_alternatives_and_patches_are_not_objects() {
    let d = Dir::new();
    // Two environments, each a build of its own: the same names are alternatives, not duplicates.
    for env in ["staging", "production"] {
        flux_cluster(&d, env, "");
        // A patch file holds a partial HelmRelease merged into the base's.
        d.write(
            &format!("apps/{env}/kustomization.yaml"),
            "resources: [../base/podinfo]\npatches:\n  - path: podinfo-values.yaml\n    target: {kind: HelmRelease}\n",
        );
        d.write(
            &format!("apps/{env}/podinfo-values.yaml"),
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: podinfo, namespace: podinfo}\nspec:\n  values: {replicaCount: 2}\n",
        );
    }
    d.write("apps/base/podinfo/kustomization.yaml", "resources: [release.yaml]\n");
    d.write(
        "apps/base/podinfo/release.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: podinfo, namespace: podinfo}\nspec:\n  chart: {spec: {chart: podinfo, sourceRef: {kind: HelmRepository, name: podinfo}}}\n",
    );
    // Near miss: one build includes both copies, so they are duplicates.
    d.write("apps/base/podinfo/kustomization.yaml", "resources: [release.yaml, release-copy.yaml]\n");
    d.write(
        "apps/base/podinfo/release-copy.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: podinfo, namespace: podinfo}\nspec: {}\n",
    );
    let r = edgecheck(d.path(), &["lint", ".", "--format", "json"]);
    let v = json(&r);
    // Each cluster is an inventory of its own, and each holds both copies of the base.
    let lod004: Vec<(String, String)> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "LOD004")
        .map(|f| (f["cluster"].as_str().unwrap_or("-").to_string(), f["file"].as_str().unwrap_or("-").to_string()))
        .collect();
    let release = "apps/base/podinfo/release.yaml".to_string();
    assert_eq!(lod004, [("production".to_string(), release.clone()), ("staging".to_string(), release)], "{}", r.stdout);
    // Per cluster: its two Flux Kustomizations and the base's two HelmReleases; the patch files are not
    // objects, and the other cluster's Kustomizations are not there.
    assert_eq!(v["summary"]["objects"], 8, "{}", r.stdout);
}

#[test]
fn a_selector_for_pods_a_chart_renders_is_not_unmatched() {
    let svc = "apiVersion: v1\nkind: Service\nmetadata: {name: hubble, namespace: kube-system}\nspec:\n  selector: {k8s-app: hubble-ui}\n  ports: [{port: 80, targetPort: 8081}]\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: hubble, namespace: kube-system}\nspec:\n  ingressClassName: nginx\n  rules: [{host: hubble.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: hubble, port: {number: 80}}}}]}}]\n---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: other, namespace: kube-system}\nspec:\n  selector: {matchLabels: {app: other}}\n  template:\n    metadata: {labels: {app: other}}\n    spec: {containers: [{name: c, image: x}]}\n";
    let release = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: cilium, namespace: kube-system}\nspec:\n  chart: {spec: {chart: cilium, sourceRef: {kind: HelmRepository, name: cilium}}}\n";
    let d = Dir::new();
    d.write("svc.yaml", svc);
    d.write("class.yaml", CLASS);
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json"]));
    assert!(codes(&v).contains(&"BKD004".to_string()), "near miss without the chart: {v}");
    d.write("release.yaml", release);
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json"]));
    assert!(!codes(&v).contains(&"BKD004".to_string()), "{v}");
}

#[test]
fn a_flux_kustomization_of_the_repository_root_covers_every_file() {
    let d = Dir::new();
    d.write(
        "clusters/main/root.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: all, namespace: flux-system}\nspec:\n  path: ./\n  targetNamespace: everything\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    d.write("apps/web/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: other}\n");
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json"]));
    let objs = objects(&v);
    assert!(objs.contains(&"ConfigMap/everything/cfg".to_string()), "{objs:?}");
}

#[test]
fn kustomizations_that_include_each_other_end() {
    // A cycle (kustomize refuses it) must not hang the loader; the objects end in one of the two namespaces.
    let d = Dir::new();
    d.write("a/kustomization.yaml", "namespace: ns-a\nresources: [../b, cm.yaml]\n");
    d.write("b/kustomization.yaml", "namespace: ns-b\nresources: [../a, cm.yaml]\n");
    d.write("a/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
    d.write("b/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n");
    let r = edgecheck(d.path(), &["lint", ".", "--format", "json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let objs = objects(&json(&r));
    assert_eq!(objs.len(), 2, "{objs:?}");
    assert!(objs.iter().all(|o| o.starts_with("ConfigMap/ns-")), "{objs:?}");
}

/// A host two clusters claim is diagnosed in each, and each diagnosis says which cluster's it is.
#[test]
fn a_host_of_two_clusters_is_diagnosed_in_each_and_says_which() {
    let d = Dir::new();
    for env in ["staging", "production"] {
        flux_cluster(&d, env, "  targetNamespace: web\n");
        d.write(&format!("apps/{env}/kustomization.yaml"), "resources: [web.yaml]\n");
        d.write(&format!("apps/{env}/web.yaml"), format!("{CLASS}---\n{INGRESS}---\n{SVC}---\n{DEPLOY}"));
    }
    let r = edgecheck(d.path(), &["lint", ".", "--format", "json"]);
    let v = json(&r);
    let mut seen: Vec<(String, String)> = v["diagnoses"]
        .as_array()
        .expect("diagnoses")
        .iter()
        .map(|x| (x["host"].as_str().unwrap_or("-").to_string(), x["cluster"].as_str().unwrap_or("-").to_string()))
        .collect();
    seen.sort();
    let host = "web.example.com".to_string();
    assert_eq!(seen, [(host.clone(), "production".to_string()), (host, "staging".to_string())], "{}", r.stdout);
}
