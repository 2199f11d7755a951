"""Issue 17, items 3 and 6: values DynamoDB cannot store never reach it, and every stored
user-given URL is http(s).

Item 3: NaN, Infinity, ``1e999`` (a float overflow), numbers outside DynamoDB's range or
precision and unpaired surrogates (in keys and values) are refused by the shared request-body
parser (``lambdakit.http.safe_json_loads``) with the service's validation error, before any
handler runs; free-form objects are bounded by ``lambdakit.validated.FreeDict``.

Item 6: ``javascript:``/``data:`` and other non-http(s) URLs are refused by
``lambdakit.validated.WebUrl`` on every stored URL-like field.
"""
from __future__ import annotations

import json

import pytest

from tests.exams.delivery.delivery_helpers import mcq
from tests.internships.journey.helpers import enroll_and_pay, make_domain
from tests.quality.conftest import assert_error

SURROGATE = "\ud800"


def _raw(api, method: str, path: str, body: bytes | str, headers: dict):
    if isinstance(body, str):
        body = body.encode()
    return api.request(method, path, body=body, headers={**headers, "content-type": "application/json"})


def _dumps(obj) -> str:
    # json.dumps writes NaN/Infinity literally and escapes a lone surrogate as \ud800
    return json.dumps(obj)


# ---------------------------------------------------------------- the shared parser
@pytest.mark.parametrize("raw", [
    '{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}', '{"a": 1e999}', '{"a": -1e999}', '{"a": 1e-200}',
    '{"a": "\\ud800"}', '{"\\udfff": 1}', '{"a": ["ok", {"b": "x\\udc00"}]}',
    '{"a": 1' + "0" * 40 + '1}', '{"a": 0.1234567890123456789012345678901234567890}', '{"a": ' + "9" * 5000 + "}",
])
def test_safe_json_loads_refuses_what_dynamodb_cannot_store(raw):
    from lambdakit.errors import ValidationFailed
    from lambdakit.http import safe_json_loads

    with pytest.raises(ValidationFailed) as exc:
        safe_json_loads(raw)
    assert exc.value.status == 422 and exc.value.fields


def test_safe_json_loads_keeps_valid_numbers_and_paired_surrogates():
    from lambdakit.http import safe_json_loads

    data = safe_json_loads('{"e": "\\ud83d\\ude00", "big": 1' + "0" * 30 + ', "f": 0.1, "n": -12.5e3, "z": 0}')
    assert data == {"e": "\U0001F600", "big": 10 ** 30, "f": 0.1, "n": -12500.0, "z": 0}


def test_free_dict_bounds():
    from pydantic import BaseModel, ValidationError

    from lambdakit.validated import FreeDict

    class M(BaseModel):
        d: FreeDict = {}

    assert M(d={"a": [1, "x", None, True, {"b": 2.5}]}).d["a"][4] == {"b": 2.5}
    for bad in ({"a": {"b": {"c": {"d": {"e": 1}}}}}, {f"k{i}": i for i in range(51)}, {"k" * 101: 1},
                {"a": float("nan")}, {"a": "x" * 10_001}, {"a": list(range(101))}, {"a": object()},
                {"a": "\ud800"}, {"": 1}):
        with pytest.raises(ValidationError):
            M(d=bad)


# ---------------------------------------------------------------- the examples, per service
def test_campaigns_surrogates_and_nan_are_422(campaigns_app, make_key):
    c = campaigns_app.campaigns
    h = {"Authorization": f"Bearer {make_key(role='admin')}"}
    send = {"to": "a@example.com", "subject": "s", "html": "<p>h</p>"}
    cases = [
        ("POST", "/email/send", {**send, "metadata": {"k": SURROGATE}}),
        ("POST", "/email/send", {**send, "metadata": {"k": float("nan")}}),
        ("POST", "/email/send", {**send, "variables": {SURROGATE: "v"}}),
        ("POST", "/email/bulk", {"subject": "s", "html": "h",
                                 "recipients": [{"to": "b@example.com", "variables": {"v": SURROGATE}}]}),
        ("POST", "/contacts", {"email": "c@example.com", "custom_fields": {"k" + SURROGATE: "v"}}),
        ("POST", "/contacts", {"email": "d@example.com", "custom_fields": {"score": float("nan")}}),
        ("POST", "/contacts", {"email": "e@example.com", "first_name": float("inf")}),
    ]
    for method, path, body in cases:
        assert_error("campaigns", _raw(c, method, path, _dumps(body), h), 422)
    assert_error("campaigns", _raw(c, "POST", "/email/send", '{"to": "a@example.com", "subject": "s", "html": "h", '
                                                            '"metadata": {"n": 1e999}}', h), 422)
    listed = c.get("/contacts", headers=h).json()["data"]["contacts"]
    assert listed == []  # nothing half-written


def test_exams_non_finite_time_and_marks_are_400(exams_tenants):
    t = exams_tenants[0]
    api = t.app.exams
    q = t.question(**mcq("Q1"))
    test = t.test([q["id"]])
    st = t.students[0]
    a = t.start(test, st)
    for raw in ('{"attempt_id": "%s", "time_taken": 1e999}', '{"attempt_id": "%s", "time_taken": Infinity}',
                '{"attempt_id": "%s", "time_taken": NaN}', '{"attempt_id": "%s", "time_taken": 1e100}',
                '{"attempt_id": "%s", "time_taken": "5%s"}' % ("%s", "0" * 49), '{"attempt_id": "%s", "time_taken": -1}',
                '{"attempt_id": "%s", "time_taken": "soon"}'):
        body = assert_error("exams", _raw(api, "POST", "/api/rpc/submit-attempt", raw % a["id"], st.headers), 400)
        assert "time_taken" in json.dumps(body), body  # the refusal names the field (issue 17 item 3)
    for raw in ('{"time_taken": 1e100}', '{"time_taken": "soon"}'):
        assert_error("exams", _raw(api, "POST", f"/api/attempts/{a['id']}/submit", raw, st.headers), 400)
    r = api.post(f"/api/attempts/{a['id']}/submit", headers=st.headers)
    assert r.status == 200, r.text
    assert_error("exams", _raw(api, "PUT", f"/api/attempts/{a['id']}/grades",
                               '{"grades": [{"question_id": "%s", "marks": NaN}]}' % q["id"], t.ca.headers), 400)
    assert_error("exams", _raw(api, "POST", "/api/proctoring/events", _dumps({
        "attempt_id": a["id"], "event_type": "tab_switch", "metadata": {"k": SURROGATE}}), st.headers), 400)


def test_internships_surrogate_and_nan_filters_and_prices_are_400(internships_app, intern_users):
    api = internships_app.internships
    sa = intern_users.staff("super_admin")
    for body in ({"entity": "users", "filters": {"college": SURROGATE}},
                 {"entity": "users", "filters": {"year": float("nan")}},
                 {"entity": "users", "filters": {SURROGATE: "x"}}):
        assert_error("internships", _raw(api, "POST", "/api/admin/export", _dumps(body), sa.headers), 400)
    dom = {"name": "Data", "slug": "data-nan", "description": "d", "prices": {"1": float("nan")},
           "milestones": [{"title": "a", "description": "b"}], "is_active": True}
    assert_error("internships", _raw(api, "POST", "/api/admin/domains", _dumps(dom), sa.headers), 400)
    dom["prices"] = {"1": 1000}
    assert_error("internships", _raw(api, "POST", "/api/admin/domains",
                                     _dumps(dom).replace("1000", "1e999"), sa.headers), 400)


# ---------------------------------------------------------------- item 6: URLs
BAD_URLS = ["javascript:alert(document.cookie)", "JavaScript:alert(1)", "data:text/html,<script>1</script>",
            "vbscript:msgbox(1)", "file:///etc/passwd", "//evil.example/x", "https://", "http://exa mple.com/",
            "https://example.com/\r\nX: y", "https://user:pw@example.com/"]


def test_web_url_type():
    from pydantic import BaseModel, ValidationError

    from lambdakit.validated import WebUrl

    class M(BaseModel):
        u: WebUrl | None = None

    for good in ("https://example.com/x?y=1#z", "http://example.com", "HTTPS://EXAMPLE.COM", ""):
        assert M(u=good).u == good
    for bad in BAD_URLS:
        with pytest.raises(ValidationError):
            M(u=bad)


def test_internships_milestone_submission_url_must_be_http(internships_app, intern_users, intern_seed):
    c = internships_app.internships
    admin = intern_users.staff("admin")
    st = intern_users.student()
    domain = make_domain(c, admin)
    e = enroll_and_pay(c, st, domain, intern_seed)
    ms = c.get("/api/milestones", headers=st.headers, query={"enrollmentId": e["id"]}).json()["milestones"]
    for url in BAD_URLS:
        r = c.post(f"/api/milestones/{ms[0]['id']}/submit", headers=st.headers,
                   json={"submissionNotes": "Done, see the link", "submissionUrl": url})
        assert_error("internships", r, 400)
    r = c.post(f"/api/milestones/{ms[0]['id']}/submit", headers=st.headers,
               json={"submissionNotes": "Done, see the link", "submissionUrl": "https://github.com/me/repo"})
    assert r.status == 200, r.text


def test_internships_admin_user_urls_must_be_http(internships_app, intern_users):
    c = internships_app.internships
    sa = intern_users.staff("super_admin")
    st = intern_users.student()
    for field in ("avatar_url", "linkedin_url", "github_url"):
        for url in ("javascript:alert(1)", "data:text/html,x"):
            assert_error("internships", c.put(f"/api/admin/users/{st.id}", headers=sa.headers, json={field: url}), 400)
    r = c.put(f"/api/admin/users/{st.id}", headers=sa.headers, json={"avatar_url": "https://example.com/a.png"})
    assert r.status == 200, r.text


def test_internships_profile_and_resource_urls_must_be_http(internships_app, intern_users):
    c = internships_app.internships
    st = intern_users.student()
    for url in ("javascript:alert(1)", "data:text/html,x"):
        assert_error("internships", c.put("/api/profile", headers=st.headers, json={"linkedin_url": url}), 400)
    admin = intern_users.staff("admin")
    domain = make_domain(c, admin)
    r = c.post("/api/admin/resources", headers=admin.headers, json={
        "domain_id": domain["id"], "week": 1, "title": "T", "resource_type": "link", "url": "javascript:alert(1)"})
    assert_error("internships", r, 400)


def test_exams_logo_urls_must_be_http(exams_app, exam_users):
    sa = exam_users.super_admin()
    api = exams_app.exams
    for url in ("javascript:alert(1)", "data:image/png;base64,AAAA"):
        r = api.post("/api/clients", headers=sa.headers, json={"name": "Org", "address": "1 Road", "logo_url": url,
                                                               "plan_id": "growth"})
        assert_error("exams", r, 400)


def test_campaigns_template_preview_urls_must_be_http(campaigns_app, make_key):
    c = campaigns_app.campaigns
    h = {"Authorization": f"Bearer {make_key(role='admin')}"}
    r = c.post("/templates", headers=h, json={"name": "t", "subject": "s", "content": "<p>x</p>",
                                              "preview_url": "javascript:alert(1)"})
    assert_error("campaigns", r, 422)


def test_forged_cursors_with_unstorable_values_are_invalid():
    """Issue 32 moved client cursors to ``lambdakit.cursors`` (signed; its payload checks are in
    tests/platform/test_cursor_signing.py). The service's own start-key codec still refuses garbage."""
    import base64

    from lambdakit.ddb import unpack_key

    def forge(raw: str) -> str:
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    assert unpack_key(forge('{"pk": "A#1", "sk": 5}')) == {"pk": "A#1", "sk": 5}
    for raw in ('[1]', '{"pk": NaN', "not json"):
        with pytest.raises(ValueError):
            unpack_key(forge(raw))

