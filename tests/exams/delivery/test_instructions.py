"""Issue 35: a test's ``instructions`` (plain text, several lines, bounded by
``papers.models.MAX_INSTRUCTIONS``) end to end, and every converted answer checked against the
committed OpenAPI document with jsonschema (the tool a client generator relies on): what a view
documents is what it returns, and nothing else."""
from __future__ import annotations

import json
from pathlib import Path

from tests.exams.delivery.delivery_helpers import mcq

DOC = json.loads((Path(__file__).resolve().parents[3] / "docs" / "openapi" / "exams.json").read_text())
TEXT = "Read every question.\nNo calculators.\n\tGood luck."


def conforms(body: dict, schema_name: str, *, every_field: bool) -> None:
    import jsonschema

    jsonschema.Draft202012Validator({**DOC, "$ref": f"#/components/schemas/{schema_name}"}).validate(body)
    declared = set(DOC["components"]["schemas"][schema_name]["properties"])
    assert set(body) <= declared, sorted(set(body) - declared)  # nothing undocumented leaves
    if every_field:
        assert set(body) == declared, sorted(declared - set(body))  # a taker's view: every field, null if unset


def test_instructions_reach_every_caller_and_only_documented_keys_leave(tenant):
    app, ca, st = tenant.app, tenant.ca, tenant.students[0]
    q = tenant.question(**mcq("Q"))
    t = tenant.test([q["id"]], instructions=TEXT, allow_guests=True)
    assert t["instructions"] == TEXT
    conforms(t, "TestAdminView", every_field=False)
    for field in ("version", "created_by", "billing_source"):  # stored, never shown
        assert field not in t

    got = app.exams.get(f"/api/tests/{t['id']}", headers=st.headers).json()["data"]
    assert got["instructions"] == TEXT and "question_ids" not in got
    conforms(got, "TestStudentView", every_field=True)
    [shared] = app.exams.get("/api/tests", query={"share_code": t["share_code"]}).json()["data"]
    assert shared["instructions"] == TEXT
    conforms(shared, "TestShareView", every_field=True)

    a = tenant.start(t)
    assert a["instructions"] == TEXT and a["test_name"] == t["test_name"]
    conforms(a, "AttemptStartView", every_field=False)
    detail = app.exams.get(f"/api/attempts/{a['id']}", headers=st.headers).json()["data"]
    assert detail["instructions"] == TEXT
    conforms(detail, "AttemptDetailView", every_field=False)
    assert isinstance(detail["risk_score"], int)  # whole numbers stay integers, as the envelope writes them

    r = app.exams.post("/api/rpc/clone-test", json={"test_id": t["id"]}, headers=ca.headers)
    assert r.status == 201 and r.json()["data"]["instructions"] == TEXT  # every settable field is copied

    plain = tenant.test([q["id"]])
    assert "instructions" not in plain  # an admin's view: a field never set stays absent
    seen = app.exams.get(f"/api/tests/{plain['id']}", headers=st.headers).json()["data"]
    assert seen["instructions"] is None


def test_instructions_bound_comes_from_the_model(tenant):
    from exams.papers.models import MAX_INSTRUCTIONS

    q = tenant.question(**mcq("Q"))
    body = {"test_name": "Long", "timer": 30, "question_ids": [q["id"]]}
    r = tenant.app.exams.post("/api/tests", json={**body, "instructions": "x" * (MAX_INSTRUCTIONS + 1)},
                              headers=tenant.ca.headers)
    assert r.status == 400 and r.json()["error"] == "VALIDATION_ERROR", r.text
    r = tenant.app.exams.post("/api/tests", json={**body, "instructions": "x" * MAX_INSTRUCTIONS},
                              headers=tenant.ca.headers)
    assert r.status == 201, r.text
    fields = DOC["components"]["schemas"]["TestFields"]["properties"]["instructions"]
    limit = next(s["maxLength"] for s in fields["anyOf"] if s.get("type") == "string")
    assert limit == MAX_INSTRUCTIONS and str(MAX_INSTRUCTIONS) in fields["description"]
