#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what the tests need, then format, lints, tests.
# README and .ci/run both call exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
# What the build needs on a bare Debian: the `legacy` TLS probe links OpenSSL.
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
[ -f /usr/include/openssl/ssl.h ] || need+=(libssl-dev)
# What the tests need: package[:binary] (the binary is the package's name unless given)
for spec in nginx haproxy chromium graphviz:dot; do
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

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
