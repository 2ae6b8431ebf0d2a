#!/usr/bin/env bash
# Schemathesis (property-based API testing, from PyPI) over the OpenAPI document the server serves,
# against a real packdesk-server on 127.0.0.1 with a fresh data folder and the sandbox key.
# Checks: no 5xx, status codes, content types and response bodies as documented.
# Left out: routes that make the desk talk to other machines (webhook URL, printing, test pages,
# resends, sending a manifest's data file now, testing a manifest transport) or rotate the key the
# run uses; with the sandbox key the printers cannot be changed.
# Usage: bash tests/schemathesis.sh [SECONDS] (time budget, default 150).
set -euo pipefail
cd "$(dirname "$0")/.."
budget="${1:-150}"
bin="${PACKDESK_SERVER_BIN:-$PWD/target/debug/packdesk-server}"
venv="${PACKDESK_SCHEMATHESIS_VENV:-$HOME/.cache/packdesk/schemathesis-venv}"
if [ ! -x "$venv/bin/schemathesis" ]; then
  command -v python3 >/dev/null || { echo "schemathesis needs python3" >&2; exit 1; }
  python3 -m venv "$venv" 2>/dev/null || {
    source .ci/system-packages; apt_install python3-venv; python3 -m venv "$venv"; }
  "$venv/bin/pip" install -q --disable-pip-version-check "schemathesis>=4,<5"
fi

data=$(mktemp -d)
out=$(mktemp)
"$bin" --data-dir "$data" --listen 127.0.0.1:0 >"$out" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$data" "$out"' EXIT
for _ in $(seq 100); do grep -q "listening on" "$out" && break; sleep 0.1; done
base=$(sed -n 's/^packdesk-server listening on //p' "$out")
[ -n "$base" ] || { cat "$out" >&2; exit 1; }
key=$("$bin" keys --data-dir "$data" | sed -n 's/^sandbox //p')

NO_COLOR=1 "$venv/bin/schemathesis" run "$base/openapi.json" \
  --url "$base" \
  -H "service-api-key: $key" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --phases examples,coverage,fuzzing \
  --exclude-path /desk/webhook \
  --exclude-path /desk/print \
  --exclude-path-regex '^/desk/printers/\{id\}/test-page$' \
  --exclude-path-regex '^/desk/webhook-deliveries/\{id\}/resend$' \
  --exclude-path-regex '^/desk/print-jobs/\{id\}/retry$' \
  --exclude-path-regex '^/desk/manifests/\{id\}/transmit$' \
  --exclude-path-regex '^/desk/shipper-accounts/\{id\}/test-transport$' \
  --exclude-path-regex '^/ui/keys/' \
  --max-time "$budget" \
  --request-timeout 20 \
  --suppress-health-check all
