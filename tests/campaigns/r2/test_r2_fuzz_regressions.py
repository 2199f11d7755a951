"""Regressions for what the round-2 fuzzing of the campaigns API found."""
from __future__ import annotations


def test_a_key_cannot_revoke_itself(camp, make_key):
    """Fuzzing reused the key_id from GET /api in DELETE /api-keys/{key_id} and locked itself out.
    A key is revoked by another Admin key; revoking itself answers 409 and changes nothing."""
    me = camp.get("/api").json()["data"]["key_id"]
    r = camp.delete(f"/api-keys/{me}")
    assert r.status == 409 and r.json()["error"]["code"] == "CONFLICT"
    assert camp.get("/api").status == 200
    other = make_key(role="admin", name="second admin")
    r = camp.delete(f"/api-keys/{me}", headers={"Authorization": f"Bearer {other}"})
    assert r.status == 200 and r.json()["data"]["status"] == "revoked"
    assert camp.get("/api").status == 401


def test_import_job_body_types_are_validated(camp):
    """Fuzzing sent {"update_existing": [], "list_id": null, ...}: a 500 (AttributeError) before."""
    for body in ({"update_existing": []}, {"list_id": 5}, {"tags": {"a": 1}}, {"tags": [1]}, {"unknown": 1},
                 {"update_existing": "maybe"}):
        r = camp.post("/contacts/imports", json=body)
        assert r.status == 422 and r.json()["error"]["code"] == "VALIDATION_ERROR", (body, r.text)
    r = camp.post("/contacts/imports", json={"tags": ["a", "b"], "update_existing": "true"})
    assert r.status == 202 and r.json()["data"]["tags"] == ["a", "b"] and r.json()["data"]["update_existing"] is True
    r = camp.post("/contacts/imports", json={"tags": "x, y"})
    assert r.status == 202 and r.json()["data"]["tags"] == ["x", "y"]
