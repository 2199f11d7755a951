"""List routes' totals (issue 21): a page that reads its collection to the end takes the total
from the items read and does not read the counter item; any other page reads the counter.
Both give the same total (the counters move in the same transactions as the items)."""
from __future__ import annotations

import pytest

from bench.callcount import count_calls


def _get(camp, path: str, **query):
    with count_calls() as cc:
        r = camp.get(path, query={k: str(v) for k, v in query.items()})
    assert r.status == 200, r.text
    return r.json()["data"], cc.calls.get("dynamodb.GetItem", 0)


def test_campaign_totals_with_and_without_the_counter(camp, new_campaign):
    for n in range(3):
        new_campaign(name=f"C{n}")
    data, gets = _get(camp, "/campaigns")
    assert data["pagination"] == {"page": 1, "limit": 20, "total": 3, "pages": 1} and len(data["campaigns"]) == 3
    assert gets == 1  # the API key only: the counter is not read
    data, gets = _get(camp, "/campaigns", limit=2)
    assert data["pagination"] == {"page": 1, "limit": 2, "total": 3, "pages": 2} and gets == 2  # more left: counter
    data, gets = _get(camp, "/campaigns", limit=2, page=2)
    assert data["pagination"]["total"] == 3 and len(data["campaigns"]) == 1 and gets == 1
    data, gets = _get(camp, "/campaigns", limit=2, page=5)
    assert data["pagination"]["total"] == 3 and data["campaigns"] == [] and gets == 1
    data, gets = _get(camp, "/campaigns", status="draft", limit=2)
    assert data["pagination"]["total"] == 3 and gets == 2
    data, gets = _get(camp, "/campaigns", status="sent")
    assert data["pagination"]["total"] == 0 and data["campaigns"] == [] and gets == 1


def test_campaign_total_follows_a_status_change(camp, new_campaign):
    cid = new_campaign()
    new_campaign()
    assert camp.post(f"/campaigns/{cid}/cancel").status == 200
    for status, want in (("draft", 1), ("cancelled", 1)):
        for limit in (1, 20):
            assert _get(camp, "/campaigns", status=status, limit=limit)[0]["pagination"]["total"] == want


@pytest.mark.parametrize("path,body", [("/lists", lambda n: {"name": f"L{n}"}),
                                       ("/templates", lambda n: {"name": f"T{n}", "subject": "S", "content": "<p>x</p>"})])
def test_account_collection_totals_with_and_without_the_counter(camp, path, body):
    ids = []
    for n in range(3):
        r = camp.post(path, json=body(n))
        assert r.status == 201, r.text
        ids.append(r.json()["data"]["id"])
    key = path.strip("/")
    data, gets = _get(camp, path)
    assert data["pagination"]["total"] == 3 and len(data[key]) == 3 and gets == 1
    data, gets = _get(camp, path, limit=2)
    assert data["pagination"]["total"] == 3 and data["pagination"]["next_cursor"] and gets == 2
    nxt = data["pagination"]["next_cursor"]
    data, gets = _get(camp, path, limit=2, cursor=nxt)  # a cursor: the items before it are not read
    assert data["pagination"]["total"] == 3 and len(data[key]) == 1 and gets == 2
    data, gets = _get(camp, path, limit=2, page=2)
    assert data["pagination"]["total"] == 3 and len(data[key]) == 1 and gets == 1
    data, gets = _get(camp, path, limit=2, page=9)
    assert data["pagination"]["total"] == 3 and data[key] == [] and gets == 1
    assert camp.delete(f"{path}/{ids[0]}").status == 200
    for limit in (1, 20):
        assert _get(camp, path, limit=limit)[0]["pagination"]["total"] == 2
