"""A client's ``notes`` (issue 35's exercise, round 13: a field added by the "Adding a field"
checklist of docs/exams-architecture.md): the super admin's plain text about a tenant, several
lines, bounded by ``clients.views.MAX_CLIENT_NOTES``; given on create and update, shown on every
client answer, checked against the committed OpenAPI with jsonschema."""
from __future__ import annotations

from tests.exams.delivery.test_response_models import conforms

NOTES = "Invoice by PO.\nRenewal call in March."


def test_notes_are_kept_shown_and_bounded(exams_app, exam_users):
    from exams.clients.views import MAX_CLIENT_NOTES

    sa = exam_users.super_admin()
    api = exams_app.exams
    created = conforms(api.post("/api/clients", json={"name": "Gamma", "notes": NOTES}, headers=sa.headers),
                       "POST", "/api/clients", 201)
    assert created["notes"] == NOTES
    listed = conforms(api.get("/api/clients", headers=sa.headers, query={"limit": "100"}), "GET", "/api/clients")
    assert {c["id"]: c["notes"] for c in listed}[created["id"]] == NOTES
    path = "/api/clients/{clientId}"
    kept = conforms(api.put(f"/api/clients/{created['id']}", json={"name": "Gamma Ltd"}, headers=sa.headers),
                    "PUT", path)
    assert kept["notes"] == NOTES  # omitted: unchanged
    changed = conforms(api.put(f"/api/clients/{created['id']}", json={"notes": "x" * MAX_CLIENT_NOTES},
                               headers=sa.headers), "PUT", path)
    assert changed["notes"] == "x" * MAX_CLIENT_NOTES
    r = api.put(f"/api/clients/{created['id']}", json={"notes": "x" * (MAX_CLIENT_NOTES + 1)}, headers=sa.headers)
    assert r.status == 400 and r.json()["error"] == "VALIDATION_ERROR"
    assert [d["field"] for d in r.json()["details"]] == ["notes"]
    plain = conforms(api.post("/api/clients", json={"name": "Delta"}, headers=sa.headers), "POST", "/api/clients", 201)
    assert plain["notes"] is None
