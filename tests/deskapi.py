"""The desk's HTTP API as the Python test scripts call it (desktop_shell.py, installed-update.sh)."""
import json
import urllib.error
import urllib.request


def http(url, method="GET", body=None, key=None, timeout=60):
    """One call; answers the JSON body, the error envelope included."""
    req = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body is not None else None)
    if key:
        req.add_header("service-api-key", key)
    req.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        # The error envelope is the answer too.
        return json.loads(e.read())
