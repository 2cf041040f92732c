#!/usr/bin/env bash
# Flux-shaped repositories (#17): one Flux Kustomization per app (`clusters/main/<app>.yaml`, path
# `./apps/<app>`, targetNamespace), each app a kustomization with a HelmRelease whose values come from a
# generated ConfigMap, and an HTTPRoute. Times `edgecheck lint --render never` (discovery, namespaces and the
# graph, without running kustomize: a cold cache runs it once per build, ~30 ms each) at each app count and
# prints objects/s and peak RSS: a step that tests every controller against every object shows as throughput
# falling with size.
#   benches/flux.sh [APPS...]      (default 2000 10000; RUNS=3)
#   BASELINE=/tmp/edgecheck-before benches/flux.sh   also measures another build in the same run
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("${@:-2000 10000}")
# shellcheck disable=SC2206 # the default is one word of counts
counts=(${counts[*]})
runs=${RUNS:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cargo build --release -q --locked -p edgecheck --bin edgecheck
bin=./target/release/edgecheck

gen() { # gen DIR APPS
  python3 - "$1" "$2" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
def w(p, s):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(s)
w(f"{root}/.git/config", '[remote "origin"]\n\turl = https://github.com/acme/flux.git\n')
w(f"{root}/.git/HEAD", "ref: refs/heads/main\n")
c = f"{root}/clusters/main"
w(f"{c}/flux-system/gotk-sync.yaml", "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {url: https://github.com/acme/flux.git, ref: {branch: main}}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {path: ./clusters/main, sourceRef: {kind: GitRepository, name: flux-system}}\n")
w(f"{c}/repos.yaml", "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: bjw, namespace: flux-system}\nspec: {url: https://bjw-s.github.io/helm-charts}\n")
for i in range(n):
    a = f"app-{i:05d}"
    w(f"{c}/{a}.yaml", f"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: {a}, namespace: flux-system}}\nspec:\n  path: ./apps/{a}\n  targetNamespace: {a}\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n")
    d = f"{root}/apps/{a}"
    w(f"{d}/kustomization.yaml", f"resources: [release.yaml, route.yaml]\nconfigMapGenerator:\n- name: {a}-values\n  files: [values.yaml]\n  options: {{disableNameSuffixHash: true}}\n")
    w(f"{d}/values.yaml", "replicas: 1\n")
    w(f"{d}/release.yaml", f"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: {a}}}\nspec:\n  chart: {{spec: {{chart: app-template, version: 3.0.0, sourceRef: {{kind: HelmRepository, name: bjw, namespace: flux-system}}}}}}\n  valuesFrom: [{{kind: ConfigMap, name: {a}-values}}]\n")
    w(f"{d}/route.yaml", f"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {{name: {a}}}\nspec:\n  hostnames: [{a}.example.com]\n  rules: [{{backendRefs: [{{name: {a}, port: 80}}]}}]\n")
PY
}

# shellcheck source=benches/common.sh
. benches/common.sh

printf '%-10s %6s %9s %8s %10s %9s\n' build apps objects lint objects/s 'peak RSS'
for n in "${counts[@]}"; do
  rm -rf "$dir/repo"
  gen "$dir/repo" "$n"
  for b in ${BASELINE:+"$BASELINE"} "$bin"; do
    args=(lint --render never --format json --now 2026-06-01T00:00:00Z "$dir/repo")
    objects=$("$b" "${args[@]}" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["objects"])')
    t=$(best "$b" "${args[@]}")
    /usr/bin/time -f '%M' -o "$dir/rss" "$b" "${args[@]}" >/dev/null 2>&1 || true
    label=this; [ "$b" = "$bin" ] || label=baseline
    python3 -c "print(f'{\"$label\":<10} {$n:>6} {$objects:>9,} {$t:>7.2f}s {$objects/$t:>10,.0f} {$(tail -1 "$dir/rss")/1024:>7.0f}MB')"
  done
done
