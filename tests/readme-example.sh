#!/usr/bin/env bash
# Runs the API example of README.md exactly as written, against a fresh Packdesk on
# 127.0.0.1:4780 with a temporary data folder, and checks what it produced.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
export PACKDESK_DATA_DIR="$work/data"
# The debug build the tests made (the example's commands are the same; a release build would add
# ten minutes to a test run): its server binary when there is one, as the tests ran it (building
# it again alone would compile the tree again with other features).
export PACKDESK_BUILD=debug
[ -x "$root/target/debug/packdesk-server" ] && export PACKDESK_SERVER_BIN="${PACKDESK_SERVER_BIN:-$root/target/debug/packdesk-server}"
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT

sed -n '/<!-- example:start -->/,/<!-- example:end -->/p' "$root/README.md" | sed '1,2d;$d' | sed '$d' > "$work/example.sh"
[ -s "$work/example.sh" ] || { echo "README example not found"; exit 1; }

cd "$root"
bash .ci/app --listen 127.0.0.1:4780 > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 600); do
  grep -q "listening on" "$work/server.log" 2>/dev/null && break
  kill -0 $server 2>/dev/null || { cat "$work/server.log"; echo "server did not start"; exit 1; }
  sleep 1
done

cd "$work"
# The example expects the repo as working directory for `bash .ci/app keys`.
(cd "$root" && bash -euo pipefail "$work/example.sh") 
mv "$root/account.json" "$root/label.json" "$root/label.pdf" "$work/"
grep -q '"code":200' label.json || { cat label.json; echo "label not created"; exit 1; }
pages=$(pdfinfo label.pdf | awk '/^Pages:/ {print $2}')
size=$(pdfinfo label.pdf | awk '/^Page size:/ {print $3 "x" $5}')
[ "$pages" = 2 ] && [ "$size" = "288x288" ] || { echo "label.pdf: $pages pages of $size, want 2 of 288x288"; exit 1; }
pdftoppm -r 200 -png label.pdf page
first=$(grep -o '"tracking_numbers":\["[^"]*"' label.json | cut -d'"' -f4)
zbarimg --raw -q page-1.png | grep -qx "$first" || { echo "barcode of page 1 is not $first"; exit 1; }
echo "README example: 1 passed, 0 failed"
