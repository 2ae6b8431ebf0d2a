"""The interface's flow as a Python client makes it (requests, the HTTP library of the Python
clients of this kind of service), over HTTPS trusting only the desk's certificate: an account, a
rate, a label, its PDF by the file link, its cancel, a manifest. Reads BASE, KEY and CA; prints
one JSON line of what it saw. Run by the api crate's https tests."""
import json
import os
import sys

import requests

base, key, ca = os.environ["BASE"], os.environ["KEY"], os.environ["CA"]
session = requests.Session()
# Per request: a session's `verify` gives way to REQUESTS_CA_BUNDLE (requests' own rule).
session.headers.update({"service-api-key": key, "content-type": "application/json"})


def call(method, path, body=None):
    r = session.request(method, base + path, data=json.dumps(body) if body is not None else None, verify=ca, timeout=30)
    envelope = r.json()
    if envelope["meta"]["code"] != 200:
        sys.exit(f"{method} {path}: {r.status_code} {envelope['meta']}")
    return envelope["data"]


def address(name, postal):
    return {"contact_name": name, "street1": "1 Test Street", "city": "Testville", "postal_code": postal, "country": "GBR"}


account = call("POST", "/v3/shipper-accounts", {
    "slug": "yodel", "description": "Yodel desk", "timezone": "Europe/London",
    "credentials": {"identity": "i", "password": "p", "account_number": "1"},
})
shipment = {"ship_from": address("Sender Co", "E16 2AA"), "ship_to": address("Jane Doe", "M1 1AE"),
            "parcels": [{"weight": {"value": 1.5, "unit": "kg"}}]}
rate = call("POST", "/v3/rates", {"shipper_accounts": [{"id": account["id"]}], "shipment": shipment})
label = call("POST", "/v3/labels", {"service_type": "yodel_std", "shipper_account": {"id": account["id"]}, "shipment": shipment})
pdf = session.get(label["files"]["label"]["url"], verify=ca, timeout=30)
cancel = call("POST", "/v3/cancel-labels", {"label": {"id": label["id"]}})
second = call("POST", "/v3/labels", {"service_type": "yodel_std", "shipper_account": {"id": account["id"]}, "shipment": shipment})
manifest = call("POST", "/v3/manifests", {"shipper_account": {"id": account["id"]}})
print(json.dumps({
    "rates": len(rate["rates"]),
    "label": label["status"],
    "file_url": label["files"]["label"]["url"],
    "pdf": pdf.content[:4].decode("latin-1"),
    "cancel": cancel["status"],
    "manifest": manifest["status"],
    "second": second["tracking_numbers"],
}))
