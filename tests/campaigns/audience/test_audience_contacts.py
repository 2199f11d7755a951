"""Contacts through the real handlers: CRUD, uniqueness, counters, filters, pagination, erasure, tenancy."""
from __future__ import annotations


def _mk(camp, email, **kw):
    r = camp.post("/contacts", json={"email": email, **kw})
    assert r.status == 201, r.text
    return r.json()["data"]


def _list(camp, name="L"):
    r = camp.post("/lists", json={"name": name})
    assert r.status == 201, r.text
    return r.json()["data"]["id"]


def test_crud_and_validation(camp):
    c = _mk(camp, "Ann@Example.com", first_name="Ann", last_name="Lee", phone="+1 555", tags=["vip"],
            custom_fields={"plan": "gold", "seats": 3})
    assert c["email"] == "Ann@example.com" and c["status"] == "active" and c["custom_fields"] == {"plan": "gold",
                                                                                                  "seats": "3"}
    r = camp.get(f"/contacts/{c['id']}")
    assert r.status == 200 and r.json()["data"]["tags"] == ["vip"]
    r = camp.put(f"/contacts/{c['id']}", json={"first_name": "Anna", "tags": ["vip", "beta"]})
    assert r.status == 200 and r.json()["data"]["first_name"] == "Anna" and r.json()["data"]["last_name"] == "Lee"

    r = camp.post("/contacts", json={"email": "not-an-email"})
    assert r.status == 422 and r.json()["error"]["code"] == "VALIDATION_ERROR" and "email" in r.json()["error"]["details"]
    r = camp.post("/contacts", json={"first_name": "x"})
    assert r.status == 422 and "email" in r.json()["error"]["details"]
    r = camp.post("/contacts", json={"email": "ANN@example.COM"})
    assert r.status == 409 and r.json()["error"]["code"] == "CONFLICT" and "email" in r.json()["error"]["details"]
    r = camp.post("/contacts", json={"email": "b@example.com", "status": "sleeping"})
    assert r.status == 422 and "status" in r.json()["error"]["details"]
    r = camp.post("/contacts", json={"email": "b@example.com", "lists": ["nope"]})
    assert r.status == 422 and "lists" in r.json()["error"]["details"]
    assert camp.post("/contacts", body="[]", headers={"content-type": "application/json"}).status == 422
    assert camp.get("/contacts/unknown").status == 404
    assert camp.put("/contacts/unknown", json={"first_name": "x"}).status == 404


def test_email_change_keeps_uniqueness(camp):
    a = _mk(camp, "a@example.com")
    _mk(camp, "b@example.com")
    r = camp.put(f"/contacts/{a['id']}", json={"email": "B@example.com"})
    assert r.status == 409 and "email" in r.json()["error"]["details"]
    r = camp.put(f"/contacts/{a['id']}", json={"email": "c@example.com"})
    assert r.status == 200
    _mk(camp, "a@example.com")  # the old address is free again
    assert camp.post("/contacts", json={"email": "c@example.com"}).status == 409


def test_counters_follow_every_change(camp):
    lid = _list(camp)
    a = _mk(camp, "a@example.com", lists=[lid], tags=["t1"])
    b = _mk(camp, "b@example.com", lists=[lid], tags=["t1", "t2"])
    _mk(camp, "c@example.com", tags=["t2"])

    def total(**q):
        r = camp.get("/contacts", query=q)
        assert r.status == 200, r.text
        return r.json()["data"]["pagination"]["total"], len(r.json()["data"]["contacts"])

    assert total() == (3, 3)
    assert total(list_id=lid) == (2, 2)
    assert total(tag="t2") == (2, 2)
    assert camp.get(f"/lists/{lid}").json()["data"]["contact_count"] == 2
    camp.put(f"/contacts/{b['id']}", json={"status": "unsubscribed"})
    assert total(status="active") == (2, 2)
    assert total(status="unsubscribed") == (1, 1)
    assert total(list_id=lid, status="active") == (1, 1)
    assert total(tag="t1", status="unsubscribed") == (1, 1)
    camp.put(f"/contacts/{a['id']}", json={"lists": [], "tags": ["t2"]})
    assert total(list_id=lid) == (1, 1) and total(tag="t1") == (1, 1) and total(tag="t2") == (3, 3)
    data = camp.get(f"/lists/{lid}").json()["data"]
    assert data["contact_count"] == 1 and data["active_count"] == 0
    assert camp.delete(f"/contacts/{b['id']}").status == 200
    assert total() == (2, 2) and total(list_id=lid) == (0, 0) and total(status="unsubscribed") == (0, 0)


def test_filters_combine_and_search(camp):
    lid = _list(camp)
    _mk(camp, "john@acme.com", first_name="John", last_name="Smith", lists=[lid], tags=["x"])
    _mk(camp, "jane@acme.com", first_name="Jane", last_name="Johnson", tags=["x"])
    _mk(camp, "bob@other.com", first_name="Bob", last_name="Jones", lists=[lid], status="bounced")
    _mk(camp, "zed@acme.com", first_name="Zed", last_name="Smithers", lists=[lid], tags=["x"])

    def emails(**q):
        r = camp.get("/contacts", query=q)
        assert r.status == 200, r.text
        return sorted(c["email"] for c in r.json()["data"]["contacts"]), r.json()["data"]["pagination"]

    # email + full name (john, once), last names (johnson, jones)
    got, meta = emails(search="JO")
    assert got == ["bob@other.com", "jane@acme.com", "john@acme.com"] and meta["total"] == 3
    assert emails(search="smith")[0] == ["john@acme.com", "zed@acme.com"]  # last-name prefix
    assert emails(search="jane j")[0] == ["jane@acme.com"]  # full-name prefix
    assert emails(search="acme")[0] == []
    got, meta = emails(search="jo", status="bounced")
    assert got == ["bob@other.com"] and meta["total"] == 1
    assert emails(search="nobody")[1]["total"] == 0
    got, meta = emails(list_id=lid, tag="x")
    assert got == ["john@acme.com", "zed@acme.com"] and meta["total"] == 2
    assert emails(list_id=lid, tag="x", search="z")[0] == ["zed@acme.com"]
    assert emails(tag="x", status="active", search="j")[0] == ["jane@acme.com", "john@acme.com"]
    assert emails(list_id=lid, status="bounced")[0] == ["bob@other.com"]
    assert camp.get("/contacts", query={"status": "nope"}).status == 422
    assert camp.get("/contacts", query={"list_id": "missing"}).status == 404
    assert camp.get("/contacts", query={"limit": "101"}).status == 422
    assert camp.get("/contacts", query={"page": "0"}).status == 422
    assert camp.get("/contacts", query={"cursor": "garbage!!"}).status == 400  # issue 32: INVALID_CURSOR is 400


def test_pages_and_cursor_cover_everything_once(camp):
    ids = {_mk(camp, f"user{i:02d}@example.com", tags=["even"])["id"] for i in range(23)}
    for query in ({}, {"status": "active"}, {"tag": "even"}, {"search": "user"}):
        seen: list[str] = []
        for page in (1, 2, 3):  # page numbers
            r = camp.get("/contacts", query={**query, "limit": 10, "page": page}).json()["data"]
            seen += [c["id"] for c in r["contacts"]]
            if "search" not in query:
                assert r["pagination"]["total"] == 23 and r["pagination"]["pages"] == 3
        assert sorted(seen) == sorted(ids), query
        seen, cursor = [], None
        while True:  # cursors
            q = {**query, "limit": 7}
            if cursor:
                q["cursor"] = cursor
            r = camp.get("/contacts", query=q).json()["data"]
            seen += [c["id"] for c in r["contacts"]]
            cursor = r["pagination"]["next_cursor"]
            if not cursor:
                break
        assert sorted(seen) == sorted(ids) and len(seen) == 23, query


def test_cursor_of_another_query_or_account_is_rejected(camp, make_key):
    for i in range(3):
        _mk(camp, f"u{i}@example.com")
    cur = camp.get("/contacts", query={"limit": 1}).json()["data"]["pagination"]["next_cursor"]
    assert cur
    assert camp.get("/contacts", query={"cursor": cur, "status": "active"}).status == 400  # issue 32: a cursor of other filters is 400
    other = {"Authorization": f"Bearer {make_key(role='admin', account_id='acct-other')}"}
    r = camp.get("/contacts", query={"cursor": cur}, headers=other)
    assert r.status == 400  # issue 32


def test_tenancy_is_structural(camp, make_key):
    c = _mk(camp, "mine@example.com")
    lid = _list(camp)
    other = {"Authorization": f"Bearer {make_key(role='admin', account_id='acct-other')}"}
    for method, path in (("GET", f"/contacts/{c['id']}"), ("PUT", f"/contacts/{c['id']}"),
                         ("DELETE", f"/contacts/{c['id']}"), ("GET", f"/lists/{lid}"), ("DELETE", f"/lists/{lid}")):
        r = camp.request(method, path, json={"first_name": "x"} if method == "PUT" else None, headers=other)
        assert r.status == 404, (method, path, r.status)
    r = camp.get("/contacts", headers=other)
    assert r.json()["data"]["contacts"] == [] and r.json()["data"]["pagination"]["total"] == 0
    # same email is fine in another account
    assert camp.post("/contacts", json={"email": "mine@example.com"}, headers=other).status == 201
    assert camp.get(f"/contacts/{c['id']}").status == 200


def test_erasure_removes_personal_data(camp, campaigns_app):
    import boto3

    lid = _list(camp)
    c = _mk(camp, "erase.me@example.com", first_name="Erin", lists=[lid], tags=["t"])
    assert camp.delete(f"/contacts/{c['id']}").status == 200
    assert camp.get(f"/contacts/{c['id']}").status == 404
    assert camp.delete(f"/contacts/{c['id']}").status == 404
    table = campaigns_app.envs["campaigns"].refs["CampaignsTable"]
    items = boto3.resource("dynamodb").Table(table).scan()["Items"]  # test inspection only
    dump = repr(items).lower()
    assert "erase.me" not in dump and "erin" not in dump and c["id"] not in dump
    # aggregate counts stay consistent
    assert camp.get(f"/lists/{lid}").json()["data"]["contact_count"] == 0
    assert camp.post("/contacts", json={"email": "erase.me@example.com"}).status == 201


def test_fanout_helpers(camp):
    from campaigns.contacts import service

    lid = _list(camp)
    made = [_mk(camp, f"f{i}@example.com", lists=[lid]) for i in range(5)]
    service.set_status("acct-test", made[0]["id"], "unsubscribed")
    service.set_status("acct-test", made[0]["id"], "unsubscribed")  # idempotent
    service.set_status("acct-test", made[1]["id"], "bounced")
    assert service.active_count("acct-test", lid) == 3
    from campaigns.settings import settings
    from lambdakit import cursors

    got, cursor = [], None
    # a list function called outside a request: cursors are signed for a bound scope (issue 32 item 3)
    with cursors.bound("GET /lists/{id}/contacts", settings=settings, owner="acct-test", path_params={"id": lid}):
        while True:
            page, cursor = service.list_members_page("acct-test", lid, cursor, page_size=2)
            got += page
            if not cursor:
                break
    assert sorted(c["email"] for c in got) == ["f2@example.com", "f3@example.com", "f4@example.com"]
    assert service.find_by_email("acct-test", "F3@EXAMPLE.COM")["id"] == made[3]["id"]
    r = camp.get("/contacts", query={"status": "bounced"}).json()["data"]
    assert r["pagination"]["total"] == 1 and r["contacts"][0]["id"] == made[1]["id"]
