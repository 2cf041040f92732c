#!/usr/bin/env bash
# Rendering the builds: a repository of N local charts (each with an Argo CD Application) and N kustomize
# overlays over bases, linted cold (empty render cache), warm (every part cached), and the same rendered
# output stored as plain files linted without rendering. Goal (#12): warm within 1.5x of the plain files.
#   benches/render.sh [N]   (default 50)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-50}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cargo build --release -q -p edgecheck --bin edgecheck
bin=$PWD/target/release/edgecheck
repo=$dir/repo
mkdir -p "$repo/argocd" "$repo/.git"
printf '[remote "origin"]\n\turl = https://github.com/acme/bench.git\n' > "$repo/.git/config"
for i in $(seq 1 "$n"); do
  c=$repo/charts/app$i
  mkdir -p "$c/templates"
  printf 'apiVersion: v2\nname: app%s\nversion: 0.1.0\n' "$i" > "$c/Chart.yaml"
  printf 'host: app%s.example.com\nreplicas: 2\n' "$i" > "$c/values.yaml"
  cat > "$c/templates/all.yaml" <<'T'
apiVersion: apps/v1
kind: Deployment
metadata: {name: {{ .Release.Name }}}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec: {containers: [{name: web, image: nginx, ports: [{containerPort: 8080, name: http}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: {{ .Release.Name }}}
spec:
  selector: {app: {{ .Release.Name }}}
  ports: [{port: 80, targetPort: http}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: {{ .Release.Name }}}
spec:
  ingressClassName: nginx
  rules:
    - host: {{ .Values.host }}
      http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: {{ .Release.Name }}, port: {number: 80}}}}]}
T
  printf 'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: app%s, namespace: argocd}\nspec:\n  project: default\n  destination: {server: https://kubernetes.default.svc, namespace: app%s}\n  source: {repoURL: https://github.com/acme/bench.git, path: charts/app%s}\n' "$i" "$i" "$i" > "$repo/argocd/app$i.yaml"
  b=$repo/kust/base$i; o=$repo/kust/overlays/app$i
  mkdir -p "$b" "$o"
  printf 'resources: [all.yaml]\n' > "$b/kustomization.yaml"
  sed -e "s/{{ .Release.Name }}/k$i/g" -e "s/{{ .Values.replicas }}/1/" -e "s/{{ .Values.host }}/k$i.example.com/" \
    "$c/templates/all.yaml" > "$b/all.yaml"
  printf 'namespace: k%s\nnamePrefix: prod-\nresources: [../../base%s]\n' "$i" "$i" > "$o/kustomization.yaml"
done
printf 'apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: k8s.io/ingress-nginx}\n' > "$repo/argocd/class.yaml"
# The same output as plain files: what the tools render, stored.
plain=$dir/plain
mkdir -p "$plain"
for i in $(seq 1 "$n"); do
  helm template "app$i" "$repo/charts/app$i" --namespace "app$i" > "$plain/app$i.yaml"
  kubectl kustomize "$repo/kust/overlays/app$i" > "$plain/k$i.yaml"
done
cp "$repo/argocd/class.yaml" "$plain/"
objects=$(grep -c '^kind:' "$plain"/*.yaml | awk -F: '{s+=$2} END {print s}')
echo "repository: $n charts + $n overlays, $objects rendered objects ($(nproc) cores)"

cache=$dir/cache
timed() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); python3 -c "print($e - $s)"; }
best() { local b=1e9 t; for _ in 1 2 3; do t=$(timed "$@"); b=$(python3 -c "print(min($b, $t))"); done; echo "$b"; }
cold() { rm -rf "$cache"; XDG_CACHE_HOME=$cache "$bin" lint --format json --no-config "$repo"; }
cold_t=$(best cold)
XDG_CACHE_HOME=$cache "$bin" lint --format json --no-config "$repo" >/dev/null 2>&1 || true
warm_t=$(best env XDG_CACHE_HOME="$cache" "$bin" lint --format json --no-config "$repo")
plain_t=$(best "$bin" lint --format json --no-config --render never "$plain")
python3 - "$cold_t" "$warm_t" "$plain_t" "$n" <<'PY'
import sys
cold, warm, plain, n = map(float, sys.argv[1:])
print(f"cold (renders {2*int(n)} builds): {cold*1000:.0f} ms")
print(f"warm (render cache):        {warm*1000:.0f} ms")
print(f"plain files, no rendering:  {plain*1000:.0f} ms")
print(f"warm / plain: {warm/plain:.2f}x (goal <= 1.5x)")
PY
