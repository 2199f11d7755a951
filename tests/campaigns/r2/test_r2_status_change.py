"""contacts.service.set_status reports the transition once, so concurrent unsubscribes emit
contact.unsubscribed once (round-1 gap)."""
from __future__ import annotations

import threading


def _contact(camp, email="race@example.com") -> str:
    lid = camp.post("/lists", json={"name": "L"}).json()["data"]["id"]
    return camp.post("/contacts", json={"email": email, "lists": [lid]}).json()["data"]["id"], lid


def test_set_status_reports_change_once(camp):
    from campaigns.contacts import service

    cid, lid = _contact(camp)
    c, changed = service.set_status("acct-test", cid, "unsubscribed")
    assert changed is True and c["status"] == "unsubscribed"
    c, changed = service.set_status("acct-test", cid, "unsubscribed")
    assert changed is False and c["status"] == "unsubscribed"
    lst = camp.get(f"/lists/{lid}").json()["data"]
    assert lst["contact_count"] == 1 and lst["active_count"] == 0


def test_concurrent_unsubscribes_transition_and_emit_once(camp, monkeypatch, atomic_moto):
    """Both callers read the contact active before either writes (the barrier makes the race
    certain); exactly one conditional write wins, the other sees the new state on retry."""
    from campaigns import events
    from campaigns.contacts import repository as repo
    from campaigns.feedback import service as feedback

    cid, lid = _contact(camp)
    emitted: list[tuple] = []
    monkeypatch.setattr(events, "emit", lambda a, kind, data, **kw: emitted.append((kind, data["contact_id"])))
    barrier = threading.Barrier(2, timeout=10)
    real_get = repo.get
    seen: dict[int, int] = {}

    def racing_get(a, c, consistent=False):
        item = real_get(a, c, consistent=consistent)
        n = seen.setdefault(threading.get_ident(), 0)
        seen[threading.get_ident()] = n + 1
        if n == 0:  # first read of each caller: wait for the other so both see "active"
            barrier.wait()
        return item

    monkeypatch.setattr(repo, "get", racing_get)
    results: list = []

    def unsubscribe():
        results.append(feedback.contact_unsubscribed("acct-test", cid, None, source="link"))

    threads = [threading.Thread(target=unsubscribe) for _ in range(2)]
    [t.start() for t in threads]
    [t.join(20) for t in threads]
    assert sorted(results) == [False, True]
    assert emitted == [("contact.unsubscribed", cid)]
    lst = camp.get(f"/lists/{lid}").json()["data"]
    assert lst["contact_count"] == 1 and lst["active_count"] == 0
