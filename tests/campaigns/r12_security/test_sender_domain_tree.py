"""Issue 32 item 2: SES lets a verified domain send as its subdomains' addresses, so an account may not
register a sender at or under another account's domain, nor a parent of another account's identity.
Compared after IDNA encoding and case folding. The ownership claims are conditional writes: two racing
registrations of related domains cannot both win."""
from __future__ import annotations

import threading

import pytest

from tests.campaigns.conftest import OTHER_ACCOUNT

THIRD = "acct-third"


def _client(campaigns_app, make_key, account_id):
    from tools import account

    key = account.create_account(f"{account_id} Ltd", "pro", "1 Road", account_id=account_id)["api_key"]
    c = campaigns_app.campaigns

    def post(body):
        return c.post("/senders", json=body, headers={"Authorization": f"Bearer {key}"})
    return post


@pytest.fixture
def b(campaigns_app, make_key):
    return _client(campaigns_app, make_key, OTHER_ACCOUNT)


def _taken(r):
    assert r.status == 409, r.text
    assert r.json()["error"]["code"] == "SENDER_TAKEN", r.text


@pytest.mark.parametrize("body", [
    {"domain": "sub.example.com"}, {"domain": "a.b.SUB.Example.COM"}, {"email": "ceo@sub.example.com"},
    {"email": "CEO@Deep.Sub.EXAMPLE.com"}, {"domain": "example.com."}, {"email": "x@example.com"},
])
def test_under_another_accounts_domain_is_taken(camp, b, body):
    # ``ACCOUNT`` (the camp fixture's account) owns example.com
    _taken(b(body))


def test_parent_of_another_accounts_domain_or_address_is_taken(camp, b):
    assert camp.post("/senders", json={"domain": "mail.acme.example"}).status == 201
    _taken(b({"domain": "acme.example"}))
    _taken(b({"domain": "ACME.example"}))
    assert camp.post("/senders", json={"email": "boss@corp.example"}).status == 201
    _taken(b({"domain": "corp.example"}))
    # an address of another account at the same domain is fine (two people at one mail provider)
    assert b({"email": "clerk@corp.example"}).status == 201
    # and a sibling domain is not related
    assert b({"domain": "acme-example.example"}).status == 201
    assert b({"domain": "other.acme.example.net"}).status == 201


def test_idna_forms_compare_equal(camp, b):
    assert camp.post("/senders", json={"domain": "bücher.example"}).status == 201
    _taken(b({"domain": "shop.xn--bcher-kva.example"}))
    _taken(b({"email": "info@SHOP.BÜCHER.example"}))
    assert camp.post("/senders", json={"domain": "xn--mnchen-3ya.example"}).status == 201
    _taken(b({"domain": "ost.münchen.example"}))


def test_own_subdomains_stay_allowed(camp):
    assert camp.post("/senders", json={"domain": "news.example.com"}).status == 201
    assert camp.post("/senders", json={"email": "ceo@news.example.com"}).status == 201


def test_racing_related_registrations_cannot_both_win(campaigns_app, make_key, atomic_moto):
    """Parent and child registered at once by two accounts: at most one 201, whatever the order."""
    a = _client(campaigns_app, make_key, THIRD)
    b = _client(campaigns_app, make_key, OTHER_ACCOUNT)
    for n in range(4):
        results: dict[str, int] = {}
        barrier = threading.Barrier(2)

        def go(name, fn, body, barrier=barrier, results=results):
            barrier.wait()
            results[name] = fn(body).status

        ts = [threading.Thread(target=go, args=("a", a, {"domain": f"race{n}.example"})),
              threading.Thread(target=go, args=("b", b, {"email": f"x@in.race{n}.example"}))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert sorted(results.values()) in ([201, 409], [201, 503]), results
