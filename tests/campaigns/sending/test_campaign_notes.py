"""Issue 35: a campaign's ``notes`` (internal, plain text, several lines, bounded by
``campaign.views.MAX_NOTES``) end to end: the create, update, get and list answers show them
(checked against the committed OpenAPI document with jsonschema, the tool a client generator
relies on: nothing undocumented leaves), a campaign without notes has no ``notes`` key, and the
mail a recipient gets (the raw MIME read with Python's ``email`` package) never holds them."""
from __future__ import annotations

import json
from email import message_from_bytes
from email.policy import default as default_policy
from pathlib import Path

DOC = json.loads((Path(__file__).resolve().parents[3] / "docs" / "openapi" / "campaigns.json").read_text())
NOTES = "Approved by Ann.\nResend to non-openers on Friday.\n\tBudget code: SPRING-7"
SANDBOX = {"from_email": "news@example.com", "from_name": "News", "provider": {"provider": "sandbox"}}
BODY = {"name": "Spring", "subject": "Hello", "content": "<p>Hi {{email}}</p>",
        "audience": {"type": "test", "test_emails": ["ann@example.com"]}, "settings": SANDBOX}


def conforms(data: dict, schema_name: str) -> None:
    import jsonschema

    jsonschema.Draft202012Validator({**DOC, "$ref": f"#/components/schemas/{schema_name}"}).validate(data)
    declared = set(DOC["components"]["schemas"][schema_name]["properties"])
    assert set(data) <= declared, sorted(set(data) - declared)


def test_notes_are_shown_by_every_campaign_answer_and_never_mailed(camp, pipe):
    r = camp.post("/campaigns", json={**BODY, "notes": NOTES})
    assert r.status == 201, r.text
    created = r.json()["data"]
    assert created["notes"] == NOTES
    conforms(created, "CampaignCreated")
    cid = created["id"]

    got = camp.get(f"/campaigns/{cid}").json()["data"]
    assert got["notes"] == NOTES
    conforms(got, "CampaignOut")
    for leaked in ("account_id", "name_lc", "st_sent", "edit_rev"):  # stored, never shown
        assert leaked not in got
    [listed] = camp.get("/campaigns").json()["data"]["campaigns"]
    assert listed["notes"] == NOTES
    conforms(listed, "CampaignSummary")

    r = camp.put(f"/campaigns/{cid}", json={"notes": "Moved to Monday."})
    assert r.status == 200 and r.json()["data"]["notes"] == "Moved to Monday.", r.text
    conforms(r.json()["data"], "CampaignOut")
    assert camp.put(f"/campaigns/{cid}", json={"name": "Spring 2"}).json()["data"]["notes"] == "Moved to Monday."

    assert camp.post(f"/campaigns/{cid}/send", json={"confirm": True}).status == 200
    pipe.send_all()
    [m] = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"]
    raw = camp.get(f"/email/outbox/{m['id']}/raw").body
    msg = message_from_bytes(raw, policy=default_policy)
    text = "".join(str(p.get_content()) for p in msg.walk() if p.get_content_maintype() == "text")
    assert "Hi ann@example.com" in text  # the parts were read
    assert "Monday" not in text and "Monday" not in str(msg)


def test_a_campaign_without_notes_has_no_notes_key(camp):
    d = camp.post("/campaigns", json=BODY).json()["data"]
    assert "notes" not in d
    assert "notes" not in camp.get(f"/campaigns/{d['id']}").json()["data"]
    assert "notes" not in camp.get("/campaigns").json()["data"]["campaigns"][0]


def test_notes_bound_comes_from_the_model(camp):
    from campaigns.campaign.views import MAX_NOTES

    r = camp.post("/campaigns", json={**BODY, "notes": "x" * (MAX_NOTES + 1)})
    assert r.status == 422 and "notes" in r.json()["error"]["details"], r.text
    assert camp.post("/campaigns", json={**BODY, "notes": "x" * MAX_NOTES}).status == 201
    assert camp.post("/campaigns", json={**BODY, "notes": "a\u0000b"}).status == 422  # control characters
    field = DOC["components"]["schemas"]["CampaignCreate"]["properties"]["notes"]
    limit = next(s["maxLength"] for s in field["anyOf"] if s.get("type") == "string")
    assert limit == MAX_NOTES and str(MAX_NOTES) in field["description"]
