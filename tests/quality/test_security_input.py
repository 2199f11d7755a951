"""Hostile bodies on representative routes of every service: oversized, invalid UTF-8, deep
JSON nesting, malformed multipart. Each gets a clean 4xx (400/413/415/422) in the service's
error format; nothing reaches a 5xx."""
from __future__ import annotations

import pytest

from tests.quality.conftest import assert_error

BAD = (400, 413, 415, 422)
BOUNDARY = "----qualityboundary"


@pytest.fixture(params=["campaigns", "exams", "internships"])
def target(request):
    svc = request.param
    if svc == "campaigns":
        app = request.getfixturevalue("campaigns_app")
        key = request.getfixturevalue("make_key")(role="admin")
        return svc, app.campaigns, ("POST", "/contacts"), ("POST", "/contacts/import"), {
            "Authorization": f"Bearer {key}"}
    if svc == "exams":
        users = request.getfixturevalue("exam_users")
        client = users.client(name="Inputs", plan_id="enterprise")
        ca = users.client_admin(client["id"])
        return svc, users.app.exams, ("POST", "/api/tests"), ("POST", "/api/questions/import"), ca.headers
    users = request.getfixturevalue("intern_users")
    st = users.student()
    return svc, users.app.internships, ("PUT", "/api/profile"), ("POST", "/api/profile/avatar"), st.headers


def _json(api, route, headers, body: bytes):
    return api.request(route[0], route[1], body=body, headers={**headers, "content-type": "application/json"})


def test_invalid_utf8_json(target):
    svc, api, route, _, h = target
    assert_error(svc, _json(api, route, h, b'{"name": "\xff\xfe\xfd", "email": "\xc3("}'), *BAD)


def test_deeply_nested_json(target):
    svc, api, route, _, h = target
    deep = b'{"a":' * 5000 + b"1" + b"}" * 5000
    assert_error(svc, _json(api, route, h, deep), *BAD)
    arrays = b"[" * 100_000 + b"]" * 100_000
    assert_error(svc, _json(api, route, h, arrays), *BAD)


def test_oversized_json_body(target):
    svc, api, route, _, h = target
    big = b'{"name": "' + b"x" * (5 * 1024 * 1024) + b'"}'  # the largest JSON that reaches a function (6 MB event)
    assert_error(svc, _json(api, route, h, big), *BAD)


def test_non_object_and_truncated_json(target):
    svc, api, route, _, h = target
    for body in (b"[1, 2, 3]", b'"text"', b"null", b'{"name": ', b"\x00\x01\x02"):
        assert_error(svc, _json(api, route, h, body), *BAD)


def test_malformed_multipart(target):
    svc, api, _, route, h = target
    good_head = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n"
                 "Content-Type: text/csv\r\n\r\n").encode()
    cases = [
        # no boundary parameter
        ("multipart/form-data", good_head + b"email\r\na@example.com\r\n" + f"--{BOUNDARY}--\r\n".encode()),
        # boundary never closed (truncated upload)
        (f"multipart/form-data; boundary={BOUNDARY}", good_head + b"email\r\na@exam"),
        # garbage instead of parts
        (f"multipart/form-data; boundary={BOUNDARY}", b"\xff\xfe not multipart at all \x00"),
        # part without Content-Disposition
        (f"multipart/form-data; boundary={BOUNDARY}",
         f"--{BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nx\r\n--{BOUNDARY}--\r\n".encode()),
        # empty body
        (f"multipart/form-data; boundary={BOUNDARY}", b""),
    ]
    for ctype, body in cases:
        r = api.request(route[0], route[1], body=body, headers={**h, "content-type": ctype})
        assert_error(svc, r, *BAD)


def test_oversized_multipart(target):
    svc, api, _, route, h = target
    body = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.csv\"\r\n"
            "Content-Type: text/csv\r\n\r\n").encode() + b"email\r\n" + b"a" * 4_600_000 + \
        f"\r\n--{BOUNDARY}--\r\n".encode()
    r = api.request(route[0], route[1], body=body, headers={**h, "content-type": f"multipart/form-data; boundary={BOUNDARY}"})
    assert_error(svc, r, *BAD)
