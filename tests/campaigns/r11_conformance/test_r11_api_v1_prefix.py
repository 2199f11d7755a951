"""Round 11: every campaigns route also answers under ``/api/v1``.

The spec: "Paths in the reference carry no version prefix. Some test procedures address the same
service with an /api/v1 prefix (health, auth, campaigns, data export and deletion)." Decision
(docs/campaigns-architecture.md, "Paths and the /api/v1 alias"): the unprefixed paths are
authoritative; ``/api/v1`` + the same path is served by the same function with the same auth,
scopes, rate limits and answers (the template's twin routes, the resolver's ``strip_prefixes``).
Before: ``GET /api/v1/health``, ``GET /api/v1/campaigns``, ``GET /api/v1/contacts/export`` and
``DELETE /api/v1/contacts/{id}`` answered 404.

Requests go through the template's routes and the real handlers (moto), as every campaigns test."""
from __future__ import annotations

import json
import re

import pytest

from local_runtime import costlog
from local_runtime import invoke as inv
from local_runtime.testing import services

V1 = "/api/v1"


def _norm(o):
    """The body without its ``timestamp`` fields (the clock moves between the two requests)."""
    if isinstance(o, dict):
        return {k: _norm(v) for k, v in o.items() if k != "timestamp"}
    if isinstance(o, list):
        return [_norm(v) for v in o]
    return o


def _body(r):
    ctype = (r.headers.get("content-type") or "").split(";")[0]
    return _norm(r.json()) if ctype == "application/json" else r.body


def same(plain, prefixed) -> None:
    """The prefixed request answered exactly as the unprefixed one: status, content type, the
    same headers (rate-limit counters move by one request) and the body (timestamps aside)."""
    assert prefixed.status == plain.status, (plain.text[:300], prefixed.text[:300])
    moving = {"x-ratelimit-remaining", "x-ratelimit-reset", "retry-after", "x-request-id", "date"}
    def fixed(h):  # an export's file name carries its second: two requests may straddle one
        return {k: (re.sub(r"\d", "N", v) if k == "content-disposition" else v) for k, v in h.items() if k not in moving}
    assert fixed(prefixed.headers) == fixed(plain.headers)
    assert set(prefixed.headers) == set(plain.headers)
    assert _body(prefixed) == _body(plain)


def test_health(campaigns_app):
    c = campaigns_app.campaigns
    plain, prefixed = c.get("/health"), c.get(f"{V1}/health")
    assert prefixed.status == 200 and prefixed.json()["data"]["status"] == "healthy"
    same(plain, prefixed)


def test_campaigns_list_and_detail(camp):
    r = camp.post(f"{V1}/campaigns", json={"name": "Prefixed", "subject": "Hi"})
    assert r.status == 201, r.text
    cid = r.json()["data"]["id"]
    same(camp.get("/campaigns"), camp.get(f"{V1}/campaigns"))
    plain = camp.get("/campaigns?page=1&limit=1&status=draft")
    same(plain, camp.get(f"{V1}/campaigns?page=1&limit=1&status=draft"))
    assert [x["id"] for x in plain.json()["data"]["campaigns"]] == [cid]
    # path parameters: the same campaign by either form
    same(camp.get(f"/campaigns/{cid}"), camp.get(f"{V1}/campaigns/{cid}"))


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_contacts_export(camp, fmt):
    for e in ("a@example.com", "b@example.com"):
        assert camp.post("/contacts", json={"email": e, "first_name": "A"}).status == 201
    plain, prefixed = camp.get(f"/contacts/export?format={fmt}"), camp.get(f"{V1}/contacts/export?format={fmt}")
    assert plain.status == 200, plain.text
    same(plain, prefixed)
    assert b"a@example.com" in prefixed.body


def test_contact_deletion(camp):
    ids = [camp.post("/contacts", json={"email": f"{n}@example.com"}).json()["data"]["id"] for n in ("x", "y")]
    plain, prefixed = camp.delete(f"/contacts/{ids[0]}"), camp.delete(f"{V1}/contacts/{ids[1]}")
    assert prefixed.status == 200, prefixed.text
    assert prefixed.json()["data"] == {"id": ids[1], "deleted": True}
    same(plain, _Swapped(prefixed, ids[1], ids[0]))
    for cid in ids:  # erased for both forms; the second delete answers the same 404
        same(camp.get(f"/contacts/{cid}"), camp.get(f"{V1}/contacts/{cid}"))
        same(camp.delete(f"/contacts/{cid}"), camp.delete(f"{V1}/contacts/{cid}"))
        assert camp.get(f"{V1}/contacts/{cid}").status == 404


class _Swapped:
    """A response with one id replaced by another (two deletions compared)."""

    def __init__(self, r, old: str, new: str) -> None:
        self.status, self.headers = r.status, r.headers
        self.body = r.body.replace(old.encode(), new.encode())
        self.text = self.body.decode()

    def json(self):
        return json.loads(self.body)


def test_auth_failures_are_the_same(campaigns_app, make_key):
    c = campaigns_app.campaigns
    for method, path in (("GET", "/campaigns"), ("GET", "/api"), ("GET", "/contacts/export"),
                         ("DELETE", "/contacts/c1")):
        plain, prefixed = c.request(method, path), c.request(method, V1 + path)
        assert prefixed.status == 401 and prefixed.json()["success"] is False, prefixed.text
        same(plain, prefixed)
        bad = {"Authorization": "Bearer ck_not_a_key"}
        same(c.request(method, path, headers=bad), c.request(method, V1 + path, headers=bad))
    # scopes: a read-only key may export but not erase, by either form
    reader = {"Authorization": f"Bearer {make_key(scopes=['contacts:read'])}"}
    plain, prefixed = c.delete("/contacts/c1", headers=reader), c.delete(f"{V1}/contacts/c1", headers=reader)
    assert prefixed.status == 403
    same(plain, prefixed)


def test_one_rate_limit_for_both_forms(campaigns_app, make_key):
    c = campaigns_app.campaigns
    h = {"Authorization": f"Bearer {make_key(role='admin', restrictions={'rate_limit': '3/hour'})}"}
    assert [c.get(p, headers=h).status for p in ("/api", f"{V1}/api", "/api")] == [200, 200, 200]
    plain, prefixed = c.get("/api", headers=h), c.get(f"{V1}/api", headers=h)
    assert prefixed.status == 429 and prefixed.json()["error"]["code"] == "RATE_LIMITED"
    same(plain, prefixed)


def test_unknown_prefixed_path_is_the_service_404(campaigns_app, admin_key):
    c = campaigns_app.campaigns
    for path in (f"{V1}/nope", f"{V1}/contacts/a/b/c", f"{V1}", f"{V1}/api/v1/health", "/v1/health"):
        r = c.get(path, headers={"Authorization": f"Bearer {admin_key}"})
        assert r.status == 404, (path, r.text)
        body = r.json()
        assert body["success"] is False and body["error"] == {
            "code": "NOT_FOUND", "message": f"Route GET {path} not found", "details": {}}, path
    # the function's own not-found (a path API Gateway would not route to it) has the same format
    svc = services()["campaigns"]
    route, _ = svc.match("GET", f"{V1}/health")
    event = inv.build_http_event(route, {}, "GET", f"{V1}/nothing/here", "", {}, None)
    r = inv.to_http_result(c.invoke_function("HealthFunction", event))
    assert r.status == 404 and r.json()["error"] == {
        "code": "NOT_FOUND", "message": f"Route GET {V1}/nothing/here not found", "details": {}}


def test_every_route_reaches_the_same_handler(campaigns_app):
    """Every canonical route and its twin, without credentials and with placeholder path
    parameters: the same answer, never the router's 404 (a protected route answers 401, a
    public one its own answer for a bad token)."""
    c = campaigns_app.campaigns
    svc = services()["campaigns"]
    for r in svc.canonical_routes:
        path = re.sub(r"\{[^}]+\}", "zz0placeholder", r.path)
        plain, prefixed = c.request(r.method, path), c.request(r.method, V1 + path)
        same(plain, prefixed)
        assert not (plain.status == 404 and "Route " in plain.text), r.route_key


def test_cost_log_labels_the_twin_with_the_authoritative_route(campaigns_app, tmp_path, monkeypatch):
    log = tmp_path / "cost.ndjson"
    monkeypatch.setenv(costlog.ENV, str(log))
    costlog.reset()
    try:
        c = campaigns_app.campaigns
        assert c.get("/health").status == 200 and c.get(f"{V1}/health").status == 200
        assert c.get(f"{V1}/campaigns/c1").status == 401
        routes = [json.loads(x)["route"] for x in log.read_text().splitlines()]
        assert routes == ["GET /health", "GET /health", "GET /campaigns/{id}"]
    finally:
        monkeypatch.delenv(costlog.ENV)
        costlog.reset()
