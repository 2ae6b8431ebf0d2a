#!/usr/bin/env bash
# The installed app's figures (issue 17): start to an interactive window, and idle memory (PSS of
# the app and each of its WebKit processes, from /proc/PID/smaps_rollup) after 20 s on a virtual
# display. Usage: bash tests/desktop-figures.sh [BIN] [RUNS]  (default /usr/bin/packdesk, 5 runs).
set -euo pipefail
bin="${1:-/usr/bin/packdesk}"
runs="${2:-5}"
display=":$((70 + RANDOM % 9))"
Xvfb "$display" -screen 0 1366x900x24 -nolisten tcp > /dev/null 2>&1 &
xvfb=$!
work="$(mktemp -d)"
trap 'kill ${app:-} $xvfb 2>/dev/null || true; rm -rf "$work"' EXIT
sleep 1
pss() { awk '/^Pss:/ {print int($2/1024)}' "/proc/$1/smaps_rollup" 2>/dev/null || echo 0; }
for run in $(seq 1 "$runs"); do
  rm -rf "$work/home"; mkdir -p "$work/home"
  started=$(date +%s%N)
  HOME="$work/home" DISPLAY="$display" "$bin" --data-dir "$work/home/data" --listen 127.0.0.1:0 > "$work/app.log" 2>&1 &
  app=$!
  base=""
  for _ in $(seq 1 500); do
    base=$(grep -o 'listening on http://[0-9.:]*' "$work/app.log" | head -1 | cut -d' ' -f3 || true)
    [ -n "$base" ] && break
    sleep 0.01
  done
  for _ in $(seq 1 1000); do
    [ "$(curl -s "$base/ui/status" | grep -o '"ui_sessions":[0-9]*' | cut -d: -f2)" -ge 1 ] 2>/dev/null && break
    sleep 0.01
  done
  ready_ms=$(( ($(date +%s%N) - started) / 1000000 ))
  if [ "$run" = "$runs" ]; then
    sleep 20
    total=0
    line=""
    for pid in $app $(pgrep -P "$app" || true); do
      name=$(cat "/proc/$pid/comm"); mb=$(pss "$pid"); total=$((total + mb)); line="$line $name=${mb}MB"
    done
    echo "run $run: window interactive ${ready_ms} ms after start; idle PSS ${total} MB:$line"
  else
    echo "run $run: window interactive ${ready_ms} ms after start"
  fi
  kill "$app"; wait "$app" 2>/dev/null || true
done
