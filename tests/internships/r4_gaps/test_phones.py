"""Issue #19 item 2, "a rule that holds for one route must hold for every route of its kind": every phone
the service stores goes through the one rule of the public leads (``internships.accounts.phones``):
E.164 through libphonenumber, India when there is no country code, 400 naming ``phone`` when invalid;
empty/absent where the field is optional."""
from __future__ import annotations

import itertools

import pytest

E164 = "+919876543210"
#: accepted by the old regex (``^\+?[0-9][0-9 ()-]{5,19}$``) or by no rule at all, not callable numbers
BAD = ["+91 12345", "12345678", "+1 555 123 4567", "call me", "98765-4321x"]
_ip = itertools.count(1)


def _invalid(r) -> None:
    assert r.status == 400, r.text
    assert r.json() == {"error": "phone: must be a valid phone number"}, r.text


@pytest.fixture
def sa(intern_users):
    return intern_users.staff("super_admin").headers


def _user(email: str) -> dict | None:
    from internships.accounts import repository

    uid = repository.user_id_for_email(email)
    return repository.get_user(uid, consistent=True) if uid else None


# ---------------------------------------------------------------- registration and profile
def test_register_stores_e164_and_refuses_an_invalid_number(gaps):
    c = gaps.internships
    body = {"name": "Asha", "email": "asha.phone@example.com", "password": "Secur3pass"}
    for i, bad in enumerate(BAD):
        _invalid(c.post("/api/auth/register", json={**body, "phone": bad}, source_ip=f"10.70.0.{i}"))
    assert _user(body["email"]) is None
    r = c.post("/api/auth/register", json={**body, "phone": "098765 43210"}, source_ip="10.70.1.1")
    assert r.status == 200, r.text
    assert _user(body["email"])["phone"] == E164


def test_profile_phone_is_normalised_and_validated(gaps, intern_users):
    c = gaps.internships
    s = intern_users.student()
    r = c.put("/api/profile", headers=s.headers, json={"phone": "98765-43210"})
    assert r.status == 200 and r.json()["profile"]["phone"] == E164, r.text
    for bad in BAD:
        _invalid(c.put("/api/profile", headers=s.headers, json={"phone": bad}))
    for empty in (None, "", "  "):  # a student's phone is required: it cannot be cleared
        r = c.put("/api/profile", headers=s.headers, json={"phone": empty})
        assert r.status == 400 and r.json()["error"].startswith("phone"), r.text
    assert c.get("/api/profile", headers=s.headers).json()["profile"]["phone"] == E164


def test_accounts_created_in_code_store_e164(gaps, intern_users):
    """``accounts.service.create_user`` (every creator: register, staff, lead convert, seed) normalises too."""
    s = intern_users.student(phone="+91 98765 43210")
    assert _user(s.email)["phone"] == E164


# ---------------------------------------------------------------- staff routes
def test_admin_user_create_phone(gaps, sa):
    c = gaps.internships
    base = {"password": "Passw0rd!x", "name": "Rita", "role": "reviewer"}
    r = c.post("/api/admin/users", headers=sa, json={**base, "email": "rita1@example.com", "phone": "98765 43210"})
    assert r.status == 201 and r.json()["user"]["phone"] == E164, r.text
    for i, bad in enumerate(BAD):
        _invalid(c.post("/api/admin/users", headers=sa, json={**base, "email": f"bad{i}@example.com", "phone": bad}))
        assert _user(f"bad{i}@example.com") is None
    for i, empty in enumerate((None, "", "  ")):  # optional: absent
        r = c.post("/api/admin/users", headers=sa, json={**base, "email": f"none{i}@example.com", "phone": empty})
        assert r.status == 201 and "phone" not in _user(f"none{i}@example.com"), r.text
    r = c.post("/api/admin/users", headers=sa, json={**base, "email": "nophone@example.com"})
    assert r.status == 201 and "phone" not in _user("nophone@example.com")


def test_admin_user_update_phone(gaps, sa, intern_users):
    c = gaps.internships
    s = intern_users.student()
    r = c.put(f"/api/admin/users/{s.id}", headers=sa, json={"phone": "+44 20 7946 0958"})
    assert r.status == 200 and r.json()["user"]["phone"] == "+442079460958", r.text
    for bad in BAD:
        _invalid(c.put(f"/api/admin/users/{s.id}", headers=sa, json={"phone": bad}))
    assert _user(s.email)["phone"] == "+442079460958"
    for empty in ("", None):  # optional here: clears it
        r = c.put(f"/api/admin/users/{s.id}", headers=sa, json={"phone": "9876543210"})
        assert r.json()["user"]["phone"] == E164
        r = c.put(f"/api/admin/users/{s.id}", headers=sa, json={"phone": empty})
        assert r.status == 200 and "phone" not in _user(s.email), r.text


def _lead(phone: str | None, email: str) -> str:
    from internships.store import table

    lead_id = f"leadph{next(_ip):04d}"
    created = "2025-05-01T09:00:00.000Z"
    item = {"id": lead_id, "name": "Meena", "domain": "Web", "duration": "1", "email": email, "source": "website",
            "status": "new", "created_at": created, "updated_at": created}
    if phone is not None:
        item["phone"] = phone
    key = f"{created}#{lead_id}"
    table().put({"pk": f"LEAD#{lead_id}", "sk": "LEAD", "type": "lead", **item, "gsi1pk": "LEADS", "gsi1sk": key,
                 "gsi2pk": "LEADSTATUS#new", "gsi2sk": key, "gsi3pk": "LEADSOURCE#website", "gsi3sk": key})
    return lead_id


def test_lead_convert_phone_override_and_the_leads_own_phone(gaps, sa):
    c = gaps.internships
    # the override: normalised, or 400 naming it with nothing created
    lead = _lead("9876543210", "conv1@example.com")
    for bad in BAD:
        _invalid(c.post(f"/api/admin/leads/{lead}/convert", headers=sa, json={"phone": bad}))
    assert _user("conv1@example.com") is None
    assert c.get("/api/admin/leads", headers=sa).json()["leads"][0]["status"] == "new"
    r = c.post(f"/api/admin/leads/{lead}/convert", headers=sa, json={"phone": "+44 20 7946 0958"})
    assert r.status == 201 and r.json()["user"]["phone"] == "+442079460958", r.text
    # a lead stored before the rule (not E.164) gives its phone normalised
    legacy = _lead("98765-43210", "conv2@example.com")
    r = c.post(f"/api/admin/leads/{legacy}/convert", headers=sa)
    assert r.status == 201 and r.json()["user"]["phone"] == E164 == _user("conv2@example.com")["phone"]
    # a lead without a phone: the account has none
    r = c.post(f"/api/admin/leads/{_lead(None, 'conv3@example.com')}/convert", headers=sa, json={"phone": ""})
    assert r.status == 201 and "phone" not in _user("conv3@example.com")
    # a stored phone that is no number: 400 naming phone, the admin sends one
    bad_lead = _lead("12345", "conv4@example.com")
    _invalid(c.post(f"/api/admin/leads/{bad_lead}/convert", headers=sa))
    assert _user("conv4@example.com") is None
    r = c.post(f"/api/admin/leads/{bad_lead}/convert", headers=sa, json={"phone": "98765 43210"})
    assert r.status == 201 and _user("conv4@example.com")["phone"] == E164


def test_admin_search_finds_an_e164_phone_however_it_is_typed(gaps, sa, intern_users):
    c = gaps.internships
    s = intern_users.student(phone="+91 91234 56789")
    for q in ("91234 56789", "+91 91234-56789", "9123456789"):
        r = c.get("/api/admin/users", headers=sa, query={"search": q})
        assert [u["id"] for u in r.json()["users"]] == [s.id], (q, r.text)
    c.post("/api/leads", json={"name": "Ravi", "domain": "Web", "duration": "1", "phone": "91234 56780"},
           source_ip="10.71.0.1")
    r = c.get("/api/admin/leads", headers=sa, query={"search": "91234 56780"})
    assert [lead["phone"] for lead in r.json()["leads"]] == ["+919123456780"], r.text


def test_site_settings_phone(gaps, sa):
    """``sitePhone`` (shown to visitors as the contact number) follows the same rule; "" clears it."""
    c = gaps.internships
    r = c.post("/api/admin/settings", headers=sa, json={"sitePhone": "080-2345 6789"})
    assert r.status == 200 and r.json()["settings"]["sitePhone"] == "+918023456789", r.text
    for bad in BAD:
        r = c.post("/api/admin/settings", headers=sa, json={"sitePhone": bad})
        assert r.status == 400 and r.json() == {"error": "sitePhone: must be a valid phone number"}, r.text
    assert c.get("/api/admin/settings", headers=sa).json()["settings"]["sitePhone"] == "+918023456789"
    r = c.post("/api/admin/settings", headers=sa, json={"sitePhone": ""})
    assert r.status == 200 and r.json()["settings"]["sitePhone"] == ""
    assert c.post("/api/admin/settings", headers=sa, json={"sitePhone": None}).status == 400  # as every setting
