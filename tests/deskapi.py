"""The desk's HTTP API as the Python test scripts call it (desktop_shell.py, installed-update.sh)."""
import json
import urllib.error
import urllib.request


def session(base, env="live"):
    """The token of a desk UI session in `env`, as the desk's own page gets it (sign-in off: the
    desk itself, an admin)."""
    return http(f"{base}/ui/session?environment={env}")["data"]["session"]["token"]


def http(url, method="GET", body=None, key=None, timeout=60, token=None):
    """One call with an API key or a desk UI session's token; answers the JSON body, the error
    envelope included."""
    req = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body is not None else None)
    if key:
        req.add_header("service-api-key", key)
    if token:
        req.add_header("authorization", f"Bearer {token}")
    req.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        # The error envelope is the answer too.
        return json.loads(e.read())
