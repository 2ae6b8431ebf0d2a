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
# GNOME Keyring, unlocked as after a login, keeps the app's vault key.
command -v gnome-keyring-daemon >/dev/null || { echo "gnome-keyring is needed (.ci/test installs it)" >&2; exit 1; }
DISPLAY="$display" dbus-run-session -- bash -c '
  set -euo pipefail
  export XDG_DATA_HOME="$(mktemp -d)"
  eval "$(printf "packdesk-test" | gnome-keyring-daemon --unlock --components=secrets)"
  trap "kill \${GNOME_KEYRING_PID:-} 2>/dev/null || true; rm -rf \"$XDG_DATA_HOME\"" EXIT
  /usr/bin/python3 "$0" "$1"
' "$root/tests/desktop_shell.py" "$bin"
