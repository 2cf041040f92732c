#!/usr/bin/env bash
# `serve` benchmark (#13): a synthetic cluster of N objects (default 10,000: Services, Secrets with data, an
# HTTPRoute claiming a host for every tenth) served by the test API server on loopback; `edgecheck serve`
# (release build, not probing) lists and watches it, becomes ready, then C changes (default 10) each trigger
# one evaluation. Prints serve's own RSS (after the first sync, after the evaluations, peak) and CPU seconds
# per evaluation, read from /proc of the serve process (the test API server runs in the test process).
# Goal (#13): memory and CPU flat as evaluations repeat.
#   benches/serve.sh [N] [C]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -q -p edgecheck --test cli --no-run 2>/dev/null
bin=$(cargo test --release -p edgecheck --test cli --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys; [print(m["executable"]) for m in map(json.loads, sys.stdin) if m.get("executable") and "/cli-" in m["executable"]]' | tail -1)
SERVE_OBJECTS="${1:-10000}" SERVE_CHANGES="${2:-10}" "$bin" --ignored --nocapture --exact serve::serve_benchmark \
  | grep -E '^[0-9]+ objects|^serve RSS'
