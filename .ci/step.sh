# step NAME COMMAND... -- runs COMMAND as one CI step: its name first, then
# its wall time and its CPU time (user + system of every process it ran,
# from bash's `times`), so that a log from a busy machine still tells what
# the step costs on a quiet one (about CPU time / cores). Sourced by .ci/run
# and .ci/sanitizers.

ci_times_file=$(mktemp)
trap 'rm -f "$ci_times_file"' EXIT

# Sets ci_cpu_centiseconds to the user + system time of the shell's
# finished children. `times` runs in this shell, not in a $(...) subshell,
# whose children would be its own.
ci_cpu_now() {
  local _ user sys field minutes seconds
  times >"$ci_times_file"
  { read -r _; read -r user sys; } <"$ci_times_file"
  ci_cpu_centiseconds=0
  for field in "$user" "$sys"; do
    field=${field%s}
    field=${field/,/.}
    minutes=${field%%m*}
    seconds=${field#*m}
    ci_cpu_centiseconds=$((ci_cpu_centiseconds + minutes * 6000 +
      10#${seconds%.*} * 100 + 10#${seconds#*.} / 10))
  done
}

step() {
  local name=$1 start=$SECONDS cpu_before
  shift
  echo "ci: $name"
  ci_cpu_now
  cpu_before=$ci_cpu_centiseconds
  "$@"
  ci_cpu_now
  echo "ci: done in $((SECONDS - start)) s" \
    "(cpu $(((ci_cpu_centiseconds - cpu_before) / 100)) s): $name"
}
