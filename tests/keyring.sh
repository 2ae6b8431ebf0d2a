#!/usr/bin/env bash
# The vault key in the OS keyring: GNOME Keyring, unlocked with a throwaway password, on a private
# session bus (crates/service/tests/it/os_keyring.rs); then the same tests' fallback without a bus.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# --workspace as in .ci/test, so the test binaries it built serve here (the api's has no such test).
cargo test --workspace --test it --locked --no-run -q
dbus-run-session -- bash -c '
  set -euo pipefail
  # A new login keyring, unlocked: what a desktop session has after the user logs in.
  export XDG_DATA_HOME="$(mktemp -d)"
  eval "$(printf "packdesk-test" | gnome-keyring-daemon --unlock --components=secrets)"
  trap "kill \${GNOME_KEYRING_PID:-} 2>/dev/null || true; rm -rf \"$XDG_DATA_HOME\"" EXIT
  cargo test --workspace --test it --locked -q -- --ignored --test-threads 1 gnome_keyring
'
env -u DBUS_SESSION_BUS_ADDRESS cargo test --workspace --test it --locked -q -- --ignored without_a_keyring
echo "keyring: all checks passed"
