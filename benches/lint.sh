#!/usr/bin/env bash
# Lint throughput and memory at several repository sizes in one run (#17): for each object count, generates a
# realistic repository (8 objects per app, real PEM in every TLS Secret), times a full `edgecheck lint`
# (release build, end to end, JSON output; best of RUNS) and measures its peak RSS, then prints a table with
# objects/s, peak RSS, the input's size on disk and the goals: throughput at the largest count >= 0.9x the
# smallest, peak RSS <= 3x the input at >= 100k objects.
#   benches/lint.sh [OBJECTS...]      (default 20000 100000 200000; RUNS=3 by default)
#   PYYAML=1 benches/lint.sh 20000    also times PyYAML's C loader parsing the same files
#   BASELINE=/tmp/edgecheck-before benches/lint.sh   also measures another build on the same repositories
#                                                    (before/after in one run, on a shared machine)
#   SHAPE=wildcard|one-namespace|one-host benches/lint.sh   what the apps share (see gen_repo): a step quadratic
#                                                    in Certificates per domain, objects per namespace or routes
#                                                    per host shows as throughput falling with the count
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("${@:-20000 100000 200000}")
# shellcheck disable=SC2206 # the default is one word of counts
counts=(${counts[*]})
runs=${RUNS:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cargo build --release -q --locked -p edgecheck --bin edgecheck --example gen_repo
bin=./target/release/edgecheck

# shellcheck source=benches/common.sh
. benches/common.sh

rows=()
base_rows=()
for n in "${counts[@]}"; do
  apps=$(( (n - 5 + 7) / 8 ))
  rm -rf "$dir/repo"
  objects=$(./target/release/examples/gen_repo "$dir/repo" "$apps" | awk '{print $1}')
  bytes=$(find "$dir/repo" -type f -name '*.yaml' -printf '%s\n' | awk '{s += $1} END {print s}')
  for b in ${BASELINE:+"$BASELINE"} "$bin"; do
    t=$(best "$b" lint --format json --now 2026-06-01T00:00:00Z "$dir/repo")
    # Peak memory of one more run (not timed).
    /usr/bin/time -f '%M' -o "$dir/rss" "$b" lint --format json --now 2026-06-01T00:00:00Z "$dir/repo" >/dev/null 2>&1 || true
    rss_kb=$(tail -1 "$dir/rss")
    if [ "$b" = "$bin" ]; then rows+=("$objects $bytes $t $rss_kb"); else base_rows+=("$objects $bytes $t $rss_kb"); fi
  done
  if [ "${PYYAML:-0}" = 1 ] && python3 -c 'import yaml; yaml.CLoader' 2>/dev/null; then
    cat > "$dir/pyyaml.py" <<'PY'
import sys, os, yaml
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        if f.endswith(".yaml"):
            with open(os.path.join(root, f)) as fh:
                sum(1 for d in yaml.load_all(fh, Loader=yaml.CLoader) if d)
PY
    tp=$(best python3 "$dir/pyyaml.py" "$dir/repo")
    echo "PyYAML CLoader parse only at $objects objects: $(python3 -c "print(f'{$objects/$tp:,.0f}')") objects/s" >&2
  fi
done

report() { python3 - "$@" <<'PY'
import sys
rows = [tuple(map(float, r.split())) for r in sys.argv[1:]]
print(f"{'objects':>9} {'YAML':>8} {'lint':>8} {'objects/s':>10} {'peak RSS':>9} {'RSS/input':>9}")
for n, b, t, kb in rows:
    print(f"{int(n):>9,} {b/2**20:>6.0f}MB {t:>7.2f}s {n/t:>10,.0f} {kb/1024:>7.0f}MB {kb*1024/b:>8.1f}x")
first, last = rows[0], rows[-1]
ratio = (last[0] / last[2]) / (first[0] / first[2])
print(f"throughput at {int(last[0]):,} / at {int(first[0]):,}: {ratio:.2f}x (goal >= 0.9x)")
big = [r for r in rows if r[0] >= 100_000]
if big:
    worst = max(kb * 1024 / b for _, b, _, kb in big)
    print(f"peak RSS / input at >= 100k objects: at most {worst:.1f}x (goal <= 3x)")
PY
}
if [ ${#base_rows[@]} -gt 0 ]; then
  echo "baseline ($BASELINE):"
  report "${base_rows[@]}"
  echo "this build ($bin):"
fi
[ -n "${SHAPE:-}" ] && echo "shape: $SHAPE"
report "${rows[@]}"
