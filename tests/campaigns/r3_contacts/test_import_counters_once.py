"""Issue 23 rule 2: an import chunk's counters (contacts total, the list's contact_count, each
tag's total) are added once whatever DynamoDB call of the chunk fails, and the client's resend
(or the job's redelivery) finishes the chunk: neither short nor doubled, no list member twice.
Faults through botocore hooks on the real clients (tests/faults/inject.py)."""
from __future__ import annotations

import uuid

import pytest

from tests.campaigns.audience.test_audience_import_export import multipart
from tests.faults.inject import inject


def _import(camp, rows: int, t: str, lid: str):
    csv_text = "email,first_name\r\n" + "".join(f"k{i}{t}@example.com,N{i}\r\n" for i in range(rows))
    body, headers = multipart(csv_text.encode(), list_id=lid, tags=f"g{t}")
    return camp.post("/contacts/import", body=body, headers=headers)


def _state(camp, t: str, lid: str) -> dict:
    members, cursor = [], None
    while True:
        q = {"list_id": lid, "limit": 100, **({"cursor": cursor} if cursor else {})}
        d = camp.get("/contacts", query=q).json()["data"]
        members += [c["email"] for c in d["contacts"]]
        cursor = d["pagination"].get("next_cursor")
        if not cursor or not d["contacts"]:
            break
    lst = camp.get(f"/lists/{lid}").json()["data"]
    tagged = camp.get("/contacts", query={"tag": f"g{t}"}).json()["data"]["pagination"]["total"]
    return {"members": len(members), "distinct": len(set(members)), "contact_count": lst["contact_count"],
            "active_count": lst.get("active_count"), "tagged": tagged}


@pytest.mark.parametrize("op,fault,at", [
    ("TransactWriteItems", "ProvisionedThroughputExceededException", 1),  # items written, nothing counted
    ("TransactWriteItems", "ambiguous", 1),  # counted, answer lost, resent
    ("BatchWriteItem", "InternalServerError", 3),  # part of the chunk's items written
    ("PutItem", "ProvisionedThroughputExceededException", 2),  # the second chunk's marker
    ("TransactWriteItems", "InternalServerError", 2),  # the second chunk's counters
])
def test_import_counts_each_chunk_once(camp, op, fault, at):
    rows = 130  # two chunks (100 + 30); 3 items a row (contact, list member, tag member)
    t = uuid.uuid4().hex[:8]
    lid = camp.post("/lists", json={"name": f"L{t}"}).json()["data"]["id"]
    before = camp.get("/contacts").json()["data"]["pagination"]["total"]
    with inject(op, fault, at=at) as f:
        r = _import(camp, rows, t, lid)
    assert f.fired, "the fault was not injected"
    if r.status != 200:  # the client resends the failed request
        assert r.status in (500, 503) and r.json()["success"] is False, r.text[:300]
        r = _import(camp, rows, t, lid)
    assert r.status == 200, r.text[:300]
    d = r.json()["data"]
    assert d["imported"] + d["skipped"] == rows and not d["errors"]
    assert _state(camp, t, lid) == {"members": rows, "distinct": rows, "contact_count": rows, "active_count": rows,
                                    "tagged": rows}
    assert camp.get("/contacts").json()["data"]["pagination"]["total"] == before + rows
    # a third send changes nothing (every row exists: skipped)
    assert _import(camp, rows, t, lid).json()["data"]["skipped"] == rows
    assert _state(camp, t, lid)["contact_count"] == rows


def test_pending_chunk_retry_reports_its_rows_imported(camp):
    """A chunk whose counters failed is finished by the resend, which reports its rows as
    imported (they were this chunk's, never counted), not skipped."""
    t = uuid.uuid4().hex[:8]
    lid = camp.post("/lists", json={"name": f"L{t}"}).json()["data"]["id"]
    with inject("TransactWriteItems", "ProvisionedThroughputExceededException", at=1):
        assert _import(camp, 30, t, lid).status == 503
    d = _import(camp, 30, t, lid).json()["data"]
    assert (d["imported"], d["skipped"]) == (30, 0)
    assert _state(camp, t, lid)["contact_count"] == 30


def test_update_existing_merges_never_push_a_contact_past_the_custom_field_cap(camp):
    """Issue 23 rule 3: an import with update_existing merges custom fields into a contact; a
    merge over MAX_CUSTOM_FIELDS (50) is that row's error and the contact is left unchanged, so
    repeated imports with new columns cannot grow one item without bound."""
    t = uuid.uuid4().hex[:8]
    email = f"cap{t}@example.com"
    full = {f"f{i}": "x" for i in range(50)}
    cid = camp.post("/contacts", json={"email": email, "custom_fields": full}).json()["data"]["id"]
    body, headers = multipart(f"email,brand_new\r\n{email},y\r\n".encode(), update_existing="true")
    d = camp.post("/contacts/import", body=body, headers=headers).json()["data"]
    assert d["updated"] == 0 and [e["line"] for e in d["errors"]] == [2], d
    assert "50 custom fields" in d["errors"][0]["error"]
    assert camp.get(f"/contacts/{cid}").json()["data"]["custom_fields"] == full
    # a known column still updates (the cap counts fields, not values)
    body, headers = multipart(f"email,f1\r\n{email},z\r\n".encode(), update_existing="true")
    assert camp.post("/contacts/import", body=body, headers=headers).json()["data"]["updated"] == 1
