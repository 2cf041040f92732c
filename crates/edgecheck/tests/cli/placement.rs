//! What is applied together (#15 item 1, 8): example and test directories, files named as templates, files a
//! kustomization leaves out, separate loose files, `generateName`, sibling clusters, and input roots spelled
//! several ways.

use crate::support::{codes, edgecheck, files_with, json, Dir};

const GW: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: eg, namespace: default}\nspec:\n  gatewayClassName: eg\n  listeners:\n  - {name: http, protocol: HTTP, port: 80}\n";
const GW_GRPC: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: eg, namespace: default}\nspec:\n  gatewayClassName: eg\n  listeners:\n  - {name: grpc, protocol: HTTP, port: 8080}\n";
const CLASS: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n";
const SVC: &str =
    "apiVersion: v1\nkind: Service\nmetadata: {name: backend, namespace: default}\nspec:\n  ports: [{port: 3000}]\n";

fn route(section: &str) -> String {
    format!("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {{name: backend, namespace: default}}\nspec:\n  parentRefs: [{{name: eg, sectionName: {section}}}]\n  rules: [{{backendRefs: [{{name: backend, port: 3000}}]}}]\n")
}

#[test]
fn example_and_test_directories_never_shadow_collide_or_get_checked() {
    let d = Dir::new();
    // The deployed tree: a Gateway with an `http` listener and a route to it.
    d.write("deploy/kustomization.yaml", "resources: [gateway.yaml, route.yaml, class.yaml, svc.yaml]\n");
    d.write("deploy/gateway.yaml", GW);
    d.write("deploy/class.yaml", CLASS);
    d.write("deploy/svc.yaml", SVC);
    d.write("deploy/route.yaml", route("http"));
    // Golden inputs of a translator test, loaded first by name: each defines `default/eg` differently, and
    // one holds a route to a listener only its own Gateway has, and a file that does not parse.
    for dir in ["a/testdata/in", "test/e2e", "examples/kubernetes", "cue.mod/gen", "vendor/x", "fixtures"] {
        d.write(&format!("{dir}/default-resources.yaml"), format!("{GW_GRPC}---\n{}", route("grpc")));
        d.write(&format!("{dir}/broken.yaml"), "a: [\n");
    }
    let r = edgecheck(d.path(), &["lint", ".", "--format", "json"]);
    let v = json(&r);
    assert!(codes(&v).is_empty(), "{}", r.stdout);
    // Still counted: 5 deployed + 2 per example directory.
    assert_eq!(v["summary"]["objects"], 16, "{}", r.stdout);

    // Near miss: a build outside the example directories names one; its objects are applied and checked.
    d.write(
        "deploy/kustomization.yaml",
        "resources: [gateway.yaml, route.yaml, class.yaml, svc.yaml, ../a/testdata/in/default-resources.yaml]\n",
    );
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json"]));
    assert!(codes(&v).contains(&"LOD004".to_string()), "{v}");

    // Linting the example directory itself checks it: only directories below the root count.
    let d2 = Dir::new();
    d2.write("testdata/gw.yaml", format!("{GW}---\n{CLASS}---\n{}", route("grpc")));
    let v = json(&edgecheck(&d2.path().join("testdata"), &["lint", ".", "--format", "json"]));
    assert!(codes(&v).contains(&"RTE001".to_string()), "{v}");
}

/// A template someone fills in before applying it (`sed` over `template.yaml`, `cp x.tmpl.yaml env/`) holds
/// placeholders, not names: it is not checked unless a build names it.
#[test]
fn files_named_as_templates_are_checked_only_when_a_build_names_them() {
    let d = Dir::new();
    let ext = "apiVersion: v1\nkind: Service\nmetadata: {name: service_name}\nspec: {type: ExternalName, externalName: service_address}\n";
    let ing = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: service_name}\nspec:\n  tls: [{hosts: [ingress_domain], secretName: ingress_secret}]\n  rules: [{host: ingress_domain, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: service_name, port: {number: 80}}}}]}}]\n";
    d.write("ingress/external-services/template.yaml", format!("{ext}---\n{ing}"));
    d.write("scripts/templates/ListJob.tmpl.yaml", ext);
    d.write("trust/bundle.template.yaml", ing);
    let r = edgecheck(d.path(), &["lint", ".", "--format", "json"]);
    let v = json(&r);
    assert!(codes(&v).is_empty(), "{}", r.stdout);
    assert_eq!(v["summary"]["objects"], 4, "still loaded and counted: {}", r.stdout);

    // Near misses: the same objects in a file named as a manifest, and in a template a kustomization lists.
    d.write("argo/workflow-template.yaml", ext);
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json"]));
    assert_eq!(files_with(&v, "DNS001"), ["argo/workflow-template.yaml"], "{v}");
    std::fs::remove_file(d.path().join("argo/workflow-template.yaml")).expect("rm");
    d.write("trust/kustomization.yaml", "resources: [bundle.template.yaml]\n");
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json"]));
    assert!(files_with(&v, "DNS001").contains(&"trust/bundle.template.yaml".to_string()), "{v}");
}

#[test]
fn only_copies_one_build_applies_together_are_duplicates() {
    let d = Dir::new();
    let model = |v: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: model, namespace: llm}}\ndata: {{v: \"{v}\"}}\n")
    };
    // A kustomization that comments one alternative out of its resources.
    d.write("llm/kustomization.yaml", "resources:\n  - ./model-a.yaml\n  # - ./model-b.yaml\n");
    d.write("llm/model-a.yaml", model("a"));
    d.write("llm/model-b.yaml", model("b"));
    // Separate example apps, no build: each directory is its own unit.
    d.write("sync-waves/job.yaml", model("1").replace("llm", "apps"));
    d.write("helm-hooks/job.yaml", model("2").replace("llm", "apps"));
    // Jobs with generateName, twice in one file: each run makes a new object.
    let job = "apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: upgrade-sql-schema, namespace: apps}\nspec:\n  template: {spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}\n";
    d.write("hooks/jobs.yaml", format!("{job}---\n{}", job.replace("image: x", "image: y")));
    // Sibling cluster directories without builds, and an identical copy in one directory.
    d.write("kubernetes/clusters/main/cm.yaml", model("main").replace("llm", "flux-system"));
    d.write("kubernetes/clusters/test/cm.yaml", model("test").replace("llm", "flux-system"));
    d.write("same/a.yaml", model("same").replace("llm", "same"));
    d.write("same/b.yaml", model("same").replace("llm", "same"));
    let r = edgecheck(d.path(), &["lint", ".", "--format", "json"]);
    let v = json(&r);
    assert!(files_with(&v, "LOD004").is_empty(), "{}", r.stdout);
    // Near miss: both listed, and different.
    d.write("llm/kustomization.yaml", "resources:\n  - ./model-a.yaml\n  - ./model-b.yaml\n");
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json"]));
    assert_eq!(files_with(&v, "LOD004"), ["llm/model-b.yaml"], "{v}");
}

#[test]
fn input_roots_spelled_several_ways_give_the_same_findings() {
    let d = Dir::new();
    d.write("a/b/kustomization.yaml", "namespace: shop\nresources: [svc.yaml, ing.yaml]\n");
    d.write("a/b/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n");
    d.write("a/b/ing.yaml", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  rules: [{host: web.example.com, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 81}}}}]}}]\n");
    std::fs::create_dir_all(d.path().join("x")).expect("mkdir");
    let plain = json(&edgecheck(d.path(), &["lint", "a", "--format", "json"]));
    let findings = |v: &serde_json::Value| {
        let mut f: Vec<String> = v["findings"]
            .as_array()
            .map(|a| a.iter().map(|f| format!("{} {} {}", f["code"], f["file"], f["message"])).collect())
            .unwrap_or_default();
        f.sort();
        f
    };
    assert!(!findings(&plain).is_empty(), "the port mismatch is found: {plain}");
    for spelling in ["a//b/..", "./a/./", "x/../a", "a/.", "a/"] {
        let v = json(&edgecheck(d.path(), &["lint", spelling, "--format", "json"]));
        assert_eq!(findings(&v), findings(&plain), "{spelling}");
    }
}

/// A file that does not parse is an error, unless the kustomization of its directory leaves it out (nothing
/// applies it): then a warning.
#[test]
fn a_broken_file_no_kustomization_lists_is_a_warning() {
    let d = Dir::new();
    d.write(
        "gpu/kustomization.yaml",
        "resources:\n  - ./operator.yaml\n  # cluster-policy.yaml intentionally not included\n",
    );
    d.write("gpu/operator.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: op, namespace: gpu}\n");
    let broken = "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n  validator:\n  {}\n  daemonsets: {}\n";
    d.write("gpu/cluster-policy.yaml", broken);
    let severity = |v: &serde_json::Value| {
        v["findings"]
            .as_array()
            .expect("f")
            .iter()
            .filter(|f| f["code"] == "LOD001")
            .map(|f| f["severity"].clone())
            .collect::<Vec<_>>()
    };
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json"]));
    assert_eq!(severity(&v), vec![serde_json::json!("warning")], "{v}");
    // Near miss: listed, it is applied, and its syntax error is an error.
    d.write("gpu/kustomization.yaml", "resources:\n  - ./operator.yaml\n  - ./cluster-policy.yaml\n");
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json"]));
    assert_eq!(severity(&v), vec![serde_json::json!("error")], "{v}");
}

/// What a Flux Kustomization applies (#15 item 1): a Kustomization of another repository's GitRepository
/// (no `path`: that repository's root) applies nothing of this checkout, and one whose path has no
/// kustomization applies what Flux generates, which a kustomization on the way narrows. Copies no build
/// applies together are not duplicates; near miss: two copies in one directory under the path are.
#[test]
fn flux_builds_apply_what_flux_generates_and_only_this_checkout() {
    let d = Dir::new();
    d.write(".git/config", "[remote \"origin\"]\n\turl = https://github.com/acme/platform.git\n");
    d.write(".git/HEAD", "ref: refs/heads/main\n");
    d.write(
        "clusters/main/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  path: ./apps\n  sourceRef: {kind: GitRepository, name: flux-system}\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: gateway-api, namespace: flux-system}\nspec: {url: https://github.com/kubernetes-sigs/gateway-api, ref: {tag: v1.2.0}}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: gateway-api-crds, namespace: flux-system}\nspec:\n  sourceRef: {kind: GitRepository, name: gateway-api}\n",
    );
    let release = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: pmm, namespace: media}\nspec:\n  chart: {spec: {chart: app, sourceRef: {kind: HelmRepository, name: charts}}}\n";
    // `apps/media` lists only its ks files: `tools/` is narrowed out, and so is the copy beside it.
    d.write("apps/media/kustomization.yaml", "resources: [ks.yaml]\n");
    d.write("apps/media/ks.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ks, namespace: media}\n");
    d.write("apps/media/tools/pmm/kustomization.yaml", "resources: [release.yaml]\n");
    d.write("apps/media/tools/pmm/release.yaml", release);
    d.write("apps/media/tools/pmm/app/configs/kustomization.yaml", "resources: [release.yaml]\n");
    d.write("apps/media/tools/pmm/app/configs/release.yaml", release.replace("chart: app", "chart: v2"));
    // An archived copy: the other repository's root-path Kustomization does not make it applied.
    d.write("_archive/media/pmm/release.yaml", release.replace("chart: app", "chart: old"));
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json", "--render", "never"]));
    assert!(files_with(&v, "LOD004").is_empty(), "{v}");
    // Near miss: two different copies in one directory the generated kustomization takes whole.
    d.write("apps/shared/a.yaml", release.replace("pmm", "dup"));
    d.write("apps/shared/b.yaml", release.replace("pmm", "dup").replace("chart: app", "chart: other"));
    let v = json(&edgecheck(d.path(), &["lint", ".", "--format", "json", "--render", "never"]));
    assert_eq!(files_with(&v, "LOD004"), ["apps/shared/b.yaml"], "{v}");
}
