"""Issue 21: the super admin's audit log and platform settings read what they need with
authentication (``exams.identity.reads``): the audit log's total (its counter's shards) and the
settings item (which authentication reads anyway for the maintenance mode).

For each: the calls of a request through the real handler (one round trip fewer), the data fresh
on the next request, the same totals as the route's own read, and the errors of other callers
unchanged (the route never runs for them)."""
from __future__ import annotations

from tests.exams.delivery.test_route_reads import ONE_BATCH, batch_keys, ddb_calls, get, names

LOGS = "/api/superadmin/audit-logs"


def counter_keys(counter: str) -> set[tuple[str, str]]:
    from exams.audit import repository

    return set(repository.count_keys(counter))


def stored_total(counter: str) -> int:
    from exams.audit import repository

    return repository.count(counter)  # read by itself, as the route did before


def test_audit_log_reads_its_total_with_authentication(exams_app, exam_users, tenant):
    sa = exam_users.super_admin()
    get(exams_app, LOGS, sa)
    with ddb_calls() as calls:
        r = get(exams_app, LOGS, sa)
    assert r.status == 200, r.text
    assert names(calls) == ONE_BATCH, names(calls)  # no BatchGetItem of its own for the total
    assert counter_keys("ALL") <= batch_keys(calls)[0]
    total = r.json()["pagination"]["total"]
    assert total == stored_total("ALL")
    exam_users.client(name="Audited")  # one more audited action
    assert get(exams_app, LOGS, sa).json()["pagination"]["total"] == total + 1  # fresh on the next request


def test_audit_log_with_one_key_filter_reads_that_counter(exams_app, exam_users, tenant):
    sa = exam_users.super_admin()
    for query, counter in [({"user_id": sa.id}, f"USER#{sa.id}"), ({"action": "client.create"}, "ACTION#client.create"),
                           ({"entity_type": "client"}, "ENTITY#client")]:
        with ddb_calls() as calls:
            r = get(exams_app, LOGS, sa, **query)
        assert r.status == 200, r.text
        assert names(calls) == ONE_BATCH, (query, names(calls))
        assert counter_keys(counter) <= batch_keys(calls)[0]
        assert r.json()["pagination"]["total"] == stored_total(counter) > 0


def test_audit_log_without_a_total_reads_no_counter(exams_app, exam_users, tenant):
    sa = exam_users.super_admin()
    for query in [{"start_date": "2000-01-01"}, {"end_date": "2999-12-31"}, {"user_id": sa.id, "action": "login"},
                  {"action": "client.create", "entity_type": "client"}]:
        with ddb_calls() as calls:
            r = get(exams_app, LOGS, sa, **query)
        assert r.status == 200, r.text
        assert r.json()["pagination"]["total"] is None
        assert names(calls) == ONE_BATCH, (query, names(calls))
        assert not any(pk.startswith("AUDIT#COUNT") for pk, _ in batch_keys(calls)[0]), query
    # a filter too long for a key is not declared; the route answers as before
    with ddb_calls() as calls:
        r = get(exams_app, LOGS, sa, user_id="u" * 300)
    assert r.status == 200 and r.json()["pagination"]["total"] == 0, r.text
    assert not any(pk.startswith("AUDIT#COUNT") for pk, _ in batch_keys(calls)[0])
    # a bad date: the same 400 as before
    r = get(exams_app, LOGS, sa, start_date="yesterday")
    assert r.status == 400 and r.json()["error"] == "VALIDATION_ERROR", r.text


def test_audit_log_and_settings_refuse_others_as_before(exams_app, tenant):
    for path in (LOGS, "/api/settings"):
        for user in (tenant.ca, tenant.students[0]):
            with ddb_calls() as calls:
                r = get(exams_app, path, user)
            assert r.status == 403 and r.json()["error"] == "INSUFFICIENT_PRIVILEGES", r.text
            assert "Query" not in names(calls) and "GetItem" not in names(calls)  # the route never ran
        r = get(exams_app, path)
        assert r.status == 401 and r.json()["error"] == "MISSING_AUTH_TOKEN"


def test_settings_answer_from_the_authentication_read(exams_app, exam_users):
    sa = exam_users.super_admin()
    get(exams_app, "/api/settings", sa)
    with ddb_calls() as calls:
        r = get(exams_app, "/api/settings", sa)
    assert r.status == 200, r.text
    assert names(calls) == ["BatchGetItem", "UpdateItem"], names(calls)  # no GetItem of its own
    assert ("SETTINGS", "PLATFORM") in batch_keys(calls)[0]
    r = exams_app.exams.put("/api/settings", json={"announcement_banner": "Exams on Friday"}, headers=sa.headers)
    assert r.status == 200, r.text
    data = get(exams_app, "/api/settings", sa).json()["data"]  # fresh on the next request
    assert data["announcement_banner"] == "Exams on Friday" and data["updated_by"] == sa.id
    assert data["maintenance_mode"] is False and data["registration_enabled"] is True


def test_audit_log_rows_are_read_with_only_the_columns_shown(exams_app, exam_users, tenant):
    """The page's query projects the row fields the route shows (no key or index attributes):
    the same rows as the stored items cut to those fields."""
    from exams.admin.auditlog import PUBLIC
    from exams.admin.models import AuditLogRow
    from exams.audit import repository

    assert set(PUBLIC) == set(AuditLogRow.model_fields)  # what is read is what the model declares (issue 35)
    sa = exam_users.super_admin()
    with ddb_calls() as calls:
        r = get(exams_app, LOGS, sa, limit="5")
    assert r.status == 200, r.text
    (query,) = [p for n, p in calls if n == "Query"]
    projected = {query["ExpressionAttributeNames"][t.strip()] for t in query["ProjectionExpression"].split(",")}
    assert projected == set(PUBLIC)
    stored, _ = repository.table().query("AUDIT", index="gsi1", forward=False, limit=5)
    assert r.json()["data"] == [{k: i[k] for k in PUBLIC if k in i} for i in stored]
    assert all("pk" not in row and "gsi1sk" not in row for row in r.json()["data"])
