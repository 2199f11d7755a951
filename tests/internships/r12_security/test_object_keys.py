"""Issue 32 item 4: a client-named object key (``file_key`` of admin resources) cannot climb out of
its prefix nor name an object the caller was not issued. One validator: lambdakit.objectkeys."""
from __future__ import annotations

import pytest

from tests.internships.journey.helpers import make_domain

SIGN = {"filename": "slides.pdf", "content_type": "application/pdf", "resource_type": "document"}


@pytest.fixture
def setup(internships_app, intern_users):
    c = internships_app.internships
    admin = intern_users.staff("admin")
    domain = make_domain(c, admin)
    return c, admin, domain


def _create(c, admin, domain, key):
    return c.post("/api/admin/resources", json={"domain_id": domain["id"], "week": 1, "title": "R",
                                                "resource_type": "document", "file_key": key}, headers=admin.headers)


@pytest.mark.parametrize("key", [
    "resources/../avatars/u1/v1.png", "resources/%2e%2e/x.pdf", "resources/%2E%2E/x.pdf", "resources/a%2fb.pdf",
    "resources/./x.pdf", "resources//x.pdf", "resources/..", "resources/a\\..\\x.pdf", "resources/a\x00.pdf",
    "resources/a\n.pdf", "resources/a\u202e.pdf", "avatars/u1/v1.png", "Resources/x.pdf", "/resources/x.pdf",
])
def test_hostile_keys_are_400_and_store_nothing(setup, key):
    c, admin, domain = setup
    r = _create(c, admin, domain, key)
    assert r.status == 400, (key, r.status, r.text)
    listed = c.get("/api/admin/resources", query={"domain_id": domain["id"]}, headers=admin.headers).json()
    assert listed["total"] == 0


def test_a_well_formed_key_must_have_been_issued_to_the_caller(setup, intern_users):
    c, admin, domain = setup
    # a plausible key nobody issued
    assert _create(c, admin, domain, "resources/2026/01/abc/guide.pdf").status == 400
    # a key issued to another admin
    other = intern_users.staff("admin")
    theirs = c.post("/api/admin/resources/sign", json=SIGN, headers=other.headers).json()["file_key"]
    assert _create(c, admin, domain, theirs).status == 400
    # the caller's own issued key (sign route) works, and the resource keeps it on later updates
    mine = c.post("/api/admin/resources/sign", json=SIGN, headers=admin.headers).json()["file_key"]
    r = _create(c, admin, domain, mine)
    assert r.status == 201, r.text
    rid = r.json()["resource"]["id"]
    assert c.put(f"/api/admin/resources/{rid}", json={"file_key": mine, "title": "R2"},
                 headers=admin.headers).status == 200
    # switching an existing resource to a hostile or foreign key is refused too
    for key in ("resources/../avatars/u/v.png", theirs):
        r = c.put(f"/api/admin/resources/{rid}", json={"file_key": key}, headers=admin.headers)
        assert r.status == 400, r.text
    assert c.get(f"/api/admin/resources/{rid}", headers=admin.headers).json()["resource"]["file_key"] == mine


def test_validator_unit_rules():
    from lambdakit import objectkeys
    from lambdakit.errors import ValidationFailed

    assert objectkeys.check_shape("resources/2026/01/x/a.pdf", prefix="resources/") == "resources/2026/01/x/a.pdf"
    for bad in ("resources/..%2fx", "resources/a/../b", "resources/\x7f", "resources/" + "a" * 1100, 5, ""):
        with pytest.raises(ValidationFailed):
            objectkeys.check_shape(bad, prefix="resources/")
