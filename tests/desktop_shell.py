#!/usr/bin/python3
"""The desktop app's shell as a desk uses it, on a virtual display (Xvfb) and a private session
bus (run by tests/desktop-shell.sh): the tray (its menu read and clicked over D-Bus as a panel
does, its icon's dot read from the PNG it shows), closing the window (to the tray or quitting),
one app per data folder, and the login item.

No panel runs here: this script stands in for one (a StatusNotifierWatcher on the session bus),
and for the window manager's close button (WM_DELETE_WINDOW sent to the window).
"""
import base64
import ctypes
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zlib

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

from deskapi import http, session  # noqa: E402

WATCHER_XML = """<node><interface name="org.kde.StatusNotifierWatcher">
<method name="RegisterStatusNotifierItem"><arg name="service" type="s" direction="in"/></method>
<method name="RegisterStatusNotifierHost"><arg name="service" type="s" direction="in"/></method>
<property name="RegisteredStatusNotifierItems" type="as" access="read"/>
<property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
<property name="ProtocolVersion" type="i" access="read"/>
<signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
<signal name="StatusNotifierHostRegistered"/>
</interface></node>"""


def watcher(items_file):
    """The panel's half of the tray protocol: items register here; each is written to a file."""
    items = []

    def call(conn, sender, path, iface, method, params, invocation):
        if method == "RegisterStatusNotifierItem":
            service = params.unpack()[0]
            item = f"{sender}{service}" if service.startswith("/") else f"{service}/StatusNotifierItem"
            items.append(item)
            with open(items_file, "a") as f:
                f.write(item + "\n")
            conn.emit_signal(None, path, iface, "StatusNotifierItemRegistered", GLib.Variant("(s)", (item,)))
        invocation.return_value(None)

    def prop(conn, sender, path, iface, name):
        return {
            "RegisteredStatusNotifierItems": GLib.Variant("as", items),
            "IsStatusNotifierHostRegistered": GLib.Variant("b", True),
            "ProtocolVersion": GLib.Variant("i", 0),
        }[name]

    def acquired(conn, name):
        info = Gio.DBusNodeInfo.new_for_xml(WATCHER_XML).interfaces[0]
        conn.register_object("/StatusNotifierWatcher", info, call, prop, None)

    Gio.bus_own_name(Gio.BusType.SESSION, "org.kde.StatusNotifierWatcher", Gio.BusNameOwnerFlags.NONE, acquired, None, None)
    GLib.MainLoop().run()


def check(ok, what):
    if not ok:
        raise AssertionError(what)
    print(f"ok: {what}", flush=True)


def wait_for(what, f, seconds=15.0):
    end = time.time() + seconds
    while True:
        v = f()
        if v:
            return v
        if time.time() > end:
            raise AssertionError(f"timed out: {what}")
        time.sleep(0.1)


class App:
    def __init__(self, binary, data_dir, env, log):
        self.log = log
        self.proc = subprocess.Popen([binary, "--data-dir", data_dir, "--listen", "127.0.0.1:0"], env=env,
                                     stdout=open(log, "w"), stderr=subprocess.STDOUT)
        self.base = None

    def text(self):
        with open(self.log) as f:
            return f.read()

    def started(self):
        m = wait_for("the app's server", lambda: re.search(r"listening on (http://[0-9.:]+)", self.text()) or self.gone())
        if not hasattr(m, "group"):
            raise AssertionError(f"the app exited: {self.text()}")
        self.base = m.group(1)
        wait_for("the window's UI reaching the server", lambda: http(self.base + "/ui/status")["data"]["ui_sessions"] >= 1, 60)
        self.sessions = {env: session(self.base, env) for env in ("live", "sandbox")}
        return self

    def gone(self):
        return self.proc.poll() is not None

    def call(self, method, path, body=None, env="live"):
        return http(self.base + path, method, body, token=self.sessions[env])


# ----- Updates: a warehouse's update server of the test's own, its releases signed here -----

class Signer:
    """Signs as Tauri's signer does (minisign, prehashed Ed25519, the version in the trusted
    comment), with a key made for this run: the debug app is told it (PACKDESK_UPDATER_PUBKEY); a
    release build trusts only the key in tauri.conf.json."""

    def __init__(self):
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives import serialization
        self.key = Ed25519PrivateKey.generate()
        self.key_id = os.urandom(8)
        raw = self.key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        text = f"untrusted comment: minisign public key: {self.key_id[::-1].hex().upper()}\n" \
               f"{base64.b64encode(b'Ed' + self.key_id + raw).decode()}\n"
        self.pubkey = base64.b64encode(text.encode()).decode()

    def sign(self, data, version, name):
        sig = self.key.sign(hashlib.blake2b(data, digest_size=64).digest())
        trusted = f"timestamp:{int(time.time())}\tfile:{name}\tversion:{version}"
        global_sig = self.key.sign(sig + trusted.encode())
        text = "untrusted comment: signature from tauri secret key\n" \
               f"{base64.b64encode(b'ED' + self.key_id + sig).decode()}\n" \
               f"trusted comment: {trusted}\n{base64.b64encode(global_sig).decode()}\n"
        return base64.b64encode(text.encode()).decode()


class UpdateServer:
    """Release manifests (`/<name>/latest.json`) and packages (`/files/<name>`) on 127.0.0.1."""

    def __init__(self):
        import http.server
        import threading
        self.routes, self.fetched = {}, []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                server.fetched.append(self.path)
                body = server.routes.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.send_header("content-length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def release(self, name, version, package, signature):
        self.routes[f"/files/{name}.deb"] = package
        self.routes[f"/{name}/latest.json"] = json.dumps({
            "version": version, "notes": "Faster labels", "pub_date": "2026-11-24T08:00:00Z",
            "url": f"{self.base}/files/{name}.deb", "signature": signature}).encode()
        return f"{self.base}/{name}/latest.json"


def check_updates(desk, server, signer):
    """The update flow through the desk's API, as Settings drives it; nothing is installed."""
    settings = desk.call("GET", "/desk/settings")["data"]
    status = desk.call("GET", "/desk/update")["data"]
    check(status["state"] == "off" and status["current_version"] == "0.1.0",
          f"updates are off until Settings names a server ({status['message']})")
    package = os.urandom(300_000)
    good = server.release("good", "9.9.9", package, signer.sign(package, "9.9.9", "packdesk_9.9.9_amd64.deb"))
    desk.call("PUT", "/desk/settings", dict(settings, update_url=good))
    status = desk.call("POST", "/desk/update/check")["data"]
    check(status["state"] == "available" and status["available"]["version"] == "9.9.9"
          and status["available"]["notes"] == "Faster labels", f"an update is found: {status['message']}")
    status = desk.call("POST", "/desk/update/download")["data"]
    check(status["state"] == "ready" and "/files/good.deb" in server.fetched,
          f"the update is downloaded and its signature verified: {status['message']}")

    # The same release with its package changed on the way: the signature refuses it.
    tampered = bytearray(package)
    tampered[1000] ^= 0xFF
    bad = server.release("tampered", "9.9.9", bytes(tampered), signer.sign(package, "9.9.9", "packdesk.deb"))
    desk.call("PUT", "/desk/settings", dict(settings, update_url=bad))
    check(desk.call("POST", "/desk/update/check")["data"]["state"] == "available", "the tampered release is offered")
    refused = desk.call("POST", "/desk/update/download")
    status = desk.call("GET", "/desk/update")["data"]
    check(refused["meta"]["code"] == 4171 and "signature" in refused["meta"]["details"][0]["info"].lower()
          and status["state"] == "failed", f"a bad signature is refused: {refused['meta']['details'][0]['info']}")
    # Nor is an old, genuinely signed package taken as a newer version (a downgrade).
    forged = server.release("forged", "10.0.0", package, signer.sign(package, "9.9.9", "packdesk.deb"))
    desk.call("PUT", "/desk/settings", dict(settings, update_url=forged))
    refused = desk.call("POST", "/desk/update/download")
    check(refused["meta"]["code"] == 4171 and "version" in refused["meta"]["details"][0]["info"].lower(),
          f"a signature made for another version is refused: {refused['meta']['details'][0]['info']}")
    # Nor one signed by another key.
    other = Signer()
    foreign = server.release("foreign", "9.9.9", package, other.sign(package, "9.9.9", "packdesk.deb"))
    desk.call("PUT", "/desk/settings", dict(settings, update_url=foreign))
    refused = desk.call("POST", "/desk/update/download")
    check(refused["meta"]["code"] == 4171, f"a package signed by another key is refused: {refused['meta']['details'][0]['info']}")
    refused = desk.call("POST", "/desk/update/install")
    check(refused["meta"]["code"] == 4171, "nothing unverified is installed")
    older = server.release("older", "0.0.9", package, signer.sign(package, "0.0.9", "packdesk.deb"))
    desk.call("PUT", "/desk/settings", dict(settings, update_url=older))
    status = desk.call("POST", "/desk/update/check")["data"]
    check(status["state"] == "up_to_date", f"an older release is no update: {status['message']}")
    desk.call("PUT", "/desk/settings", settings)


def check_database_restart(app, data_dir):
    """Settings' shared database takes effect by "Restart now": the app restarts itself (the same
    program and arguments) and comes back on that database; stopped here at the end."""
    cluster = os.environ.get("PACKDESK_TEST_POSTGRES")
    check(bool(cluster), "PACKDESK_TEST_POSTGRES names the test cluster (run with the README test command)")
    name = f"shell_restart_{os.getpid()}"
    subprocess.run(["psql", cluster, "-q", "-c", f"CREATE DATABASE {name}"], check=True)
    url = re.sub(r"/postgres$", f"/{name}", cluster)
    saved = app.call("PUT", "/desk/database", {"url": url, "desk": "Shell desk", "join_code": None})["data"]
    check(saved["restart_needed"] and not saved["shared"], f"the shared database is saved for the next start ({saved})")
    started = time.time()
    answer = app.call("POST", "/desk/database/restart")
    check(answer["meta"]["code"] == 200, f"the restart is accepted ({answer['meta']})")
    wait_for("the app to end", app.gone, 30)
    check(app.proc.returncode == 0, f"the app ended to restart (exit {app.proc.returncode})")
    # Its successor writes to the same log (inherited) and listens anew.
    base = wait_for("the restarted app's server",
                    lambda: (re.findall(r"listening on (http://[0-9.:]+)", app.text())[1:] or [None])[0], 60)
    wait_for("the restarted window's UI", lambda: http(base + "/ui/session")["data"].get("session"), 60)
    print(f"figure: the app was back on the shared database {(time.time() - started) * 1000:.0f} ms after Restart now", flush=True)
    now = http(base + "/desk/database", token=session(base))["data"]
    check(now["shared"] and now["desk"] == "Shell desk" and not now["restart_needed"],
          f"restarted, the desk runs on the shared database ({now})")
    # The successor is no child of this script: found by its arguments, stopped as a desk is.
    for pid in os.listdir("/proc"):
        try:
            args = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except (OSError, ValueError):
            continue
        if data_dir.encode() in args and int(pid) != os.getpid():
            os.kill(int(pid), 15)
            wait_for("the restarted app to stop", lambda: stopped(pid), 20)


def stopped(pid):
    """Whether process `pid` ended (gone, or a zombie no one reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


# ----- X11: the window as a window manager sees it -----

class XClientMessageEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong),
                ("format", ctypes.c_int), ("data", ctypes.c_long * 5)]


class XEvent(ctypes.Union):
    _fields_ = [("xclient", XClientMessageEvent), ("pad", ctypes.c_long * 24)]


def packdesk_windows():
    """The top-level windows named Packdesk: (id, viewable)."""
    tree = subprocess.run(["xwininfo", "-root", "-children"], capture_output=True, text=True).stdout
    out = []
    for wid in re.findall(r'^\s+(0x[0-9a-f]+) "Packdesk"', tree, re.M):
        info = subprocess.run(["xwininfo", "-id", wid], capture_output=True, text=True).stdout
        out.append((int(wid, 16), "IsViewable" in info))
    return out


def close_window(wid):
    """What a window manager's close button does: WM_DELETE_WINDOW to the window."""
    x = ctypes.cdll.LoadLibrary("libX11.so.6")
    x.XOpenDisplay.restype = ctypes.c_void_p
    x.XInternAtom.restype = ctypes.c_ulong
    d = x.XOpenDisplay(None)
    ev = XEvent()
    ev.xclient.type = 33  # ClientMessage
    ev.xclient.window = wid
    ev.xclient.message_type = x.XInternAtom(ctypes.c_void_p(d), b"WM_PROTOCOLS", 0)
    ev.xclient.format = 32
    ev.xclient.data[0] = x.XInternAtom(ctypes.c_void_p(d), b"WM_DELETE_WINDOW", 0)
    x.XSendEvent(ctypes.c_void_p(d), ctypes.c_ulong(wid), 0, 0, ctypes.byref(ev))
    x.XFlush(ctypes.c_void_p(d))
    x.XCloseDisplay(ctypes.c_void_p(d))


# ----- the tray item, as a panel reads and clicks it -----

class TrayItem:
    def __init__(self, item):
        self.bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        self.name, path = item.split("/", 1)
        self.path = "/" + path

    def prop(self, name):
        v = self.bus.call_sync(self.name, self.path, "org.freedesktop.DBus.Properties", "Get",
                               GLib.Variant("(ss)", ("org.kde.StatusNotifierItem", name)), None,
                               Gio.DBusCallFlags.NONE, 5000, None)
        return v.unpack()[0]

    def menu(self):
        """The menu's items: label -> (id, enabled, toggle state)."""
        v = self.bus.call_sync(self.name, self.prop("Menu"), "com.canonical.dbusmenu", "GetLayout",
                               GLib.Variant("(iias)", (0, -1, [])), None, Gio.DBusCallFlags.NONE, 5000, None)
        _, (root_id, _, children) = v.unpack()
        items = {}
        for child in children:
            cid, props, _ = child
            if props.get("type") == "separator":
                continue
            items[props.get("label", "").replace("_", "")] = (cid, props.get("enabled", True), props.get("toggle-state"))
        return items

    def click(self, label):
        cid = self.menu()[label][0]
        self.bus.call_sync(self.name, self.prop("Menu"), "com.canonical.dbusmenu", "Event",
                           GLib.Variant("(isvu)", (cid, "clicked", GLib.Variant("s", ""), 0)), None,
                           Gio.DBusCallFlags.NONE, 5000, None)

    def dot(self):
        """The colour at the centre of the icon's dot (lower right), read from the PNG shown."""
        return png_pixel(self.prop("IconName"), 0.79, 0.79)


def png_pixel(path, fx, fy):
    """An RGBA pixel of an 8-bit RGBA PNG without filters beyond the five standard ones."""
    with open(path if path.endswith(".png") else path + ".png", "rb") as f:
        data = f.read()
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h = int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * 4, [], bytearray(w * 4)
    for y in range(h):
        ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    x, y = int(w * fx), int(h * fy)
    return tuple(rows[y][x * 4:x * 4 + 4])


def colour(rgba):
    r, g, b, _ = rgba
    if g > r and g > b:
        return "green"
    if r > 200 and g > 120 and b < 80:
        return "amber"
    if r > 180 and g < 90:
        return "red"
    return f"{rgba}"


def main(binary):
    work = tempfile.mkdtemp(prefix="packdesk-shell-")
    signer = Signer()
    update_server = UpdateServer()
    env = dict(os.environ, HOME=f"{work}/home", TMPDIR=f"{work}/tmp", PACKDESK_UPDATER_PUBKEY=signer.pubkey)
    os.makedirs(env["HOME"])
    os.makedirs(env["TMPDIR"])
    items_file = f"{work}/tray-items"
    panel = subprocess.Popen([sys.executable, __file__, "--watcher", items_file])
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    has_owner = lambda name: bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                           "NameHasOwner", GLib.Variant("(s)", (name,)), None,
                                           Gio.DBusCallFlags.NONE, 2000, None).unpack()[0]
    wait_for("the stand-in panel", lambda: has_owner("org.kde.StatusNotifierWatcher"))
    apps = []
    try:
        # Closing the window quits by default.
        other = App(binary, f"{work}/other", env, f"{work}/other.log").started()
        apps.append(other)
        [(wid, viewable)] = wait_for("the window", packdesk_windows)
        check(viewable, "the window is shown")
        close_window(wid)
        wait_for("the app to quit", lambda: other.proc.poll() is not None, 20)
        check(other.proc.returncode == 0, f"closing the window quits the app (exit {other.proc.returncode})")

        desk = App(binary, f"{work}/desk", env, f"{work}/desk.log").started()
        apps.append(desk)
        vault_key = http(desk.base + "/ui/session")["data"]["vault_key"]
        check(vault_key["kept_in"] == "keyring" and not os.path.exists(f"{work}/desk/vault.key"),
              f"the vault key is in GNOME Keyring, not in the data folder ({vault_key})")
        check_updates(desk, update_server, signer)
        item = TrayItem(wait_for("the tray item", lambda: open(items_file).read().split() if os.path.exists(items_file) else None)[-1])
        menu = wait_for("the tray menu", lambda: item.menu() if "Ready" in item.menu() else None)
        check(set(menu) >= {"Ready", "Open Packdesk", "Pause printing", "Quit Packdesk"}, f"the tray menu: {sorted(menu)}")
        check(colour(item.dot()) == "green", f"a ready desk's tray dot is green ({item.dot()})")

        clicked = time.time()
        item.click("Pause printing")
        wait_for("the pause", lambda: desk.call("GET", "/desk/status")["data"]["printing_paused"])
        menu = wait_for("the tray to say so", lambda: item.menu() if "Printing paused: 0 print jobs waiting" in item.menu() else None)
        print(f"figure: the tray said 'Printing paused' {(time.time() - clicked) * 1000:.0f} ms after the click", flush=True)
        check(menu["Pause printing"][2] == 1, "Pause printing is ticked in the tray")
        check(colour(wait_for("amber", lambda: item.dot() if colour(item.dot()) == "amber" else None)) == "amber", "a paused desk's dot is amber")
        item.click("Pause printing")
        wait_for("the resume", lambda: not desk.call("GET", "/desk/status")["data"]["printing_paused"])
        wait_for("the tray to say ready", lambda: "Ready" in item.menu())
        check(True, "Pause printing again resumes it")

        # Closed to the tray: the desk keeps answering; starting the app again shows the window.
        settings = desk.call("GET", "/desk/settings")["data"]
        desk.call("PUT", "/desk/settings", dict(settings, close_to_tray=True))
        [(wid, _)] = packdesk_windows()
        close_window(wid)
        wait_for("the window hidden", lambda: packdesk_windows() == [(wid, False)])
        check(desk.proc.poll() is None and desk.call("GET", "/desk/status")["meta"]["code"] == 200,
              "closed to the tray, the desk still runs and answers")
        started = time.time()
        second = App(binary, f"{work}/desk", env, f"{work}/second.log")
        wait_for("the second start to hand over", second.gone, 20)
        print(f"figure: a second start handed over and exited in {(time.time() - started) * 1000:.0f} ms", flush=True)
        check(second.proc.returncode == 0 and "listening on" not in second.text(),
              "a second start on the same data folder exits without starting a server")
        wait_for("the window shown again", lambda: packdesk_windows() == [(wid, True)])
        print(f"figure: the hidden window was shown {(time.time() - started) * 1000:.0f} ms after the second start", flush=True)
        check("started again" in desk.text(), "the running app showed its window")

        # Another data folder is another desk: it runs alongside.
        alongside = App(binary, f"{work}/third", env, f"{work}/third.log").started()
        apps.append(alongside)
        check(alongside.base != desk.base, "an app of another data folder runs alongside")
        check_database_restart(alongside, f"{work}/third")

        # The login item follows the setting.
        entry = f"{env['HOME']}/.config/autostart/Packdesk.desktop"
        settings = desk.call("GET", "/desk/settings")["data"]
        desk.call("PUT", "/desk/settings", dict(settings, start_at_login=True))
        wait_for("the login item", lambda: os.path.exists(entry))
        text = open(entry).read()
        check(f"Exec={binary} --data-dir {work}/desk" in text, f"the login item starts this desk: {text!r}")
        desk.call("PUT", "/desk/settings", dict(settings, start_at_login=False))
        wait_for("the login item removed", lambda: not os.path.exists(entry))
        check(True, "unticked, the login item is removed")

        item.click("Quit Packdesk")
        wait_for("the app to quit from the tray", desk.gone, 20)
        check(desk.proc.returncode == 0, "Quit in the tray menu ends the app")
        print("desktop shell: all checks passed", flush=True)
    except Exception:
        for a in apps:
            print(f"----- {a.log}\n{a.text()}", flush=True)
        raise
    finally:
        for a in apps:
            if a.proc.poll() is None:
                a.proc.kill()
        panel.kill()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    if sys.argv[1] == "--watcher":
        watcher(sys.argv[2])
    else:
        main(os.path.abspath(sys.argv[1]))
