#!/usr/bin/env bash
# The desktop app for real: starts the built `packdesk` binary on a virtual X display (Xvfb),
# waits until its window's UI has reached the embedded server (a UI session), and takes a
# screenshot of the screen (ImageMagick `import`), which must not be blank.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${PACKDESK_APP_BIN:-$root/target/debug/packdesk}"
shot="${PACKDESK_SCREENSHOT:-${TMPDIR:-/tmp}/packdesk-desktop.png}"
work="$(mktemp -d)"
display=":$((90 + RANDOM % 9))"
cleanup() { kill "${app:-}" "${xvfb:-}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

Xvfb "$display" -screen 0 1366x900x24 -nolisten tcp > "$work/xvfb.log" 2>&1 &
xvfb=$!
sleep 1
started=$(date +%s%N)
DISPLAY="$display" "$bin" --data-dir "$work/data" --listen 127.0.0.1:0 > "$work/app.log" 2>&1 &
app=$!
base=""
for _ in $(seq 1 100); do
  base=$(grep -o 'listening on http://[0-9.:]*' "$work/app.log" | head -1 | cut -d' ' -f3 || true)
  [ -n "$base" ] && break
  kill -0 "$app" 2>/dev/null || { cat "$work/app.log"; echo "desktop: the app exited"; exit 1; }
  sleep 0.2
done
[ -n "$base" ] || { cat "$work/app.log"; echo "desktop: the app did not start its server"; exit 1; }
sessions=0
for _ in $(seq 1 600); do
  sessions=$(curl -s "$base/ui/status" | grep -o '"ui_sessions":[0-9]*' | cut -d: -f2 || echo 0)
  [ "${sessions:-0}" -ge 1 ] && break
  sleep 0.1
done
ready_ms=$(( ($(date +%s%N) - started) / 1000000 ))
[ "${sessions:-0}" -ge 1 ] || { cat "$work/app.log"; echo "desktop: the window's UI never reached its server"; exit 1; }
sleep 2
DISPLAY="$display" import -window root "$shot"
colors=$(convert "$shot" -format '%k' info:)
[ "$colors" -gt 20 ] || { echo "desktop: the screenshot is blank ($colors colours)"; exit 1; }
echo "desktop: the window's UI reached its server at $base ($sessions UI session(s)) ${ready_ms} ms after start; screenshot $shot ($colors colours)"
