"""Issue 32, "Accounts an operator can create": tools/account.py (``make account``) creates an account
with its postal address and first Admin key (hashed like every key, shown once), lists accounts and
disables one, whose keys are then refused on the auth path."""
from __future__ import annotations

import pytest

from tools import account as tool


def _h(key):
    return {"Authorization": f"Bearer {key}"}


def test_create_list_and_disable(campaigns_app, capsys):
    c = campaigns_app.campaigns
    out = tool.create_account("Acme Ltd", "pro", "1 Main St\nSpringfield")
    acct, key = out["account"], out["api_key"]
    assert acct["postal_address"] == "1 Main St\nSpringfield" and acct["status"] == "active"
    # the key is stored as a hash only, and it authenticates as an Admin of the new account
    from campaigns.apikeys import repository as repo
    from lambdakit.security import sha256_hex

    stored = repo.get_key(acct["id"], out["key"]["key_id"])
    assert stored["secret_hash"] == sha256_hex(key) and key not in str(stored)
    assert repo.get_account(acct["id"])["postal_address"] == "1 Main St\nSpringfield"
    r = c.get("/api-keys", headers=_h(key))
    assert r.status == 200, r.text
    # the Admin key creates further keys of its account
    r = c.post("/api-keys", json={"name": "ops", "role": "analyst"}, headers=_h(key))
    assert r.status == 201, r.text
    second = r.json()["data"]["key"]
    assert [a["id"] for a in tool.list_accounts()] == [acct["id"]]

    tool.disable_account(acct["id"])
    for k in (key, second):
        r = c.get("/contacts", headers=_h(k))
        assert r.status == 403 and r.json()["error"]["code"] == "ACCOUNT_DISABLED", r.text
    assert tool.list_accounts()[0]["status"] == "disabled"
    # no new key for a disabled account either
    from campaigns.apikeys.service import create_key
    from lambdakit.errors import ApiError

    with pytest.raises(ApiError) as err:
        create_key(acct["id"], "late", role="admin")
    assert err.value.code == "ACCOUNT_DISABLED"


def test_refusals(campaigns_app):
    from lambdakit.errors import ApiError

    tool.create_account("One", "standard", "Addr 1", account_id="acct-fixed")
    for args in (("Two", "gold", "Addr"), ("", "pro", "Addr"), ("Two", "pro", ""), ("Two\x00", "pro", "Addr")):
        with pytest.raises(ApiError):
            tool.create_account(*args)
    with pytest.raises(ApiError) as err:
        tool.create_account("Again", "pro", "Addr", account_id="acct-fixed")
    assert err.value.status == 409
    with pytest.raises(ApiError) as err:
        tool.disable_account("acct-nobody")
    assert err.value.status == 404


def test_cli_against_the_emulator(campaigns_app, capsys, monkeypatch):
    """The CLI path (``make account``) with ``TABLE`` given, as against the local runtime."""
    from campaigns.settings import settings

    table = settings().table_name
    monkeypatch.setenv("CAMPAIGNS_TABLE_NAME", table)  # the CLI sets it; restored afterwards
    assert tool.main(["--name", "Cli Co", "--plan", "pro", "--address", "2 High St\\nTown", "--table", table]) == 0
    printed = capsys.readouterr().out
    key = next(w for w in printed.split() if w.startswith("ck_"))
    assert campaigns_app.campaigns.get("/api-keys", headers=_h(key)).status == 200
    assert tool.main(["--list", "--table", table]) == 0
    assert "Cli Co" in capsys.readouterr().out
    with pytest.raises(SystemExit):  # neither NAME+ADDRESS, LIST nor DISABLE: usage error
        tool.main(["--plan", "pro", "--table", table])


def test_stack_resolution_like_redrive():
    class Cfn:
        class exceptions:  # noqa: N801 - boto3's shape
            ClientError = Exception

        def describe_stack_resource(self, StackName, LogicalResourceId):  # noqa: N803
            known = {("root", "CampaignsService"): "root-Campaigns-123",
                     ("root-Campaigns-123", "CampaignsTable"): "root-Campaigns-123-CampaignsTable-ABC"}
            if (StackName, LogicalResourceId) not in known:
                err = Exception("ValidationError")
                err.response = {"Error": {"Code": "ValidationError"}}
                raise err
            return {"StackResourceDetail": {"PhysicalResourceId": known[(StackName, LogicalResourceId)]}}

    assert tool.resolve_table(cfn=Cfn(), stack="root") == "root-Campaigns-123-CampaignsTable-ABC"
    with pytest.raises(tool.AccountToolError):
        tool.resolve_table(cfn=Cfn(), stack="nope")
