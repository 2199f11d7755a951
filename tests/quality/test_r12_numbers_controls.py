"""Issue 32, items 5 and 8: numbers DynamoDB can store and no control characters, for every
field of every model (``lambdakit.model.Model``, the base of every model of the three services,
and the shared JSON parser ``lambdakit.http.safe_json_loads``).

* a 10^40 integer was a 500 on exams ``PUT /api/clients/{id}`` (limits);
* a NUL was stored in an internships profile name (``PUT /api/profile``);
* every number property of every body-taking route (nested ones included) refuses 10^40 and
  -10^40 with a 4xx in the service's error format (``fuzz/hostile.py: number_cases``).
"""
from __future__ import annotations

import pytest

from fuzz import hostile
from tests.quality.conftest import assert_error
from tests.quality.test_hostile_bodies import _document, _principals


def test_exams_client_limits_of_10_to_40_are_a_400(exams_app, exam_users):
    sa = exam_users.super_admin()
    client = exam_users.client(name="Big", plan_id="growth")
    for v in (10 ** 40, -10 ** 40):
        r = exams_app.exams.put(f"/api/clients/{client['id']}", json={"limits": {"max_students": v}},
                                headers=sa.headers)
        assert_error("exams", r, 400)
    # a float that pydantic would coerce to a 41-digit integer
    r = exams_app.exams.request("PUT", f"/api/clients/{client['id']}", body=b'{"limits": {"max_students": 1e40}}',
                                headers={**sa.headers, "content-type": "application/json"})
    assert_error("exams", r, 400)


def test_internships_profile_name_refuses_nul_and_line_breaks(internships_app, intern_users):
    st = intern_users.student()
    api = internships_app.internships
    for bad in ("Ann\u0000Lee", "Ann\nBcc: x@example.com", "Ann\tLee", "Ann\u001bLee", "Ann\u2028Lee"):
        body = assert_error("internships", api.put("/api/profile", json={"name": bad}, headers=st.headers), 400)
        assert "name" in str(body)
    me = api.get("/api/profile", headers=st.headers).json()
    assert "\u0000" not in str(me) and "Bcc" not in str(me)
    assert api.put("/api/profile", json={"name": "Ann Lee"}, headers=st.headers).status == 200


def test_multi_line_fields_keep_newlines_single_line_fields_refuse_them(campaigns_app, make_key):
    c = campaigns_app.campaigns
    h = {"Authorization": f"Bearer {make_key(role='admin')}"}
    r = c.post("/lists", json={"name": "Weekly", "description": "line one\nline two\r\n\tindented"}, headers=h)
    assert r.status == 201, r.text
    assert r.json()["data"]["description"] == "line one\nline two\r\n\tindented"
    body = assert_error("campaigns", c.post("/lists", json={"name": "Week\nly"}, headers=h), 422)
    assert "name" in body["error"]["details"]
    # control characters are refused even in multi-line fields
    assert_error("campaigns", c.post("/lists", json={"name": "W", "description": "a\u0000b"}, headers=h), 422)
    assert_error("campaigns", c.post("/lists", json={"name": "W", "description": "a\u0085b\u0007"}, headers=h), 422)


def _union_of_models(obj) -> bool:
    """A documentation-only ``RootModel`` whose root is one of several ``Model`` views (the views
    themselves carry the checks; e.g. exams ``TestOut``, issue 35)."""
    import typing

    from pydantic import RootModel

    from lambdakit.model import Model

    if not issubclass(obj, RootModel):
        return False
    ann = obj.model_fields["root"].annotation
    args = typing.get_args(ann) or (ann,)
    return all(isinstance(a, type) and issubclass(a, Model) for a in args)


def test_the_model_rules_hold_for_every_model_of_the_three_services():
    """Every pydantic model of the services derives from lambdakit.model.Model (so the checks run)."""
    import importlib
    import pkgutil

    from pydantic import BaseModel

    from lambdakit.model import Model

    strays = []
    for svc in ("campaigns", "exams", "internships"):
        pkg = importlib.import_module(svc)
        for m in pkgutil.walk_packages(pkg.__path__, f"{svc}."):
            if m.name.rsplit(".", 1)[-1] not in ("models", "schemas", "apidoc"):
                continue
            mod = importlib.import_module(m.name)
            for obj in vars(mod).values():
                if isinstance(obj, type) and issubclass(obj, BaseModel) and obj.__module__ == mod.__name__ \
                        and not issubclass(obj, Model) and not _union_of_models(obj):
                    strays.append(f"{mod.__name__}.{obj.__name__}")
    assert not strays, strays


@pytest.mark.parametrize("service", ["campaigns", "exams", "internships"])
def test_plus_minus_10_to_40_on_every_number_field_of_every_route_is_a_4xx(request, service):
    api = getattr(request.getfixturevalue(f"{service}_app"), service)
    principals = _principals(request, service)
    doc = _document(service)
    chosen: dict[str, dict] = {}
    failures, n = [], 0
    for case in hostile.number_cases(doc):
        route = case.label.split(":", 1)[0]
        if route not in chosen:
            chosen[route] = principals[0]
            for h in principals:
                if api.request(case.method, case.path, body=b"{}",
                               headers={**h, "content-type": "application/json"}).status not in (401, 403):
                    chosen[route] = h
                    break
        r = api.request(case.method, case.path, body=case.body, headers={**chosen[route], "content-type": "application/json"})
        n += 1
        if not 400 <= r.status < 500:
            failures.append(f"{case.label} -> {r.status} {r.text[:160]}")
    print(f"\n±10^40: {service}: {n} cases, {len(failures)} failures")
    assert n >= 10
    assert failures == [], "\n".join(failures[:40])
