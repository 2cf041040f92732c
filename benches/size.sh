#!/usr/bin/env bash
# The size of what users install (#20): builds `--profile dist` (stripped, fat LTO, one codegen unit) and
# prints the binary's size, beside the release binary's (debuginfo kept, for benches) when one is built.
# Goal: the dist binary under 25 MB.
#   benches/size.sh            (a cold dist build takes several minutes on two cores)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
cargo build --locked --profile dist -q -p edgecheck --bin edgecheck
secs=$(( $(date +%s) - start ))
size() { stat -c %s "$1" 2>/dev/null || stat -f %z "$1"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1000000 }'; }
dist=target/dist/edgecheck
printf 'dist     %s  (%s bytes; built in %ss)\n' "$(mb "$(size "$dist")")" "$(size "$dist")" "$secs"
if [ -x target/release/edgecheck ]; then
  printf 'release  %s  (%s bytes; not rebuilt: cargo build --release)\n' \
    "$(mb "$(size target/release/edgecheck)")" "$(size target/release/edgecheck)"
fi
limit=25000000
if [ "$(size "$dist")" -ge "$limit" ]; then
  echo "the dist binary is over $(mb "$limit")" >&2
  exit 1
fi
