"""Issue 32 item 10: POST /api/notifications writes a read mark only for an entry of the caller's own
feed sources (an enrollment or milestone that exists and is theirs), and a user holds at most
``notification_marks_per_user`` marks."""
from __future__ import annotations

from tests.internships.engage.conftest import seed_enrollment, seed_milestone


def _marks(user_id):
    from internships.notifications import repository as repo

    return [i for i in repo.table().query_all(f"NOTIFREAD#{user_id}") if i["sk"] != "#COUNT"]


def test_only_own_existing_entries_can_be_marked(internships_app, intern_users):
    c = internships_app.internships
    me, other = intern_users.student(), intern_users.student()
    mine = seed_enrollment(me, status="active", domain_name="Web")
    theirs = seed_enrollment(other, status="active", domain_name="Data")
    m = seed_milestone(theirs, 1, status="reviewed", remarks="ok")
    for nid in (f"enrollment:{theirs['id']}:active", "enrollment:no-such-id:active", "enrollment:x",
                f"enrollment:{mine['id']}:completed",  # my enrollment, a status it never reached
                f"milestone:{m['id']}:reviewed:{m['reviewed_at']}", "milestone:" + "y" * 150):
        r = c.post("/api/notifications", json={"notificationId": nid}, headers=me.headers)
        assert r.status == 404, (nid, r.status, r.text)
    assert _marks(me.id) == []
    # my own entry: marked, idempotently
    own = f"enrollment:{mine['id']}:active"
    for _ in range(2):
        assert c.post("/api/notifications", json={"notificationId": own}, headers=me.headers).status == 200
    assert [i["sk"] for i in _marks(me.id)] == [own]
    feed = c.get("/api/notifications", headers=me.headers).json()["notifications"]
    assert next(i for i in feed if i["id"] == own)["read"] is True


def test_marks_per_user_are_capped(internships_app, intern_users, monkeypatch):
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_NOTIFICATION_MARKS_PER_USER", "2")
    reset_settings()
    c = internships_app.internships
    me = intern_users.student()
    e = seed_enrollment(me, status="completed", domain_name="Web")
    ms = [seed_milestone(e, i, status="reviewed", remarks="ok") for i in (1, 2, 3)]
    ids = [f"milestone:{m['id']}:reviewed:{m['reviewed_at']}" for m in ms]
    assert [c.post("/api/notifications", json={"notificationId": n}, headers=me.headers).status for n in ids] == \
        [200, 200, 409]
    assert len(_marks(me.id)) == 2
    # re-marking an existing one stays fine
    assert c.post("/api/notifications", json={"notificationId": ids[0]}, headers=me.headers).status == 200
    monkeypatch.delenv("INTERNSHIPS_NOTIFICATION_MARKS_PER_USER")
    reset_settings()
