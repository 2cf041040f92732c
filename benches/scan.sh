#!/usr/bin/env bash
# Scan benchmark (issues #4, #17): a synthetic cluster of N objects (default 15,000; a third of them Secrets)
# served by the test API server on loopback; prints the time spent in API calls, the time outside them
# (loading, graph, checks), and peak memory (RSS of the whole test process, so the in-process test API server is included: an upper bound).
# Goals (#17): <= 0.5 s outside API calls at 15,000 objects, <= 150 MB.
#   benches/scan.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -q -p edgecheck_kube --test scan --no-run 2>/dev/null
bin=$(cargo test --release -p edgecheck_kube --test scan --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys; [print(m["executable"]) for m in map(json.loads, sys.stdin) if m.get("executable")]' | tail -1)
SCAN_OBJECTS="${1:-15000}" /usr/bin/time -v "$bin" --ignored --nocapture scan_benchmark 2>"${TMPDIR:-/tmp}/scan-bench.time" \
  | grep -E '^[0-9]+ objects: scan|^resident before'
awk -F': ' '/Maximum resident set size/ {printf "peak memory (whole process, test server included): %.0f MB\n", $2/1024}' "${TMPDIR:-/tmp}/scan-bench.time"
