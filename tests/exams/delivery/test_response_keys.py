"""Issue 35: what each converted exams route returns, per caller, as key sets captured from the
behaviour before the response models were enforced (run on main first). A response that loses or
gains a field fails here; a new field is added to the expected sets on purpose (``instructions``)."""
from __future__ import annotations

import json
import os

from tests.exams.delivery.delivery_helpers import mcq

FULL = {"description": "About", "shuffle": 1, "shuffle_options": 1, "allow_review": 0, "negative_marking": 1,
        "negative_marks_ratio": 0.5, "folder_id": "f1", "allow_guests": True, "show_results_after_submission": True,
        "scheduled_start": "2020-01-01T00:00:00Z", "scheduled_end": "2099-01-01T00:00:00Z",
        "timezone": "Asia/Kolkata", "attempts_allowed": 3, "camera_required": False, "passing_percentage": 40,
        "instructions": "Read every question.\nNo calculators."}


def _keys(body: dict) -> list[str]:
    return sorted(body)


def observe(tenant) -> dict[str, list[str]]:
    app, ca, st = tenant.app, tenant.ca, tenant.students[0]
    sa = tenant.users.super_admin()
    qs = [tenant.question(**mcq(f"Q{i}")) for i in range(2)]
    seen: dict[str, list[str]] = {}

    def call(name, method, path, who=None, status=200, **kw):
        r = getattr(app.exams, method)(path, headers=who.headers if who else None, **kw)
        assert r.status == status, (name, r.status, r.text)
        data = r.json()["data"]
        if isinstance(data, list):
            seen[f"{name}.envelope"] = _keys(r.json())
            data = data[0]
        seen[name] = _keys(data)
        return data

    t = call("create.full", "post", "/api/tests", ca, 201,
             json={"test_name": "Full", "timer": 30, "question_ids": [q["id"] for q in qs], **FULL})
    call("create.minimal", "post", "/api/tests", ca, 201, json={"test_name": "Min", "timer": 30})
    call("create.sections", "post", "/api/tests", ca, 201, json={
        "test_name": "Sec", "timer": 30, "sections": [{"title": "A", "question_ids": [qs[0]["id"]]}]})
    call("get.ca.draft", "get", f"/api/tests/{t['id']}", ca)
    call("update.ca", "put", f"/api/tests/{t['id']}", ca, json={"description": "Changed"})
    t = call("publish.ca", "post", f"/api/tests/{t['id']}/publish", ca)
    call("get.ca.published", "get", f"/api/tests/{t['id']}", ca)
    call("get.sa", "get", f"/api/tests/{t['id']}", sa)
    call("list.ca", "get", "/api/tests", ca, query={"status": "published"})
    call("get.student", "get", f"/api/tests/{t['id']}", st)
    call("list.student", "get", "/api/tests", st)
    call("share.lookup", "get", "/api/tests", None, query={"share_code": t["share_code"]})
    call("clone.ca", "post", "/api/rpc/clone-test", ca, 201, json={"test_id": t["id"]})
    a = call("attempt.start.student", "post", "/api/attempts", st, 201, json={"test_id": t["id"]})
    call("attempt.detail.student", "get", f"/api/attempts/{a['id']}", st)
    g = call("attempt.start.guest", "post", "/api/attempts", None, 201,
             json={"share_code": t["share_code"], "guest_name": "G"})
    call("attempt.detail.guest", "get", f"/api/attempts/{g['id']}", None,
         query={"attempt_token": g["attempt_token"]})
    call("attempt.detail.ca", "get", f"/api/attempts/{a['id']}", ca)
    return seen


def test_converted_routes_return_the_captured_keys(tenant):
    seen = observe(tenant)
    if os.environ.get("SNAPSHOT_PRINT"):
        print(json.dumps(seen, indent=1, sort_keys=True))
    expected = json.loads(open(os.path.join(os.path.dirname(__file__), "response_keys.json")).read())
    for name, keys in expected.items():
        assert seen.get(name) == keys, (name, sorted(set(seen.get(name) or []) ^ set(keys)))
    assert set(seen) == set(expected)
