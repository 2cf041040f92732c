#!/usr/bin/env bash
# Full-probe benchmark on loopback: edgecheck's median time per endpoint and N endpoints in one run,
# then sslyze (PyPI) and testssl.sh (Debian) on a few of the same endpoints when they are installed.
# Targets (#17): median <= 10 ms per endpoint; 1,000 endpoints <= 1 s; >= 100x faster than sslyze. The server sets
# TCP_NODELAY as production servers do (see examples/bench.rs).
# Usage: benches/probe.sh [N]   (default 1000; PROFILE=dev to skip the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-1000}"
PROFILE="${PROFILE:-release}"
flag=(--release); [ "$PROFILE" = dev ] && flag=()
cargo build -q -p edgecheck_probe --example bench "${flag[@]}"
bin="target/$([ "$PROFILE" = dev ] && echo debug || echo release)/examples/bench"

fifo="$(mktemp -u)"; mkfifo "$fifo"; exec 3<>"$fifo"; rm -f "$fifo"
out="$(mktemp)"
BENCH_HOLD=1 "$bin" "$N" <&3 >"$out" 2>&1 &
pid=$!
trap 'echo >&3; wait $pid 2>/dev/null || true; rm -f "$out"' EXIT
for _ in $(seq 1 600); do grep -q '^READY' "$out" && break; sleep 0.1; done
grep -v '^READY' "$out"
read -r _ port dir < <(grep '^READY' "$out")

K=3
if command -v sslyze >/dev/null; then
  start=$(date +%s.%N)
  for i in $(seq 1 $K); do
    sslyze --quiet --certinfo --tlsv1_2 --tlsv1_3 "e$i.bench.test:$port{127.0.0.1}" >/dev/null 2>&1 || true
  done
  end=$(date +%s.%N)
  echo "sslyze: $(echo "($end - $start) * 1000 / $K" | bc -l | xargs printf '%.1f') ms per endpoint (certinfo + TLS 1.2/1.3, $K endpoints)"
else
  echo "sslyze: not installed (pip install sslyze)"
fi
if command -v testssl.sh >/dev/null || command -v testssl >/dev/null; then
  t=$(command -v testssl.sh || command -v testssl)
  start=$(date +%s.%N)
  for i in $(seq 1 $K); do
    "$t" --quiet --fast --ip 127.0.0.1 --protocols --server-defaults "https://e$i.bench.test:$port/" >/dev/null 2>&1 || true
  done
  end=$(date +%s.%N)
  echo "testssl.sh: $(echo "($end - $start) * 1000 / $K" | bc -l | xargs printf '%.1f') ms per endpoint (protocols + server defaults, $K endpoints)"
else
  echo "testssl.sh: not installed (apt-get install testssl.sh)"
fi
