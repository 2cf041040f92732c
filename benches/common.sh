# Shared by the benches that time edgecheck runs (sourced, not run).

# best wall time in seconds of $runs runs of "$@" (output discarded, failures timed too)
best() {
  local b=1e9 s e
  for _ in $(seq "$runs"); do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
    b=$(python3 -c "print(min($b, $e - $s))")
  done
  echo "$b"
}
