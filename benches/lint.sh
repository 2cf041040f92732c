#!/usr/bin/env bash
# Lint throughput: generates a realistic repository (8 objects per app, real PEM in every TLS Secret),
# times a full `edgecheck lint` (release build, end to end, JSON output) and PyYAML's C loader merely
# parsing the same files, and prints objects/second for both.
#   benches/lint.sh [APPS]   (default 2500 apps = 20,003 objects)
set -euo pipefail
cd "$(dirname "$0")/.."
apps=${1:-2500}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cargo build --release -q -p edgecheck --bin edgecheck --example gen_repo
objects=$(./target/release/examples/gen_repo "$dir/repo" "$apps" | awk '{print $1}')
files=$(find "$dir/repo" -name '*.yaml' | wc -l)
bytes=$(du -sb "$dir/repo" | awk '{print $1}')
echo "repository: $objects objects, $files files, $((bytes / 1024 / 1024)) MiB"

best() { # best wall time in seconds of 5 runs of "$@"
  local b=
  for _ in 1 2 3 4 5; do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
    b=$(python3 -c "print(min(float('${b:-1e9}'), $e - $s))")
  done
  echo "$b"
}
t=$(best ./target/release/edgecheck lint --format json --now 2026-06-01T00:00:00Z "$dir/repo")
python3 - "$objects" "$t" <<'PY'
import sys
n, t = int(sys.argv[1]), float(sys.argv[2])
print(f"edgecheck lint (load + graph + model + all checks + JSON): {t*1000:.0f} ms, {n/t:,.0f} objects/s")
PY
# Peak memory of one more run (not timed): fresh pages cost a large share of a lint on small VMs.
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$dir/rss" ./target/release/edgecheck lint --format json --now 2026-06-01T00:00:00Z \
    "$dir/repo" >/dev/null 2>&1 || true
  echo "edgecheck lint peak RSS: $(( $(tail -1 "$dir/rss") / 1024 )) MiB"
fi
if ! python3 -c 'import yaml; yaml.CLoader' 2>/dev/null; then
  pip install -q pyyaml >/dev/null 2>&1 || true
fi
if python3 -c 'import yaml; yaml.CLoader' 2>/dev/null; then
  cat > "$dir/pyyaml.py" <<'PY'
import sys, os, yaml
n = 0
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        if f.endswith(".yaml"):
            with open(os.path.join(root, f)) as fh:
                n += sum(1 for d in yaml.load_all(fh, Loader=yaml.CLoader) if d)
PY
  tp=$(best python3 "$dir/pyyaml.py" "$dir/repo")
  python3 - "$objects" "$tp" "$t" <<'PY'
import sys
n, tp, t = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"PyYAML CLoader parse only:                              {tp*1000:.0f} ms, {n/tp:,.0f} objects/s")
print(f"edgecheck full lint is {tp/t:.1f}x the speed of PyYAML's C loader parsing alone")
PY
else
  echo "PyYAML with libyaml (CLoader) not available: comparison skipped"
fi
