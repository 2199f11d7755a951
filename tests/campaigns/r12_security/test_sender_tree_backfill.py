"""``make backfill-senders`` (tools/backfill_senders.py): identities registered before issue 32 item 2
have owner items but no ``SENDERTREE#`` item, so another account could still register a domain over
them. The backfill writes their tree items through the registration code's own conditional writes;
a second run writes nothing, a conflict is reported (both account ids) and not overwritten, and a dry
run writes nothing."""
from __future__ import annotations

import json

import pytest

from tests.campaigns.conftest import OTHER_ACCOUNT
from tools import backfill_senders as tool

LEGACY = "acct-legacy"


def _client(account_id):
    from tools import account

    key = account.create_account(f"{account_id} Ltd", "pro", "1 Road", account_id=account_id)["api_key"]
    return {"Authorization": f"Bearer {key}"}


def _legacy(identity: str, account_id: str = LEGACY, sender_id: str | None = None) -> dict:
    """A sender as the code before the domain tree wrote it: record and owner item, no tree item."""
    from campaigns.senders import repository as repo

    sid = sender_id or f"legacy-{identity.replace('@', '-at-')}"
    rec = {"id": sid, "account_id": account_id, "identity": identity, "type": "email" if "@" in identity else "domain",
           "status": "verified", "dkim": None, "created_at": "2026-01-01T00:00:00Z",
           "updated_at": "2026-01-01T00:00:00Z", "verified_at": "2026-01-01T00:00:00Z"}
    pk, sk = repo._owner_key(identity)
    repo.table().transact([
        {"put": {"pk": pk, "sk": sk, "account_id": account_id, "sender_id": sid, "status": "verified"},
         "condition": "attribute_not_exists(pk)"},
        {"put": {"pk": f"ACCT#{account_id}", "sk": f"SENDER#{sid}", **rec}, "condition": "attribute_not_exists(pk)"},
    ])
    return rec


def _tree(domain: str, identity: str):
    from campaigns.senders import repository as repo

    return repo.tree_entry(domain, identity)


def _tree_items() -> list[dict]:
    """Every SENDERTREE# item (test-side scan of the emulator's table, to prove nothing else moved)."""
    from campaigns.senders import repository as repo
    from lambdakit.ddb import deser_item

    pages = repo.table().client.get_paginator("scan").paginate(TableName=repo.table().name)
    return sorted((deser_item(i) for p in pages for i in p["Items"] if i["pk"]["S"].startswith("SENDERTREE#")),
                  key=lambda i: (i["pk"], i["sk"]))


def _code(r):
    return r.json()["error"]["code"] if r.status >= 400 else None


def test_backfill_closes_the_parent_gap_and_is_idempotent(campaigns_app, camp):
    c = campaigns_app.campaigns
    b = _client(OTHER_ACCOUNT)
    # a sender registered by today's code (``ACCOUNT``'s example.com is one too): it has its tree item
    assert camp.post("/senders", json={"domain": "new.example"}).status == 201
    assert _tree("new.example", "new.example")["account_id"] == "acct-test"
    _legacy("mail.legacy.example")
    _legacy("ceo@corp.legacy2.example")

    # before the backfill: the parent check (owner items) already refuses a child of a legacy domain...
    r = c.post("/senders", json={"domain": "x.mail.legacy.example"}, headers=b)
    assert (r.status, _code(r)) == (409, "SENDER_TAKEN"), r.text
    # ...but a domain over a legacy identity is accepted: the gap
    for parent in ("legacy.example", "corp.legacy2.example"):
        r = c.post("/senders", json={"domain": parent}, headers=b)
        assert r.status == 201, r.text
        assert c.delete(f"/senders/{r.json()['data']['id']}", headers=b).status == 200

    from campaigns.senders import repository as repo

    version = repo.tree_version("legacy.example")
    report = tool.backfill()
    # the tree's VERSION moved with the write, so a registration racing the backfill re-checks
    assert repo.tree_version("legacy.example") == version + 1
    assert report == {"scanned": 4, "missing": 2, "written": 2, "conflicts": 0, "dry_run": False,
                      "conflict_details": []}
    item = _tree("mail.legacy.example", "mail.legacy.example")
    assert (item["account_id"], item["sender_id"]) == (LEGACY, "legacy-mail.legacy.example")
    assert _tree("corp.legacy2.example", "ceo@corp.legacy2.example")["account_id"] == LEGACY

    # after it: the same registrations are 409 SENDER_TAKEN, the child one still is
    for body in ({"domain": "legacy.example"}, {"domain": "LEGACY.example"}, {"domain": "corp.legacy2.example"},
                 {"domain": "x.mail.legacy.example"}):
        r = c.post("/senders", json=body, headers=b)
        assert (r.status, _code(r)) == (409, "SENDER_TAKEN"), (body, r.text)
    # the legacy account itself may still register under its own domain
    legacy = _client(LEGACY)
    assert c.post("/senders", json={"domain": "eu.mail.legacy.example"}, headers=legacy).status == 201

    # a second run writes nothing
    before = _tree_items()
    again = tool.backfill()
    assert (again["scanned"], again["missing"], again["written"], again["conflicts"]) == (5, 0, 0, 0)
    assert _tree_items() == before


def test_conflicts_are_reported_not_overwritten(campaigns_app, camp):
    from campaigns.senders import repository as repo

    c = campaigns_app.campaigns
    b = _client(OTHER_ACCOUNT)
    # a legacy identity another account registered a domain over through the gap
    _legacy("sub.clash.example")
    r = c.post("/senders", json={"domain": "clash.example"}, headers=b)
    assert r.status == 201, r.text
    b_sender = r.json()["data"]["id"]
    # and a legacy identity whose tree slot already holds another account's item
    _legacy("held.example")
    pk, sk = repo._tree_key("held.example", "held.example")
    foreign = {"pk": pk, "sk": sk, "account_id": "acct-someone", "sender_id": "s-1", "identity": "held.example"}
    repo.table().put(foreign)
    before = _tree_items()

    report = tool.backfill()
    assert (report["missing"], report["written"], report["conflicts"]) == (2, 0, 2), report
    details = sorted(report["conflict_details"], key=lambda d: d["domain"])
    assert details == [
        {"account_id": LEGACY, "sender_id": "legacy-held.example", "domain": "held.example",
         "other_account_id": "acct-someone", "other_sender_id": "s-1"},
        {"account_id": LEGACY, "sender_id": "legacy-sub.clash.example", "domain": "sub.clash.example",
         "other_account_id": OTHER_ACCOUNT, "other_sender_id": b_sender},
    ]
    assert _tree_items() == before  # nothing written, nothing overwritten
    assert _tree("held.example", "held.example") == foreign
    assert _tree("sub.clash.example", "sub.clash.example") is None
    assert tool.backfill()["conflicts"] == 2  # still there until the operator resolves it


def test_dry_run_writes_nothing(campaigns_app, camp):
    _legacy("dry.example")
    _legacy("a@dry2.example")
    before = _tree_items()
    report = tool.backfill(dry_run=True)
    assert (report["missing"], report["would_write"], report["written"], report["conflicts"]) == (2, 2, 0, 0)
    assert _tree_items() == before
    assert _tree("dry.example", "dry.example") is None
    # the real run then writes exactly those
    assert tool.backfill()["written"] == 2
    assert _tree("dry.example", "dry.example")["account_id"] == LEGACY


def test_cli_prints_the_json_report(campaigns_app, camp, capsys, monkeypatch):
    """The ``make backfill-senders`` path with ``TABLE`` given (as against the local runtime)."""
    from campaigns.settings import settings

    table = settings().table_name
    monkeypatch.setenv("CAMPAIGNS_TABLE_NAME", table)  # the CLI sets it; restored afterwards
    _legacy("cli.example")
    assert tool.main(["--table", table, "--dry-run"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["missing"], out["would_write"], out["written"], out["dry_run"]) == (1, 1, 0, True)
    assert tool.main(["--table", table]) == 0
    assert json.loads(capsys.readouterr().out)["written"] == 1
    # a conflict left to resolve is exit 1
    _legacy("sub.cli.example", account_id="acct-another")
    assert tool.main(["--table", table]) == 1
    assert json.loads(capsys.readouterr().out)["conflicts"] == 1


def test_not_an_owner_item_is_refused():
    from campaigns.senders import service

    with pytest.raises(ValueError):
        service.backfill_tree({"pk": "ACCT#a", "sk": "SENDER#b", "account_id": "a"})


def test_table_lookup_is_make_accounts(monkeypatch):
    """``TABLE``, else the local runtime's table under ``AWS_ENDPOINT_URL``, else ``STACK``'s."""
    from lambdakit.settings import reset_settings
    from tools import account

    monkeypatch.setenv("CAMPAIGNS_TABLE_NAME", "before")  # use_table sets it; restored afterwards
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:4566")
    try:
        assert account.use_table(table=None, stack=None, region=None) == account.LOCAL_TABLE

        class Session:
            def client(self, name):
                assert name == "cloudformation"
                return self

            def describe_stack_resource(self, StackName, LogicalResourceId):  # noqa: N803
                assert (StackName, LogicalResourceId) == ("mystack", "CampaignsTable")
                return {"StackResourceDetail": {"PhysicalResourceId": "mystack-CampaignsTable-X"}}

        monkeypatch.delenv("AWS_ENDPOINT_URL")
        assert account.use_table(table=None, stack="mystack", region=None, session=Session()) == \
            "mystack-CampaignsTable-X"
        assert account.use_table(table="given", stack="mystack", region=None, session=Session()) == "given"
    finally:
        monkeypatch.undo()
        reset_settings()
