"""Activity log: entries, redaction, counters and the filtered list (domain level)."""
from __future__ import annotations

from lambdakit import clock


def test_record_redacts_secrets_and_lists_newest_first(internships_app):
    from internships import activity
    from internships.activity import service

    activity.record("admin-1", "user.update", "user", "u1", before={"name": "A", "password_hash": "scrypt$..."},
                    after={"name": "B", "pk": "USER#u1", "refresh_token": "abc"})
    activity.record("admin-2", "lead.delete", "lead", "l1")
    logs, total, exact, nxt = service.list_logs({}, search=None, date_from=None, date_to=None, offset=0, limit=20,
                                                cursor=None)
    assert total == 2 and exact and nxt is None
    assert [log["action_type"] for log in logs] == ["lead.delete", "user.update"]
    upd = logs[1]
    assert upd["before"] == {"name": "A", "password_hash": "[redacted]"}
    assert upd["after"] == {"name": "B", "refresh_token": "[redacted]"}
    assert upd["admin_id"] == "admin-1" and upd["entity_id"] == "u1"


def test_filters_counters_and_pages(internships_app):
    from internships import activity
    from internships.activity import service

    for i in range(7):
        activity.record("a1" if i % 2 == 0 else "a2", "enrollment.update", "enrollment", f"e{i}")
    activity.record("a1", "settings.update", "settings", "SITE")

    def ls(filters, **kw):
        from internships.settings import settings
        from lambdakit import cursors

        args = dict(search=None, date_from=None, date_to=None, offset=0, limit=3, cursor=None)
        args.update(kw)
        # issue 32: cursors are bound to a request scope (route, filters, caller)
        with cursors.bound("GET /api/admin/activity-logs", settings=settings, query=filters):
            return service.list_logs(filters, **args)

    logs, total, exact, nxt = ls({"admin_id": "a1"})
    assert total == 5 and len(logs) == 3 and nxt
    logs2, _, _, nxt2 = ls({"admin_id": "a1"}, offset=3)
    assert len(logs2) == 2 and nxt2 is None
    assert not {x["id"] for x in logs} & {x["id"] for x in logs2}
    # cursor continues where page 1 stopped
    logs3, _, _, _ = ls({"admin_id": "a1"}, cursor=nxt)
    assert [x["id"] for x in logs3] == [x["id"] for x in logs2]
    # combined filters: counted by query
    logs, total, exact, _ = ls({"admin_id": "a1", "entity_type": "enrollment"})
    assert total == 4 and exact
    logs, total, _, _ = ls({}, search="SETTINGS")
    assert total == 1 and logs[0]["entity_type"] == "settings"
    today = clock.today()
    _, total, _, _ = ls({}, date_from=today, date_to=today)
    assert total == 8
    _, total, _, _ = ls({}, date_from="2001-01-01", date_to="2001-12-31")
    assert total == 0


def test_bad_date_is_a_validation_error(internships_app):
    import pytest

    from internships.activity import service
    from lambdakit.errors import ValidationFailed

    with pytest.raises(ValidationFailed):
        service.list_logs({}, search=None, date_from="yesterday", date_to=None, offset=0, limit=5, cursor=None)


def test_per_admin_counters_are_items_of_their_own(internships_app):
    """Issue 23 rule 3: the number of admins only grows, so a counter per admin on the one
    ``COUNTER#ACTLOG/TOTAL`` item grew it without bound. Each admin now has its own item and
    ``TOTAL`` keeps only the closed sets (``all``, entity and action types)."""
    from internships import activity
    from internships.activity import repository as repo
    from internships.activity import service

    admins = [f"admin-{i:04d}" for i in range(40)]
    for a in admins:
        activity.record(a, "lead.delete", "lead", f"l-{a}")
    activity.record(admins[7], "lead.delete", "lead", "again")
    total = repo.table().get(repo.COUNTER_PK, repo.COUNTER_SK, consistent=True)
    assert total["all"] == 41 and not [k for k in total if k.startswith("admin:")]
    assert set(total) - {"pk", "sk"} == {"all", "entity:lead", "action:lead_delete"}
    assert repo.table().get(repo.COUNTER_PK, f"ADMIN#{admins[7]}", consistent=True)["n"] == 2
    _, n, exact, _ = service.list_logs({"admin_id": admins[7]}, search=None, date_from=None, date_to=None,
                                       offset=0, limit=20, cursor=None)
    assert n == 2 and exact
