"""Issue 35, admin routes: every answer is its documented model and nothing else, checked against
the committed OpenAPI document with jsonschema (the tool a client generator relies on), and the
storage attributes a stored item carries (keys, index keys, secrets, the templates' version
counter) never leave."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

DOC = json.loads((Path(__file__).resolve().parents[3] / "docs" / "openapi" / "internships.json").read_text())
STORAGE = {"pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "gsi3pk", "gsi3sk", "ttl", "password_hash",
           "google_sub", "search_text"}


def answer_schema(method: str, path: str, status: int) -> dict:
    return DOC["paths"][path][method]["responses"][str(status)]["content"]["application/json"]["schema"]


def conforms(body: dict, method: str, path: str, status: int = 200) -> None:
    """Valid against the route's documented answer, and every object in it declares each key it has."""
    import jsonschema

    schema = answer_schema(method, path, status)
    jsonschema.Draft202012Validator({**DOC, **schema}).validate(body)
    _only_declared(body, schema, path)


def _resolve(s: dict) -> list[dict]:
    while "$ref" in s:
        s = DOC["components"]["schemas"][s["$ref"].rsplit("/", 1)[1]]
    out = [s]
    for k in ("anyOf", "oneOf", "allOf"):
        for sub in s.get(k) or ():
            out.extend(_resolve(sub))
    return out


def _only_declared(value, schema: dict, where: str) -> None:
    """Every key of every object is declared by the schema (one branch of a union must declare all)."""
    branches = _resolve(schema)
    if isinstance(value, dict):
        objects = [b for b in branches if b.get("properties") or isinstance(b.get("additionalProperties"), dict)]
        problems = []
        for b in objects or [{}]:
            try:
                for k, v in value.items():
                    assert k not in STORAGE, f"{where}.{k}: a storage attribute left the service"
                    sub = (b.get("properties") or {}).get(k) or b.get("additionalProperties")
                    assert isinstance(sub, dict), f"{where}.{k} is not documented"
                    _only_declared(v, sub, f"{where}.{k}")
                return
            except AssertionError as exc:
                problems.append(str(exc))
        raise AssertionError("; ".join(problems))
    if isinstance(value, list):
        items = [b["items"] for b in branches if isinstance(b.get("items"), dict)]
        for x in value:
            if items:
                _only_declared(x, items[0], where + "[]")


def test_the_checker_refuses_an_undeclared_key():
    body = {"success": True, "user": {"id": "u", "email": "a@example.com", "role": "student", "pk": "USER#u"}}
    with pytest.raises(AssertionError):
        conforms(body, "get", "/api/admin/users/{id}")


def test_people_answers_are_their_models(api, sa, intern_users, seed):
    st = intern_users.student(college="IIT", degree="B.Tech", year_of_study=3)
    r = api.get(f"/api/admin/users/{st.id}", headers=sa.headers)
    assert r.status == 200
    user = r.json()["user"]
    assert user["degree"] == "B.Tech" and user["year_of_study"] == 3  # the whole profile, not a sample
    conforms(r.json(), "get", "/api/admin/users/{id}")

    page = api.get("/api/admin/users", headers=sa.headers, query={"limit": "1"}).json()
    assert page["success"] is True and page["nextCursor"]  # the list's envelope beside the list
    conforms(page, "get", "/api/admin/users")

    brief = api.get("/api/admin/users-list", headers=sa.headers).json()
    assert all(set(u) == {"id", "name", "email", "role"} for u in brief["users"])  # nothing else, nothing null-dropped
    conforms(brief, "get", "/api/admin/users-list")

    students = api.get("/api/admin/students", headers=sa.headers).json()
    [row] = [s for s in students["students"] if s["id"] == st.id]
    assert row["college"] == "IIT" and row["avatar_url"] is None and "degree" not in row
    conforms(students, "get", "/api/admin/students")

    lead = seed.lead(name="Ravi", email="ravi.lead@example.com")
    r = api.post(f"/api/admin/leads/{lead['id']}/convert", headers=sa.headers, json={})
    assert r.status == 201
    assert set(r.json()["user"]) == {"id", "name", "email", "role", "phone"}
    conforms(r.json(), "post", "/api/admin/leads/{id}/convert", 201)


def test_learning_answers_are_their_models(api, sa, intern_users, seed):
    st = intern_users.student()
    d = seed.domain()
    e = seed.enrollment(st, d, submitted_at="2025-03-03T00:00:00.000Z", submission_email="k@example.com")
    seed.milestone(e, 1, status="submitted")

    r = api.post("/api/admin/certificate-templates", headers=sa.headers, json={"name": "Classic", "is_active": True})
    assert r.status == 201 and "version" not in r.json()["template"]
    conforms(r.json(), "post", "/api/admin/certificate-templates", 201)
    lst = api.get("/api/admin/certificate-templates", headers=sa.headers).json()
    assert lst["activeTemplateId"] == r.json()["template"]["id"] and lst["nextCursor"] is None
    assert all("version" not in t for t in lst["templates"])
    conforms(lst, "get", "/api/admin/certificate-templates")

    q = api.get("/api/admin/submissions/milestones", headers=sa.headers).json()
    assert q["pendingCount"] == 1 and q["counts"]["submitted"] == 1
    assert q["milestones"][0]["student_email"] == st.email
    conforms(q, "get", "/api/admin/submissions/milestones")

    subs = api.get("/api/admin/submissions", headers=sa.headers).json()
    assert [s["enrollmentId"] for s in subs["submissions"]] == [e["id"]]
    conforms(subs, "get", "/api/admin/submissions")

    detail = api.get(f"/api/admin/enrollments/{e['id']}", headers=sa.headers).json()
    assert detail["enrollment"]["progress"] == {"total": 1, "reviewed": 0, "submitted": 1}
    assert "student_email" not in detail["enrollment"]["milestones"][0]  # the queue's copy, not the enrollment's
    conforms(detail, "get", "/api/admin/enrollments/{id}")

    for path in ("/api/admin/enrollments", "/api/admin/certificates", "/api/admin/invoices"):
        page = api.get(path, headers=sa.headers).json()
        conforms(page, "get", path)


def test_insights_and_engagement_answers_are_their_models(api, sa):
    for kind in ("platform", "domains"):
        r = api.get("/api/admin/analytics", headers=sa.headers, query={"type": kind})
        assert r.status == 200
        conforms(r.json(), "get", "/api/admin/analytics")
    assert "users" in api.get("/api/admin/analytics", headers=sa.headers).json()["data"]
    for path in ("/api/admin/analytics/engagement", "/api/admin/analytics/conversion", "/api/admin/settings",
                 "/api/admin/email-stats", "/api/admin/email-queue", "/api/admin/jobs", "/api/admin/roles"):
        r = api.get(path, headers=sa.headers)
        assert r.status == 200, path
        conforms(r.json(), "get", path)
    assert "sources" in api.get("/api/admin/jobs", headers=sa.headers).json()
