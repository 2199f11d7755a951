"""Issue 32 item 7: client-chosen visitor ids no longer inflate the unique-visitor counter. A visitor
is one the service issued (signed cookie, HttpOnly/Secure/SameSite), and one address adds at most
``visit_new_per_ip_per_day`` new visitors a day (a counter item with a TTL, conditional update)."""
from __future__ import annotations

import pytest


@pytest.fixture
def cap(monkeypatch):
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_VISIT_NEW_PER_IP_PER_DAY", "5")
    reset_settings()
    yield 5
    monkeypatch.delenv("INTERNSHIPS_VISIT_NEW_PER_IP_PER_DAY")
    reset_settings()


def _visitors(day):
    from internships.forms import repository as frepo

    return int((frepo.table().get("COUNTER#VISITS", f"DAY#{day}") or {}).get("visitors", 0))


def test_chosen_visitor_ids_do_not_count_beyond_the_daily_cap(internships_app, cap):
    from lambdakit import clock

    c = internships_app.internships
    counted = [c.post("/api/analytics/visit", json={"visitorId": f"fake-{i}"}).json()["counted"] for i in range(12)]
    assert counted == [True] * cap + [False] * (12 - cap)
    assert _visitors(clock.today()) == cap
    # the same forged id twice is still not a "returning visitor": ids come from the cookie only
    assert c.post("/api/analytics/visit", json={"visitorId": "fake-0"}).json()["counted"] is False


def test_forged_or_altered_cookies_are_not_visitors(internships_app, cap):
    c = internships_app.internships
    r = c.post("/api/analytics/visit")
    issued = next(x for x in r.cookies if x.startswith("visitor-id="))
    flags = issued.lower()
    assert "httponly" in flags and "samesite=lax" in flags and "max-age=" in flags
    value = issued.split(";", 1)[0].split("=", 1)[1]
    vid, mac = value.split(".")
    # the issued cookie is recognised (no new cookie, not counted twice)
    again = c.post("/api/analytics/visit", headers={"cookie": f"visitor-id={value}"})
    assert again.json()["counted"] is False and not any(x.startswith("visitor-id=") for x in again.cookies)
    # altered ones are not: each is treated as a brand-new visitor (a new cookie is issued)
    for forged in (f"{vid}x.{mac}", f"{vid}.{'0' * len(mac)}", "attacker-chosen", f"{vid}.{mac}.x"):
        r = c.post("/api/analytics/visit", headers={"cookie": f"visitor-id={forged}"})
        assert any(x.startswith("visitor-id=") for x in r.cookies), forged


def test_replayed_harvested_cookies_stay_within_the_cap(internships_app, cap):
    """Harvesting many cookies and replaying them does not escape the per-address budget."""
    c = internships_app.internships
    harvested = []
    for _ in range(cap * 2):
        r = c.post("/api/analytics/visit")
        harvested += [x.split(";", 1)[0] for x in r.cookies if x.startswith("visitor-id=")]
    assert len(harvested) == cap * 2
    replays = [c.post("/api/analytics/visit", headers={"cookie": h}).json()["counted"] for h in harvested]
    assert sum(replays) == 0
