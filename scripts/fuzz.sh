#!/usr/bin/env bash
# Fuzzes the parsers of untrusted input (crates/edgecheck_fuzz) for a bounded time per target.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60 s, every target)
# Under AFL++ (cargo-afl, installed from crates.io when missing; it builds AFL++ itself). When AFL++ cannot be
# built here, falls back to a bounded random loop over generated cases and mutated seeds (`random` binary).
# Seeds: crates/edgecheck_fuzz/corpus/<target>/, plus the check fixtures and examples for `load` and `lint`
# and a certificate generated now for `pem`. Crashes and hangs are copied to target/fuzz/findings/<target>/
# and the script exits 1: add each to corpus/<target>/ as a regression once fixed (`cargo test` replays it).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
all=(load lint pem traefik_rule duration kubeconfig http_reply)
targets=("${@:-${all[@]}}")
work=target/fuzz
# AFL's instrumented build lives apart, so that it never invalidates the normal build.
export CARGO_TARGET_DIR=$PWD/target/afl
rm -rf "$work/findings"
mkdir -p "$work/findings" "$work/out" "$work/in"

seeds() { # seeds DIR TARGET: the input directory of one target (flat: AFL++ wants files)
  local dir=$1 t=$2 i=0
  rm -rf "$dir"
  mkdir -p "$dir"
  cp crates/edgecheck_fuzz/corpus/"$t"/* "$dir"/
  if [ "$t" = load ] || [ "$t" = lint ]; then
    while IFS= read -r f; do
      i=$((i + 1))
      cp "$f" "$dir/fixture-$i-$(basename "$f")"
    done < <(find crates/edgecheck_checks/resources/fixtures examples -type f \( -name '*.yaml' -o -name '*.json' \))
  fi
  if [ "$t" = pem ] && command -v openssl >/dev/null 2>&1; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=shop.example.com \
      -addext subjectAltName=DNS:shop.example.com -keyout "$dir/key.pem" -out "$dir/cert.pem" >/dev/null 2>&1 || true
    [ -f "$dir/cert.pem" ] && cat "$dir/cert.pem" "$dir/key.pem" > "$dir/both.pem"
  fi
}

afl_ready() {
  if ! cargo afl --version >/dev/null 2>&1; then
    echo "installing cargo-afl" >&2
    cargo install --locked cargo-afl >&2 || return 1
  fi
  # builds AFL++ (once per toolchain); "already built" is success
  local out
  out=$(cargo afl config --build 2>&1) || grep -q "already built" <<<"$out" || { echo "$out" >&2; return 1; }
  cargo afl build --release --locked -q -p edgecheck_fuzz --features afl --bin afl >&2
}

failed=0
if afl_ready; then
  for t in "${targets[@]}"; do
    seeds "$work/in/$t" "$t"
    rm -rf "$work/out/$t"
    echo "== $t: AFL++ for ${secs}s"
    # -V: stop after secs; -t: an execution over 2 s is a hang; -m: 2 GiB of memory per execution
    AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
      AFL_NO_AFFINITY=1 AFL_SKIP_CRASHES=1 \
      cargo afl fuzz -V "$secs" -t 2000 -m 2048 -i "$work/in/$t" -o "$work/out/$t" \
      "$CARGO_TARGET_DIR/release/afl" "$t" >"$work/$t.log" 2>&1 || true
    stats="$work/out/$t/default/fuzzer_stats"
    if [ ! -f "$stats" ]; then
      echo "   AFL++ did not start: see $work/$t.log"; tail -5 "$work/$t.log"; failed=1; continue
    fi
    execs=$(awk -F' *: ' '$1=="execs_done"{print $2}' "$stats")
    crashes=$(find "$work/out/$t/default/crashes" -type f -name 'id:*' | wc -l)
    hangs=$(find "$work/out/$t/default/hangs" -type f -name 'id:*' | wc -l)
    echo "   $execs executions, $crashes crashes, $hangs hangs"
    if [ $((crashes + hangs)) -gt 0 ]; then
      mkdir -p "$work/findings/$t"
      cp "$work/out/$t/default/crashes"/id:* "$work/out/$t/default/hangs"/id:* "$work/findings/$t/" 2>/dev/null || true
      failed=1
    fi
  done
else
  echo "AFL++ is not available here: falling back to the bounded random loop" >&2
  cargo build --release --locked -q -p edgecheck_fuzz --bin random
  for t in "${targets[@]}"; do
    seeds "$work/in/$t" "$t"
    mkdir -p "$work/findings/$t"
    echo "== $t: random loop for ${secs}s"
    # a hang is a run past its time by 30 s; 2 GiB of address space is the memory bound
    if ! (cd "$work/findings/$t" && ulimit -v $((2 * 1024 * 1024)) &&
      timeout $((secs + 30)) "$CARGO_TARGET_DIR/release/random" "$t" "$secs" "$RANDOM" "$OLDPWD/$work/in/$t"); then
      echo "   crash or hang: the case is in $work/findings/$t/"; failed=1
    fi
  done
fi
exit $failed
