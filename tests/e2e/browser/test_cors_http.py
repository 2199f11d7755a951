"""The local runtime's CORS, request by request, against API Gateway's HTTP API rules (issue 31
item 3; docs/platform.md "CORS"): preflights answered by the gateway for any path, headers only
for an allowed origin, the integration's own CORS headers ignored; and ``make dev RATE_LIMITS=off``."""
from __future__ import annotations

import requests

T = 30


def _preflight(base: str, path: str, origin: str, method: str = "GET", headers: str = "") -> requests.Response:
    h = {"Origin": origin, "Access-Control-Request-Method": method}
    if headers:
        h["Access-Control-Request-Headers"] = headers
    return requests.options(base + path, headers=h, timeout=T)


def _cors(r: requests.Response) -> dict[str, str]:
    return {k.lower(): v for k, v in r.headers.items() if k.lower().startswith("access-control-")}


def test_dev_json_lists_each_services_origins(browser_runtime, page_origins):
    dev, _ = browser_runtime
    fronts = [dev[s]["base_url"] for s in ("campaigns", "exams", "internships")]
    for s in ("campaigns", "exams", "internships"):
        origins = dev[s]["cors_origins"]
        assert set(fronts) <= set(origins) and page_origins[0] in origins, (s, origins)
        assert "http://localhost:5173" in origins and page_origins[1] not in origins


def test_preflight_allowed_origin(browser_runtime, page_origins):
    dev, _ = browser_runtime
    base, origin = dev["internships"]["base_url"], page_origins[0]
    r = _preflight(base, "/api/auth/login", origin, "POST", "content-type,x-csrf-token")
    assert r.status_code == 204 and r.content == b""
    assert _cors(r) == {"access-control-allow-origin": origin, "access-control-allow-credentials": "true",
                        "access-control-allow-methods": "GET,POST,PUT,PATCH,DELETE",
                        "access-control-allow-headers": "authorization,content-type,x-csrf-token",
                        "access-control-max-age": "600"}
    assert r.headers["vary"] == "Origin"
    # answered by the gateway for any path, a route or not (no function runs)
    assert _preflight(base, "/no/such/route", origin).status_code == 204
    # campaigns and exams: no credentials (no cookies), their own header lists
    c = _preflight(dev["campaigns"]["base_url"], "/contacts", origin, "POST", "authorization,idempotency-key")
    assert c.status_code == 204 and "access-control-allow-credentials" not in _cors(c)
    assert "idempotency-key" in c.headers["access-control-allow-headers"]
    e = _preflight(dev["exams"]["base_url"], "/api/attempt-answers", origin, "POST", "x-attempt-token,content-type")
    assert e.status_code == 204 and e.headers["access-control-allow-origin"] == origin


def test_preflight_refused_has_no_cors_headers(browser_runtime, page_origins):
    dev, _ = browser_runtime
    base, allowed, blocked = dev["internships"]["base_url"], page_origins[0], page_origins[1]
    for r in (_preflight(base, "/api/auth/me", blocked),                      # origin not listed
              _preflight(base, "/api/auth/me", "null"),                       # opaque origin
              _preflight(base, "/api/auth/me", allowed, "TRACE"),             # method not allowed
              _preflight(base, "/api/auth/me", allowed, "GET", "x-evil")):    # header not allowed
        assert r.status_code == 204 and _cors(r) == {}, r.headers


def test_options_without_preflight_headers_is_routed(browser_runtime, page_origins):
    dev, _ = browser_runtime
    r = requests.options(dev["internships"]["base_url"] + "/api/health", headers={"Origin": page_origins[0]}, timeout=T)
    assert r.status_code == 404 and r.json()  # no OPTIONS route: the service's own 404
    assert r.headers["access-control-allow-origin"] == page_origins[0]


def test_actual_request_headers(browser_runtime, page_origins):
    dev, _ = browser_runtime
    base = dev["exams"]["base_url"]
    r = requests.get(base + "/health", headers={"Origin": page_origins[0]}, timeout=T)
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == page_origins[0] and "Origin" in r.headers["vary"]
    assert "x-request-id" in r.headers["access-control-expose-headers"].split(",")
    assert "access-control-allow-credentials" not in r.headers
    r = requests.get(base + "/health", headers={"Origin": page_origins[1]}, timeout=T)
    assert r.status_code == 200 and _cors(r) == {}  # served, but the browser will not hand it over
    r = requests.get(base + "/health", timeout=T)
    assert _cors(r) == {}  # no Origin, no CORS headers


def test_rate_limits_off_lifts_registration_limit(browser_runtime):
    """``LOCAL_RATE_LIMITS=off`` (``make dev RATE_LIMITS=off``): 5 registrations from 127.0.0.1 in a
    minute (3 otherwise)."""
    import uuid

    dev, _ = browser_runtime
    base = dev["internships"]["base_url"]
    run = uuid.uuid4().hex[:6]
    statuses = [requests.post(base + "/api/auth/register", timeout=T, json={
        "name": "Rate Test", "email": f"rate{i}.{run}@example.com", "password": "Secur3pass",
        "phone": "+919812345678", "college": "RVCE"}).status_code for i in range(5)]
    assert statuses == [200] * 5
