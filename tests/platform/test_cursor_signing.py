"""Issue 32, item 3: pagination cursors are opaque, signed and bound (``lambdakit.cursors``).

A forged but decodable cursor (``eyJhIjoxfQ`` = ``{"a":1}``) was a 500 on every paginated list
of the three services. Now every cursor is ``c1.<payload>.<HMAC-SHA256>`` over the route, its
path parameters, its filters and the caller, under a per-service key from Secrets Manager, and
anything else is 400 ``INVALID_CURSOR`` in the service's error shape.
"""
from __future__ import annotations

import base64
import json
import pathlib
import re
from types import SimpleNamespace

import pytest

from lambdakit import cursors
from tests.quality.conftest import (  # noqa: F401 - fixtures by name
    assert_error,
    exam_users,
    exams_jwks,
    exams_tenants,
    intern_users,
    make_key,
)

FORGED = ["eyJhIjoxfQ", base64.urlsafe_b64encode(b'{"pk":"TESTS#x","sk":"y"}').decode().rstrip("="),
          "c1.eyJhIjoxfQ.AAAA", "c1..", "c1.!!.!!", "not base64 at all %%", "x" * 3000]
ROOT = pathlib.Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- the mechanism alone
def _app(path="/api/things", query=None, route_args=None, owner="u1"):
    ev = SimpleNamespace(http_method="GET", path=path, query_string_parameters=dict(query or {}))
    return SimpleNamespace(current_event=ev, context={"_route": SimpleNamespace(path=path),
                                                      "_route_args": dict(route_args or {}), "who": owner})


def _within(app, fn, key="k" * 40):
    settings = SimpleNamespace(cursor_key=key, cursor_key_arn="")
    return cursors.middleware(lambda a: a.context["who"], lambda: settings)(app, lambda _a: fn())


KEY = {"pk": "T#1", "sk": "I#2", "gsi1pk": "X", "gsi1sk": 7}


def test_round_trip_and_binding():
    tok = _within(_app(query={"status": "a", "page": "2", "limit": "5"}), lambda: cursors.encode_cursor(KEY))
    assert tok.startswith("c1.") and "T#1" not in tok
    # page, limit and the cursor itself are not part of the binding
    assert _within(_app(query={"status": "a", "limit": "9", "cursor": tok}), lambda: cursors.decode_cursor(tok)) == KEY
    for other in (_app(query={"status": "b"}), _app(query={}), _app(query={"status": "a"}, owner="u2"),
                  _app(path="/api/others", query={"status": "a"}),
                  _app(query={"status": "a"}, route_args={"id": "1"})):
        with pytest.raises(cursors.InvalidCursor):
            _within(other, lambda: cursors.decode_cursor(tok))
    with pytest.raises(cursors.InvalidCursor):  # another key (rotation)
        _within(_app(query={"status": "a"}), lambda: cursors.decode_cursor(tok), key="other")


def test_tampered_truncated_and_forged_cursors_are_refused():
    app = _app()
    tok = _within(app, lambda: cursors.encode_cursor(KEY))
    _, payload, sig = tok.split(".")
    evil = base64.urlsafe_b64encode(json.dumps({**KEY, "pk": "T#2"}).encode()).decode().rstrip("=")
    for bad in [f"c1.{evil}.{sig}", tok[:-2], tok[:10], f"c2.{payload}.{sig}", tok + ".x", *FORGED]:
        with pytest.raises(cursors.InvalidCursor) as exc:
            _within(app, lambda b=bad: cursors.decode_cursor(b))
        assert exc.value.status == 400 and exc.value.code == "INVALID_CURSOR"


@pytest.mark.parametrize("raw", ['{"pk": "\\ud800"}', '{"pk": 1' + "0" * 40 + "}", '{"pk": true}', "[1]", "{}",
                                 '{"pk": {"S": "x"}}'])
def test_signed_payloads_dynamodb_cannot_take_back_are_refused(raw):
    """Even a correctly signed payload must hold a start key DynamoDB takes back."""
    app = _app()
    payload = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    def forge():
        b = cursors._current.get()
        sig = cursors._b64(cursors._mac(cursors._key(b), cursors.scope(b.app, b.owner), payload))
        return cursors.decode_cursor(f"c1.{payload}.{sig}")

    with pytest.raises(cursors.InvalidCursor):
        _within(app, forge)


def test_no_cursor_outside_a_request():
    with pytest.raises(RuntimeError):
        cursors.encode_cursor(KEY)


def test_a_start_key_of_another_partition_is_refused_before_dynamodb():
    from lambdakit.ddb import _check_start_key

    _check_start_key({"pk": "A", "sk": "1"}, "pk", "sk", "A")
    for bad in ({"pk": "B", "sk": "1"}, {"a": 1}, {"pk": "A"}, {"pk": "A", "sk": "1", "gsi1pk": "A"}):
        with pytest.raises(cursors.InvalidCursor):
            _check_start_key(bad, "gsi1pk" if "gsi1pk" in bad else "pk", "gsi1sk" if "gsi1pk" in bad else "sk", "A")


def test_only_lambdakit_cursors_makes_client_cursors():
    """The class lives in one place: no product module encodes a start key for a client itself,
    and the raw codec for the service's own positions is used only where allow-listed."""
    allowed_raw = {"functions/campaigns/campaigns/sending/audience.py"}
    offenders = []
    for p in sorted((ROOT / "functions").rglob("*.py")):
        rel = p.relative_to(ROOT).as_posix()
        text = p.read_text()
        if re.search(r"\b(pack_key|unpack_key)\b", text) and rel not in allowed_raw:
            offenders.append(f"{rel}: raw start-key codec")
        if re.search(r"[\"']ExclusiveStartKey[\"']", text) or re.search(r"urlsafe_b64(en|de)code\(.*(cursor|last)", text):
            offenders.append(f"{rel}: builds a cursor itself")
    assert not offenders, offenders


# ---------------------------------------------------------------- through the services
def test_exams_lists_refuse_forged_cursors(exams_tenants):  # noqa: F811
    a, b = exams_tenants
    t = a.test(question_ids=[q["id"] for q in a.questions(1)])
    ex = a.app.exams
    routes = ["/api/tests", "/api/attempts", "/api/questions", f"/api/tests/{t['id']}/guests"]
    for path in routes:
        for bad in FORGED:
            assert_error("exams", ex.get(path, query={"cursor": bad}, headers=a.ca.headers), 400)
    attempt = a.start(t)
    r = ex.get("/api/proctoring/events", query={"attempt_id": attempt["id"], "cursor": "eyJhIjoxfQ"},
               headers=a.ca.headers)
    body = assert_error("exams", r, 400)
    assert body["error"] == "INVALID_CURSOR"


def test_exams_cursor_is_bound_to_tenant_and_filters(exams_tenants):  # noqa: F811
    a, b = exams_tenants
    a.questions(3)
    b.questions(1)
    ex = a.app.exams
    r = ex.get("/api/questions", query={"limit": "1"}, headers=a.ca.headers)
    assert r.status == 200, r.text
    cur = r.json()["next_cursor"]
    assert cur and cur.startswith("c1.")
    ok = ex.get("/api/questions", query={"limit": "1", "cursor": cur}, headers=a.ca.headers)
    assert ok.status == 200, ok.text
    assert_error("exams", ex.get("/api/questions", query={"cursor": cur}, headers=b.ca.headers), 400)
    assert_error("exams", ex.get("/api/questions", query={"cursor": cur, "folder_id": "f1"}, headers=a.ca.headers), 400)


def test_campaigns_outbox_refuses_forged_cursors(campaigns_app, make_key):  # noqa: F811
    c = campaigns_app.campaigns
    h = {"Authorization": f"Bearer {make_key(role='admin')}"}
    for path in ("/email/outbox", "/contacts", "/lists", "/api/v1/email/outbox"):
        for bad in FORGED:
            body = assert_error("campaigns", c.get(path, query={"cursor": bad}, headers=h), 400)
            assert body["error"]["code"] == "INVALID_CURSOR"


def test_campaigns_cursor_is_bound_to_the_account(campaigns_app, make_key):  # noqa: F811
    c = campaigns_app.campaigns
    h = {"Authorization": f"Bearer {make_key(role='admin')}"}
    for i in range(3):
        assert c.post("/lists", json={"name": f"L{i}"}, headers=h).status in (200, 201)
    cur = c.get("/lists", query={"limit": "1"}, headers=h).json()["data"]["pagination"]["next_cursor"]
    assert cur
    assert c.get("/lists", query={"limit": "1", "cursor": cur}, headers=h).status == 200
    # the same cursor through the /api/v1 twin of the route
    assert c.get("/api/v1/lists", query={"limit": "1", "cursor": cur}, headers=h).status == 200
    other = {"Authorization": f"Bearer {make_key(role='admin', account_id='acct-cursor-other')}"}
    assert_error("campaigns", c.get("/lists", query={"cursor": cur}, headers=other), 400)


INTERN_LISTS = ["/api/admin/students", "/api/admin/users", "/api/admin/enrollments", "/api/admin/invoices",
                "/api/admin/submissions", "/api/admin/resources", "/api/admin/activity-logs", "/api/admin/leads",
                "/api/admin/certificates"]


def test_internships_admin_lists_refuse_forged_cursors(internships_app, intern_users):  # noqa: F811
    admin = intern_users.staff("super_admin")
    api = internships_app.internships
    for path in INTERN_LISTS:
        for bad in FORGED[:4]:
            r = api.get(path, query={"cursor": bad}, headers=admin.headers)
            if r.status == 404 and path.endswith(("activity-logs", "leads", "certificates")):
                pytest.fail(f"{path} is not a route: {r.text}")
            assert_error("internships", r, 400)


def test_internships_cursor_is_bound_to_the_admin(internships_app, intern_users):  # noqa: F811
    a, b = intern_users.staff("super_admin"), intern_users.staff("super_admin")
    for _ in range(3):
        intern_users.student()
    api = internships_app.internships
    r = api.get("/api/admin/users", query={"limit": "1"}, headers=a.headers)
    assert r.status == 200, r.text
    cur = r.json()["nextCursor"]
    assert cur and cur.startswith("c1.")
    assert api.get("/api/admin/users", query={"limit": "1", "cursor": cur}, headers=a.headers).status == 200
    assert_error("internships", api.get("/api/admin/users", query={"cursor": cur}, headers=b.headers), 400)
    assert_error("internships", api.get("/api/admin/users", query={"cursor": cur, "role": "student"},
                                        headers=a.headers), 400)
