"""Issue #17 item 8: each account owns its sender identities (SES identities it registered and
verified); a send from anything else is 422 ``SENDER_NOT_VERIFIED``, whatever the provider."""
from __future__ import annotations

import os

import pytest

from tests.campaigns.conftest import ACCOUNT, OTHER_ACCOUNT


def bearer(k: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {k}"}


@pytest.fixture
def other(campaigns_app, make_key):
    """A client for another account's Admin key (it owns no sender yet). The account is created by the
    operator command (tools/account.py, ``make account``), not by writing storage."""
    from tools import account

    key = account.create_account("Other Ltd", "pro", "9 Other Road", account_id=OTHER_ACCOUNT)["api_key"]

    class C:
        def __getattr__(self, m):
            fn = getattr(campaigns_app.campaigns, m)
            return lambda path, **kw: fn(path, headers={**bearer(key), **kw.pop("headers", {})}, **kw)

    return C()


@pytest.fixture
def pending_domains(monkeypatch):
    """SES as in AWS for domains under ``.pending.example``: a new identity is PENDING with three DKIM
    tokens until the test marks it verified (moto verifies every identity at once)."""
    from moto.ses import models

    original = models.EmailIdentity.__init__

    def init(self, email_identity, *a, **kw):
        original(self, email_identity, *a, **kw)
        if email_identity.endswith("pending.example"):
            self.verification_status = "PENDING"
            self.dkim_attributes.update(Status="PENDING", Tokens=["tok1", "tok2", "tok3"])

    monkeypatch.setattr(models.EmailIdentity, "__init__", init)

    def verify(identity: str) -> None:
        backend = models.ses_backends["123456789012"]["us-east-1"]
        ident = backend.email_identities[identity]
        ident.verification_status, ident.verified_for_sending_status = "SUCCESS", True
        ident.dkim_attributes["Status"] = "SUCCESS"

    return verify


def _send(client, from_email="news@example.com", provider="sandbox", **over):
    return client.post("/email/send", json={"to": "r@example.net", "subject": "s", "html": "<p>x</p>",
                                            "from_email": from_email, "provider": {"provider": provider}, **over})


def _not_verified(r, field="from_email"):
    assert r.status == 422, r.text
    err = r.json()["error"]
    assert err["code"] == "SENDER_NOT_VERIFIED" and field in err["details"], err


# ---------------------------------------------------------------- routes
def test_sender_routes_and_scopes(campaigns_app, camp, make_key):
    r = camp.post("/senders", json={"domain": "Acme.Example"})
    assert r.status == 201, r.text
    s = r.json()["data"]
    assert s["identity"] == "acme.example" and s["type"] == "domain" and s["status"] == "verified"
    assert s["verified_at"] and s["dkim"] is not None
    r = camp.post("/senders", json={"email": "Ops@Mail.Example"})
    assert r.status == 201 and r.json()["data"]["identity"] == "ops@mail.example", r.text
    listed = camp.get("/senders").json()["data"]
    assert listed["total"] == 3 and {x["identity"] for x in listed["senders"]} >= {"example.com", "acme.example"}
    assert camp.get(f"/senders/{s['id']}").json()["data"]["identity"] == "acme.example"
    # the SES identity exists, tagged with its account
    import boto3

    ses = boto3.client("sesv2", region_name="us-east-1")
    assert ses.get_email_identity(EmailIdentity="acme.example")["IdentityType"] == "DOMAIN"

    reader = make_key(scopes=["settings:read"])
    assert campaigns_app.campaigns.get("/senders", headers=bearer(reader)).status == 200
    r = campaigns_app.campaigns.post("/senders", json={"domain": "x.example"}, headers=bearer(reader))
    assert r.status == 403 and r.json()["error"]["code"] == "PERMISSION_DENIED"
    marketer = make_key(role="marketer")
    assert campaigns_app.campaigns.get("/senders", headers=bearer(marketer)).status == 403

    r = camp.delete(f"/senders/{s['id']}")
    assert r.status == 200 and r.json()["data"] == {"id": s["id"], "deleted": True}
    assert camp.get(f"/senders/{s['id']}").status == 404
    with pytest.raises(ses.exceptions.NotFoundException):
        ses.get_email_identity(EmailIdentity="acme.example")


@pytest.mark.parametrize("body, field", [
    ({}, "body"), ({"email": "a@b.example", "domain": "b.example"}, "body"), ({"domain": "localhost"}, "domain"),
    ({"domain": "-bad-.example"}, "domain"), ({"email": "not-an-address"}, "email"), ({"domain": "1.2.3.4"}, "domain"),
    ({"nope": 1}, "nope"),
])
def test_register_validation(camp, body, field):
    r = camp.post("/senders", json=body)
    assert r.status == 422 and r.json()["error"]["code"] == "VALIDATION_ERROR", r.text


def test_an_identity_belongs_to_one_account(camp, other):
    r = other.post("/senders", json={"domain": "example.com"})
    assert r.status == 409 and r.json()["error"]["code"] == "SENDER_TAKEN", r.text
    r = camp.post("/senders", json={"domain": "example.com"})
    assert r.status == 409 and r.json()["error"]["code"] == "SENDER_EXISTS", r.text
    r = other.post("/senders", json={"email": "ceo@example.com"})  # an address at another account's domain
    assert r.status == 409 and r.json()["error"]["code"] == "SENDER_TAKEN", r.text
    assert camp.post("/senders", json={"email": "ceo@example.com"}).status == 201  # the domain's owner may
    sid = camp.get("/senders").json()["data"]["senders"][0]["id"]
    assert other.get(f"/senders/{sid}").status == 404
    assert other.delete(f"/senders/{sid}").status == 404


# ---------------------------------------------------------------- sends
@pytest.mark.parametrize("provider", ["sandbox", "ses"])
def test_another_accounts_sender_is_refused_everywhere(camp, other, provider):
    """The issue: acct-test verified example.com; acct-other sends as news@example.com."""
    assert _send(camp, provider=provider).status == 200
    _not_verified(_send(other, provider=provider))
    _not_verified(other.post("/email/send", json={"to": "r@example.net", "subject": "s", "html": "x",
                                                  "provider": {"provider": provider,
                                                               "from_email": "ceo@example.com"}}),
                  "provider.from_email")
    _not_verified(_send(other, from_email=None, provider=provider))  # the default From is not theirs either
    r = other.post("/email/bulk", json={"recipients": [{"to": "r@example.net"}], "subject": "s", "html": "x",
                                        "from_email": "news@example.com", "provider": {"provider": provider}})
    _not_verified(r)
    base = {"name": "c", "subject": "s", "content": "<p>x</p>",
            "audience": {"type": "test", "test_emails": ["r@example.net"]}}
    _not_verified(other.post("/campaigns", json={**base, "settings": {"from_email": "news@example.com"}}),
                  "settings.from_email")
    cid = other.post("/campaigns", json=base).json()["data"]["id"]  # no From yet: a draft is fine
    _not_verified(other.put(f"/campaigns/{cid}", json={"settings": {"provider": {
        "provider": provider, "from_email": "news@example.com"}}}), "settings.provider.from_email")
    _not_verified(other.post(f"/campaigns/{cid}/send", json={"confirm": True}), "settings.from_email")
    _not_verified(other.post(f"/campaigns/{cid}/send", json={"send_test": True, "test_emails": ["r@example.net"]}),
                  "settings.from_email")
    assert other.get(f"/campaigns/{cid}").json()["data"]["status"] == "draft"
    assert [m["to"] for m in other.get("/email/outbox").json()["data"]["messages"]] == []
    # once acct-other owns a verified domain it sends from it
    assert other.post("/senders", json={"domain": "other.example"}).status == 201
    assert _send(other, from_email="hi@other.example", provider=provider).status == 200


def test_pending_identity_cannot_send_until_verified(camp, pending_domains):
    r = camp.post("/senders", json={"domain": "acme.pending.example"})
    assert r.status == 201, r.text
    s = r.json()["data"]
    assert s["status"] == "pending" and s["verified_at"] is None
    assert s["dkim"]["records"] == [{"name": f"tok{i}._domainkey.acme.pending.example", "type": "CNAME",
                                     "value": f"tok{i}.dkim.amazonses.com"} for i in (1, 2, 3)]
    _not_verified(_send(camp, from_email="news@acme.pending.example"))
    assert camp.get(f"/senders/{s['id']}").json()["data"]["status"] == "pending"
    pending_domains("acme.pending.example")  # the DKIM records were published; SES verified the domain
    got = camp.get(f"/senders/{s['id']}").json()["data"]
    assert got["status"] == "verified" and got["verified_at"] and got["dkim"]["status"] == "SUCCESS"
    assert _send(camp, from_email="news@acme.pending.example").status == 200
    # an address identity covers that address only
    camp.post("/senders", json={"email": "solo@mail.pending.example"})
    _not_verified(_send(camp, from_email="other@mail.pending.example"))


def test_queued_batch_whose_sender_was_deleted_records_failures(camp, pipe):
    sid = camp.post("/senders", json={"domain": "gone.example"}).json()["data"]["id"]
    r = camp.post("/email/bulk", json={"recipients": [{"to": "a@example.net"}, {"to": "b@example.net"}],
                                       "subject": "s", "html": "<p>x</p>", "from_email": "news@gone.example",
                                       "provider": {"provider": "sandbox"}})
    assert r.status == 202, r.text
    bid = r.json()["data"]["bulk_id"]
    assert camp.delete(f"/senders/{sid}").status == 200
    url = os.environ["CAMPAIGNS_SEND_QUEUE_URL"]
    assert pipe.run_batch(url, "SendWorkerFunction", pipe.receive(url)) == []
    st = camp.get(f"/email/bulk/{bid}").json()["data"]
    assert st["status"] == "completed" and st["failed"] == 2 and st["sent"] == 0, st
    from campaigns.sending import pipeline
    from campaigns.sending import repository as repo

    rec = repo.get_recipient(f"b-{bid}", pipeline.Recipient("a@example.net").rkey)
    assert rec["status"] == "failed" and rec["error"].startswith("sender_not_verified"), rec
    assert camp.get("/email/outbox").json()["data"]["messages"] == []


def test_devseed_account_owns_the_default_sender(campaigns_app):
    from campaigns import devseed
    from campaigns.senders import service as senders
    from campaigns.settings import settings

    out = devseed.seed()
    assert out["account_id"] == devseed.DEV_ACCOUNT
    assert senders.verified_for(devseed.DEV_ACCOUNT, settings().default_from_email)
    assert senders.verified_for(devseed.DEV_ACCOUNT, "news@example.com")
    assert not senders.verified_for(ACCOUNT + "-x", "news@example.com")
    devseed.seed(out)  # idempotent
    assert len(senders.list_for(devseed.DEV_ACCOUNT)) == 1


def test_sender_cap_per_account(camp, monkeypatch):
    monkeypatch.setenv("CAMPAIGNS_MAX_SENDERS", "2")
    from lambdakit.settings import reset_settings

    reset_settings()
    try:
        assert camp.post("/senders", json={"domain": "two.example"}).status == 201  # example.com is the first
        r = camp.post("/senders", json={"domain": "three.example"})
        assert r.status == 409 and r.json()["error"]["code"] == "LIMIT_EXCEEDED", r.text
    finally:
        monkeypatch.delenv("CAMPAIGNS_MAX_SENDERS")
        reset_settings()
