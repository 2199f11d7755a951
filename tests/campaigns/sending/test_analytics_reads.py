"""GET /campaigns/{id}/analytics reads the campaign, its days and its links with one key query
(they share the campaign's partition): same answers as the three separate reads."""
from __future__ import annotations


def _table():
    from campaigns.counters import repository as counters

    return counters.table()


def test_campaign_with_counters_matches_separate_reads(new_campaign, camp, monkeypatch):
    from campaigns.campaign import repository as camp_repo
    from campaigns.counters import repository as counters

    cid = new_campaign()
    t = _table()
    for d in ("2026-01-01", "2026-01-05", "2026-01-09", "2026-01-10"):
        t.put({"pk": f"CAMP#{cid}", "sk": f"D#{d}", "date": d, "sent": 1})
    for i in range(5):
        t.put({"pk": f"CAMP#{cid}", "sk": f"L#{i:020d}", "url": f"https://x.example/{i}", "clicks": i})
    item, days, links = counters.campaign_with_counters(cid, "2026-01-05", "2026-01-09")
    assert item == camp_repo.get(cid)
    assert days == counters.campaign_days(cid, "2026-01-05", "2026-01-09")
    assert [d["date"] for d in days] == ["2026-01-05", "2026-01-09"]
    assert links == counters.campaign_links(cid) and len(links) == 5
    # Past the link cap the query stops and the campaign item is read on its own.
    monkeypatch.setattr(counters, "MAX_LINKS", 3)
    item2, _, links2 = counters.campaign_with_counters(cid, "2026-01-05", "2026-01-09")
    assert item2 == item and links2 == counters.campaign_links(cid) and len(links2) == 3
    assert counters.campaign_with_counters("nope", "2026-01-05", "2026-01-09") == (None, [], [])


def test_unknown_campaign_is_404_before_a_bad_timeframe(camp):
    r = camp.get("/campaigns/nope/analytics", query={"timeframe": "yesterday"})
    assert r.status == 404
    r = camp.get("/campaigns/nope/analytics")
    assert r.status == 404


def test_bad_timeframe_of_own_campaign_is_422(new_campaign, camp):
    cid = new_campaign()
    r = camp.get(f"/campaigns/{cid}/analytics", query={"timeframe": "yesterday"})
    assert r.status == 422 and r.json()["error"]["details"]["timeframe"]
    r = camp.get(f"/campaigns/{cid}/analytics", query={"timeframe": "custom", "start_date": "2026-01-01"})
    assert r.status == 422
    a = camp.get(f"/campaigns/{cid}/analytics", query={"timeframe": "last_7_days"}).json()["data"]
    assert a["campaign_id"] == cid and len(a["series"]) == 7 and a["top_links"] == []
