"""Issue 35, the measured field: a domain's optional ``faq_url`` (an https URL bounded by
``catalog.models.FAQ_URL_MAX_LENGTH``) set by admins on create/update and shown on the public
domain list and detail. Every answer is checked against the committed OpenAPI document with
jsonschema (the tool a client generator relies on): what a route documents is what it returns."""
from __future__ import annotations

import json
from pathlib import Path

from tests.internships.journey.helpers import make_domain

DOC = json.loads((Path(__file__).resolve().parents[3] / "docs" / "openapi" / "internships.json").read_text())
FAQ = "https://help.example.org/web-development/faq"


def conforms(body: dict, schema_name: str) -> None:
    import jsonschema

    jsonschema.Draft202012Validator({**DOC, "$ref": f"#/components/schemas/{schema_name}"}).validate(body)
    declared = set(DOC["components"]["schemas"][schema_name]["properties"])
    assert set(body) <= declared, sorted(set(body) - declared)  # nothing undocumented leaves


def test_faq_url_set_by_admins_shown_publicly_and_cleared(internships_app, intern_users):
    c = internships_app.internships
    admin = intern_users.staff("admin")
    d = make_domain(c, admin, slug="faq-track", faq_url=FAQ)
    assert d["faq_url"] == FAQ
    conforms(d, "AdminDomain")
    for storage_key in ("pk", "sk", "gsi1pk", "gsi1sk"):
        assert storage_key not in d

    one = c.get("/api/domains/faq-track").json()["domain"]
    assert one["faq_url"] == FAQ
    conforms(one, "PublicDomain")
    assert "enrollment_count" not in one  # the admin's fields stay with the admin's view
    [listed] = [x for x in c.get("/api/domains").json()["domains"] if x["slug"] == "faq-track"]
    assert listed["faq_url"] == FAQ
    conforms(listed, "PublicDomain")

    other = FAQ + "?v=2"
    r = c.put(f"/api/admin/domains/{d['id']}", headers=admin.headers, json={"faq_url": other})
    assert r.status == 200 and r.json()["domain"]["faq_url"] == other, r.text
    assert c.get(f"/api/admin/domains/{d['id']}", headers=admin.headers).json()["domain"]["faq_url"] == other
    assert c.get("/api/domains/faq-track").json()["domain"]["faq_url"] == other

    r = c.put(f"/api/admin/domains/{d['id']}", headers=admin.headers, json={"faq_url": ""})
    assert r.status == 200 and "faq_url" not in r.json()["domain"], r.text  # "" removes it
    assert "faq_url" not in c.get("/api/domains/faq-track").json()["domain"]

    plain = make_domain(c, admin, slug="no-faq")
    assert "faq_url" not in plain  # never set: absent, not null
    assert "faq_url" not in c.get("/api/domains/no-faq").json()["domain"]


def test_faq_url_is_an_https_url_bounded_by_the_model(internships_app, intern_users):
    from internships.catalog.models import FAQ_URL_MAX_LENGTH

    c = internships_app.internships
    admin = intern_users.staff("admin")
    body = {"name": "FAQ bounds", "prices": {"1": 100}}
    base = "https://help.example.org/"
    for bad in ("http://help.example.org/faq", "ftp://help.example.org/faq", "not a url",
                base + "x" * (FAQ_URL_MAX_LENGTH - len(base) + 1)):
        r = c.post("/api/admin/domains", headers=admin.headers, json={**body, "faq_url": bad})
        assert r.status == 400 and set(r.json()) == {"error"} and "faq_url" in r.json()["error"], (bad, r.text)
    longest = base + "x" * (FAQ_URL_MAX_LENGTH - len(base))
    r = c.post("/api/admin/domains", headers=admin.headers, json={**body, "faq_url": longest})
    assert r.status == 201 and r.json()["domain"]["faq_url"] == longest, r.text
    d = r.json()["domain"]
    r = c.put(f"/api/admin/domains/{d['id']}", headers=admin.headers, json={"faq_url": "http://plain.example.org/"})
    assert r.status == 400 and "faq_url" in r.json()["error"]

    field = DOC["components"]["schemas"]["PublicDomain"]["properties"]["faq_url"]
    [s] = [s for s in field["anyOf"] if s.get("type") == "string"]
    assert s["maxLength"] == FAQ_URL_MAX_LENGTH and str(FAQ_URL_MAX_LENGTH) in s["description"]
    assert s["pattern"].startswith("^(https://")  # a generated client refuses http too
