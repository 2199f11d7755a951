"""Issue #19 item 2: a lead must carry a callable phone number (and name, domain, duration)."""
from __future__ import annotations

import pytest

GOOD = {"name": "Ravi Kumar", "domain": "Web Development", "duration": "2 months", "phone": "98765 43210"}


def _leads():
    from internships.forms import repository as frepo

    items, _ = frepo.table().query("LEADS", index="gsi1", forward=False, limit=50)
    return items


@pytest.mark.parametrize("field", ["name", "domain", "duration", "phone"])
def test_lead_without_a_required_field_is_400_naming_it_and_nothing_stored(gaps, field):
    body = {k: v for k, v in GOOD.items() if k != field}
    r = gaps.internships.post("/api/leads", json=body, source_ip=f"10.9.0.{len(field)}")
    assert r.status == 400, r.body
    assert set(r.json()) == {"error"} and field in r.json()["error"]
    assert _leads() == []


@pytest.mark.parametrize("phone", ["call me", "12345", "+91 12345", "+1 555 123 4567", "", "   ", True, [], {}])
def test_malformed_phone_is_400(gaps, phone):
    r = gaps.internships.post("/api/leads", json={**GOOD, "phone": phone}, source_ip="10.9.1.1")
    assert r.status == 400 and "phone" in r.json()["error"]
    assert _leads() == []


@pytest.mark.parametrize("given,stored", [
    ("98765 43210", "+919876543210"),           # no country code: India
    ("+91 98765-43210", "+919876543210"),
    ("098765 43210", "+919876543210"),          # trunk prefix
    (9876543210, "+919876543210"),              # a JSON number
    ("+44 20 7946 0958", "+442079460958"),      # another country keeps its code
    ("+1 (202) 555-0143", "+12025550143"),
])
def test_phone_stored_in_e164(gaps, given, stored):
    from internships.forms import repository as frepo

    frepo.table().put({"pk": "SETTINGS", "sk": "SITE", "siteEmail": "counselor@example.org"})
    r = gaps.internships.post("/api/leads", json={**GOOD, "phone": given}, source_ip="10.9.2.1")
    assert r.status == 200 and r.json()["success"] is True
    (lead,) = _leads()
    assert lead["phone"] == stored and lead["source"] == "website"
    from internships.mail import repository as mrepo

    (note,) = mrepo.list_emails(status=None, template="lead_notification", start=None, end=None, offset=0, limit=10)
    assert note["data"]["phone"] == stored


def test_newsletter_lead_still_needs_only_an_email(gaps):
    r = gaps.internships.post("/api/newsletter/subscribe", json={"email": "reader@example.com"})
    assert r.status == 200 and r.json()["success"] is True
    (lead,) = _leads()
    assert lead["source"] == "newsletter" and lead["email"] == "reader@example.com" and "phone" not in lead
