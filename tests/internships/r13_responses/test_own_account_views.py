"""Issue 35: the signed-in user's own account (``/api/auth/me``, ``/api/profile``) and the public
issuer profile are dumped through their models. What is stored but not declared (the password hash,
the token version, counters, the avatar's S3 object key) never leaves; every profile field a student
sets does. Each answer is checked against the committed OpenAPI document with jsonschema."""
from __future__ import annotations

import json
from pathlib import Path

DOC = json.loads((Path(__file__).resolve().parents[3] / "docs" / "openapi" / "internships.json").read_text())
BOUNDARY = "r13boundary"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
STORED_NEVER_SHOWN = ("password_hash", "token_version", "open_enrollments", "invoice_count", "avatar_key",
                      "pk", "sk", "gsi1pk", "gsi1sk")


def conforms(body: dict, schema_name: str) -> None:
    import jsonschema

    jsonschema.Draft202012Validator({**DOC, "$ref": f"#/components/schemas/{schema_name}"}).validate(body)
    declared = set(DOC["components"]["schemas"][schema_name]["properties"])
    assert set(body) <= declared, sorted(set(body) - declared)


def test_own_account_shows_profile_fields_and_no_storage_internals(internships_app, intern_users):
    from internships.accounts import repository

    c = internships_app.internships
    st = intern_users.student()
    r = c.put("/api/profile", headers=st.headers, json={
        "college": "IIT Test", "graduation_year": 2027, "linkedin_url": "https://www.linkedin.com/in/test",
        "country": "India"})
    assert r.status == 200, r.text
    body = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n"
            f"Content-Type: image/png\r\n\r\n").encode() + PNG + f"\r\n--{BOUNDARY}--\r\n".encode()
    r = c.post("/api/profile/avatar", body=body,
               headers={**st.headers, "content-type": f"multipart/form-data; boundary={BOUNDARY}"})
    assert r.status == 200, r.text
    stored = repository.get_user(st.id, consistent=True)
    assert stored["avatar_key"] and stored["password_hash"]  # they exist, they are just not shown

    profile = c.get("/api/profile", headers=st.headers).json()["profile"]
    me = c.get("/api/auth/me", headers=st.headers).json()["user"]
    for view in (profile, me):
        conforms(view, "PublicUser")
        assert view["college"] == "IIT Test" and view["graduation_year"] == 2027 and view["country"] == "India"
        assert view["linkedin_url"] == "https://www.linkedin.com/in/test"
        assert view["avatar_url"] == r.json()["avatarUrl"] and view["has_password"] is True
        for key in STORED_NEVER_SHOWN:
            assert key not in view, key
        assert "degree" not in view  # never set: absent, not null


def test_issuer_profile_goes_through_its_model(internships_app):
    r = internships_app.internships.get("/api/credentials/issuer")
    assert r.status == 200 and r.headers.get("cache-control") == "public, max-age=300"
    prof = r.json()
    conforms(prof, "IssuerProfile")
    assert prof["@context"][0] == "https://www.w3.org/ns/credentials/v2" and prof["type"] == ["Profile"]
