#!/usr/bin/env bash
# The installed app updates itself (issue 17), end to end with real packages: the Packdesk
# installed from a .deb (an older version, made by .ci/bundle with the release key) finds the next
# release on a loopback update server of this script's own, downloads and verifies it, installs it
# (dpkg through pkexec or sudo, as the updater does on a desk) and restarts as the new version.
# Not part of .ci/run: it needs two release builds and root. Run it as root after
#   bash .ci/bundle                          (signed; installed with apt install ./….deb)
#   bash .ci/bundle --bundles deb --config '{"version":"0.1.1"}'   (the next release)
# both with TAURI_SIGNING_PRIVATE_KEY(_PATH), its password and
# PACKDESK_UPDATE_BASE=http://127.0.0.1:8765/packdesk.
# Usage: bash tests/installed-update.sh [DIR]   (DIR: the next release's .deb, .sig and
# latest.json; default target/release/bundle/deb)
set -euo pipefail
cd "$(dirname "$0")/.."
next="$(realpath "${1:-target/release/bundle/deb}")"
[ -f "$next/latest.json" ] || { echo "no latest.json in $next: make the next release with .ci/bundle and the signing key"; exit 2; }
work="$(mktemp -d)"
display=":$((80 + RANDOM % 9))"
Xvfb "$display" -screen 0 1366x900x24 -nolisten tcp > /dev/null 2>&1 &
xvfb=$!
mkdir -p "$work/www"
ln -s "$next" "$work/www/packdesk"
# The same release changed on the way (one byte of its package), announced with its signature.
mkdir -p "$work/www/tampered"
python3 - "$next" "$work/www/tampered" <<'PY'
import json, os, sys
next_dir, out = sys.argv[1:]
manifest = json.load(open(os.path.join(next_dir, "latest.json")))
name = manifest["url"].rsplit("/", 1)[1]
package = bytearray(open(os.path.join(next_dir, name), "rb").read())
package[len(package) // 2] ^= 0x01
open(os.path.join(out, name), "wb").write(package)
manifest["url"] = manifest["url"].replace("/packdesk/", "/tampered/")
json.dump(manifest, open(os.path.join(out, "latest.json"), "w"))
PY
python3 -m http.server 8765 --bind 127.0.0.1 --directory "$work/www" > "$work/http.log" 2>&1 &
www=$!
trap 'pkill -f "packdesk --data-dir $work/data" 2>/dev/null || true; kill $www $xvfb 2>/dev/null || true; sleep 1; rm -rf "$work" || true' EXIT
sleep 1
before="$(dpkg-query -W -f '${Version}' packdesk)"
DISPLAY="$display" HOME="$work" /usr/bin/packdesk --data-dir "$work/data" --listen 127.0.0.1:0 > "$work/app.log" 2>&1 &
python3 - "$work/app.log" "$before" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$next/latest.json")" <<'PY'
import json, re, subprocess, sys, time

sys.path.insert(0, "tests")
from deskapi import http, session  # noqa: E402

log, before, offered = sys.argv[1:]

def wait_for(what, f, seconds=60):
    end = time.time() + seconds
    while time.time() < end:
        try:
            v = f()
            if v:
                return v
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"FAIL: {what} (log:\n{open(log).read()[-3000:]})")

def servers():
    return re.findall(r"listening on (http://[0-9.:]+)", open(log).read())

base = wait_for("the installed app's server", lambda: servers() and servers()[0])
wait_for("its window", lambda: http(base + "/ui/status")["data"]["ui_sessions"] >= 1)
token = session(base)
call = lambda method, path, body=None: http(base + path, method, body, token=token)
status = call("GET", "/desk/update")["data"]
assert status["current_version"] == before, status
settings = call("GET", "/desk/settings")["data"]
call("PUT", "/desk/settings", dict(settings, update_url="http://127.0.0.1:8765/tampered/latest.json"))
status = call("POST", "/desk/update/check")["data"]
assert status["state"] == "available", status
refused = call("POST", "/desk/update/download")
why = refused["meta"]["details"][0]["info"]
assert refused["meta"]["code"] == 4171 and "signature" in why, refused
assert call("GET", "/desk/update")["data"]["state"] == "failed"
refused = call("POST", "/desk/update/install")
assert refused["meta"]["code"] == 4171, refused
print(f"ok: a tampered package is refused, nothing installed: {why}")
call("PUT", "/desk/settings", dict(settings, update_url="http://127.0.0.1:8765/packdesk/latest.json"))
started = time.time()
status = call("POST", "/desk/update/check")["data"]
assert status["state"] == "available" and status["available"]["version"] == offered, status
print(f"ok: Packdesk {before} finds {offered} ({(time.time() - started) * 1000:.0f} ms)")
started = time.time()
status = call("POST", "/desk/update/download")["data"]
assert status["state"] == "ready", status
print(f"ok: the package is downloaded and its signature verified ({(time.time() - started) * 1000:.0f} ms): {status['message']}")
started = time.time()
answer = call("POST", "/desk/update/install")
print(f"install answered: {json.dumps(answer)[:300]}")
installed = wait_for("dpkg to hold the new version",
                     lambda: subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "packdesk"], capture_output=True,
                                            text=True).stdout == offered and offered, 180)
print(f"ok: dpkg now holds packdesk {installed} ({time.time() - started:.1f} s after install)")
base2 = wait_for("the app restarted as the new version", lambda: len(servers()) >= 2 and servers()[-1], 120)
wait_for("the new version answering",
         lambda: http(base2 + "/desk/update", token=session(base2))["data"]["current_version"] == offered, 60)
print(f"ok: the app restarted itself as {offered} ({time.time() - started:.1f} s after install), on {base2}")
PY
echo "installed-update: all checks passed"
