#!/usr/bin/env bash
# The desktop app's shell (tray, closing the window, one app per data folder, the login item) on a
# virtual display and a private D-Bus session bus; the checks are in tests/desktop_shell.py.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${PACKDESK_APP_BIN:-$root/target/debug/packdesk}"
display=":$((80 + RANDOM % 9))"
Xvfb "$display" -screen 0 1366x900x24 -nolisten tcp > /dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true' EXIT
sleep 1
DISPLAY="$display" dbus-run-session -- /usr/bin/python3 "$root/tests/desktop_shell.py" "$bin"
