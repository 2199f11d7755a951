"""Lists and templates through the real handlers; the render helper."""
from __future__ import annotations

from campaigns.common.render import placeholders, render


def test_render_helper():
    out, missing = render("Hi {{ name }}, {{x}} {{name}} {{user.city}}", {"name": "<b>&", "user": {"city": "Oslo"}},
                          html=True)
    assert out == "Hi &lt;b&gt;&amp;,  &lt;b&gt;&amp; Oslo" and missing == ["x"]
    out, missing = render("{{a}}{{b}}", {"a": 1, "b": None}, html=False)
    assert out == "1" and missing == ["b"]
    assert placeholders("{{a}} {{ b }} {{a}} {{ bad name }}") == ["a", "b"]


def test_lists_crud_pagination_and_delete_keeps_contacts(camp):
    ids = []
    for i in range(3):
        r = camp.post("/lists", json={"name": f"L{i}", "visibility": "public", "double_opt_in": True})
        assert r.status == 201, r.text
        d = r.json()["data"]
        assert d["visibility"] == "public" and d["double_opt_in"] is True and d["contact_count"] == 0
        ids.append(d["id"])
    r = camp.post("/lists", json={"name": "x", "visibility": "secret"})
    assert r.status == 422 and "visibility" in r.json()["error"]["details"]
    assert camp.post("/lists", json={"description": "no name"}).status == 422
    r = camp.get("/lists", query={"limit": 2}).json()["data"]
    assert len(r["lists"]) == 2 and r["pagination"]["total"] == 3 and r["pagination"]["pages"] == 2
    r2 = camp.get("/lists", query={"limit": 2, "cursor": r["pagination"]["next_cursor"]}).json()["data"]
    assert len(r2["lists"]) == 1 and r2["pagination"]["next_cursor"] is None
    r = camp.put(f"/lists/{ids[0]}", json={"name": "Renamed", "visibility": "private"})
    assert r.status == 200 and r.json()["data"]["name"] == "Renamed" and r.json()["data"]["double_opt_in"] is True
    assert camp.put("/lists/missing", json={"name": "x"}).status == 404

    c = camp.post("/contacts", json={"email": "keep@example.com", "lists": [ids[0], ids[1]]}).json()["data"]
    assert camp.get(f"/lists/{ids[0]}").json()["data"]["contact_count"] == 1
    r = camp.delete(f"/lists/{ids[0]}")
    assert r.status == 200
    assert camp.get(f"/lists/{ids[0]}").status == 404
    got = camp.get(f"/contacts/{c['id']}")
    assert got.status == 200 and got.json()["data"]["lists"] == [ids[1]]
    assert camp.get("/lists").json()["data"]["pagination"]["total"] == 2
    assert camp.delete(f"/lists/{ids[0]}").status == 404


def test_list_delete_with_many_members_detaches_in_background(camp, campaigns_app):
    import json

    import boto3

    from campaigns.lists import service as lists_service

    lid = camp.post("/lists", json={"name": "big"}).json()["data"]["id"]
    made = [camp.post("/contacts", json={"email": f"m{i}@example.com", "lists": [lid]}).json()["data"]["id"]
            for i in range(5)]
    from campaigns.contacts import membership as service

    lists_service.repo.delete("acct-test", lid)
    assert service.detach_list("acct-test", lid, budget_items=2) is True  # queued the rest
    q = campaigns_app.envs["campaigns"].refs["ImportQueue"]
    msgs = boto3.client("sqs").receive_message(QueueUrl=q, MaxNumberOfMessages=10)["Messages"]
    body = json.loads(msgs[0]["Body"])
    assert body["type"] == "detach_list"
    r = campaigns_app.campaigns.invoke_function("ImportWorkerFunction", {"Records": [
        {"messageId": "1", "receiptHandle": "x", "body": msgs[0]["Body"], "attributes": {}, "messageAttributes": {},
         "md5OfBody": "", "eventSource": "aws:sqs", "eventSourceARN": "arn:aws:sqs:us-east-1:1:q",
         "awsRegion": "us-east-1"}]})
    assert r == {"batchItemFailures": []}
    for cid in made:
        assert camp.get(f"/contacts/{cid}").json()["data"]["lists"] == []


def test_templates_crud_and_preview(camp):
    body = {"name": "Welcome", "subject": "Hi {{first_name}}", "category": "onboarding",
            "content": "<p>Hello {{ first_name }} from {{company}}</p><p>{{missing}}</p>"}
    r = camp.post("/templates", json=body)
    assert r.status == 201, r.text
    t = r.json()["data"]
    assert t["variables"] == ["first_name", "company", "missing"] and t["type"] == "html"
    r = camp.post(f"/templates/{t['id']}/preview", json={"variables": {"first_name": "<Al>", "company": "A&B"}})
    assert r.status == 200
    d = r.json()["data"]
    assert d["subject"] == "Hi <Al>"
    assert d["html"] == "<p>Hello &lt;Al&gt; from A&amp;B</p><p></p>"
    assert d["text"] == "Hello <Al> from A&B"
    assert d["missing_variables"] == ["missing"]
    r = camp.put(f"/templates/{t['id']}", json={"content": "Bye {{last_name}}"})
    assert r.status == 200 and r.json()["data"]["variables"] == ["first_name", "last_name"]
    r = camp.put(f"/templates/{t['id']}", json={"variables": ["a"]})
    assert r.json()["data"]["variables"] == ["a"]
    assert camp.post("/templates", json={"name": "x"}).status == 422
    assert camp.post("/templates", json={**body, "preview_url": "javascript:alert(1)"}).status == 422
    assert camp.post(f"/templates/{t['id']}/preview", json={"variables": "nope"}).status == 422
    lst = camp.get("/templates").json()["data"]
    assert lst["pagination"]["total"] == 1 and lst["templates"][0]["id"] == t["id"]
    assert camp.delete(f"/templates/{t['id']}").status == 200
    assert camp.get(f"/templates/{t['id']}").status == 404
    assert camp.post(f"/templates/{t['id']}/preview", json={}).status == 404
    assert camp.get("/templates").json()["data"]["pagination"]["total"] == 0
