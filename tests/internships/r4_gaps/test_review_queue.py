"""Issue #19 item 3: the admin milestone review queue lists pending, reviewed and rejected submissions
(newest first, each with its status) unless a status is given; the pending count stays available."""
from __future__ import annotations

from bench.callcount import count_calls
from lambdakit import clock
from tests.internships.journey.helpers import enroll_and_pay, make_domain

Q = "/api/admin/submissions/milestones"


def _submit(c, student, mid):
    r = c.post(f"/api/milestones/{mid}/submit", headers=student.headers,
               json={"submissionNotes": "Here is my work for this step", "submissionUrl": "https://example.com/x"})
    assert r.status == 200, r.text


_offset = [0]


def _tick():
    _offset[0] += 5
    clock.set_offset(_offset[0])


def _world(gaps, intern_users, intern_seed):
    c = gaps.internships
    admin = intern_users.staff("admin")
    dom = make_domain(c, admin)
    s1, s2 = intern_users.student(name="Asha Rao"), intern_users.student(name="Bala Iyer")
    e1, e2 = enroll_and_pay(c, s1, dom, intern_seed), enroll_and_pay(c, s2, dom, intern_seed)
    m1, m2 = f"{e1['id']}-01", f"{e1['id']}-02"
    _tick(); _submit(c, s1, m1)                                                     # noqa: E702
    _tick(); assert c.post(f"/api/admin/milestones/{m1}/review", headers=admin.headers,  # noqa: E702
                           json={"remarks": "good"}).status == 200
    _tick(); _submit(c, s1, m2)                                                     # noqa: E702
    _tick(); assert c.post(f"/api/admin/milestones/{m2}/review", headers=admin.headers,  # noqa: E702
                           json={"remarks": "redo", "action": "reject"}).status == 200
    n1 = f"{e2['id']}-01"
    _tick(); _submit(c, s2, n1)                                                     # noqa: E702
    return c, admin, {"reviewed": m1, "rejected": m2, "submitted": n1}


def test_default_lists_every_submission_newest_first_with_status_and_pending_count(gaps, intern_users, intern_seed):
    c, admin, ids = _world(gaps, intern_users, intern_seed)
    r = c.get(Q, headers=admin.headers)
    assert r.status == 200, r.text
    body = r.json()
    got = [(m["id"], m["status"]) for m in body["milestones"]]
    # newest status change first: n1 submitted last, then m2 rejected, then m1 reviewed
    assert got == [(ids["submitted"], "submitted"), (ids["rejected"], "rejected"), (ids["reviewed"], "reviewed")]
    assert body["total"] == 3 and body["pendingCount"] == 1
    assert body["counts"] == {"submitted": 1, "reviewed": 1, "rejected": 1}
    assert all(m["student_name"] for m in body["milestones"])
    # never-submitted (pending) milestones are not submissions
    assert all(m["status"] != "pending" for m in body["milestones"])


def test_status_filters_to_one_and_pending_count_stays(gaps, intern_users, intern_seed):
    c, admin, ids = _world(gaps, intern_users, intern_seed)
    for status in ("submitted", "reviewed", "rejected"):
        body = c.get(Q, headers=admin.headers, query={"status": status}).json()
        assert [(m["id"], m["status"]) for m in body["milestones"]] == [(ids[status], status)]
        assert body["total"] == 1 and body["pendingCount"] == 1
    assert c.get(Q, headers=admin.headers, query={"status": "bogus"}).status == 400
    # pagination over the all-status list
    page = c.get(Q, headers=admin.headers, query={"limit": 2}).json()
    assert [m["id"] for m in page["milestones"]] == [ids["submitted"], ids["rejected"]] and page["total"] == 3


def test_forced_back_to_pending_leaves_the_queue_and_resubmission_moves_to_top(gaps, intern_users, intern_seed):
    c, admin, ids = _world(gaps, intern_users, intern_seed)
    sa = intern_users.staff("super_admin")
    _tick()
    r = c.post(f"/api/admin/milestones/{ids['rejected']}/force-status", headers=sa.headers,
               json={"status": "pending", "remarks": "start over"})
    assert r.status == 200, r.text
    body = c.get(Q, headers=admin.headers).json()
    assert [m["id"] for m in body["milestones"]] == [ids["submitted"], ids["reviewed"]] and body["total"] == 2


def test_listing_cost_does_not_grow_with_data(gaps, intern_users, intern_seed):
    c, admin, _ = _world(gaps, intern_users, intern_seed)

    def calls():
        with count_calls() as cc:
            assert c.get(Q, headers=admin.headers, query={"limit": 2}).status == 200
        return {k: v for k, v in cc.calls.items() if k.startswith("dynamodb.")}, cc.items_scanned

    before = calls()
    _world(gaps, intern_users, intern_seed)
    _world(gaps, intern_users, intern_seed)
    after = calls()
    # same calls; items read per page bounded by the page helper's minimum Limit (10), not by the data
    assert before[0] == after[0] and not any("Scan" in k for k in after[0]), (before, after)
    _world(gaps, intern_users, intern_seed)
    assert calls() == (after[0], 10)


def test_milestones_submitted_before_the_index_are_migrated_by_the_maintenance_task(gaps, intern_users, intern_seed):
    from internships.settings import settings
    from lambdakit.ddb import Table

    c, admin, ids = _world(gaps, intern_users, intern_seed)
    t = Table(settings().table_name)
    for mid in (ids["reviewed"], ids["submitted"]):  # as written before gsi3 existed
        eid, _, n = mid.rpartition("-")
        t.update(f"ENROLL#{eid}", f"MS#{n}", remove=["gsi3pk", "gsi3sk"])
    body = c.get(Q, headers=admin.headers).json()
    assert [m["id"] for m in body["milestones"]] == [ids["rejected"]]
    out = c.invoke_function("CronFunction", {"task": "index-milestone-submissions"})
    assert out == {"ok": True, "indexed": 2, "more": False}
    body = c.get(Q, headers=admin.headers).json()
    assert [m["id"] for m in body["milestones"]] == [ids["submitted"], ids["rejected"], ids["reviewed"]]
    assert c.invoke_function("CronFunction", {"task": "index-milestone-submissions"})["indexed"] == 0
    assert c.invoke_function("CronFunction", {"task": "nope"})["ok"] is False


# ---------------------------------------------------------------- issue #21: the queue's reads
def _ddb(cc) -> dict[str, int]:
    return {k: v for k, v in cc.calls.items() if k.startswith("dynamodb.")}


def test_the_queue_reads_its_counters_with_authentication_and_names_from_the_milestones(gaps, intern_users,
                                                                                      intern_seed):
    """The counters come with the caller's user item and the student and domain from the milestones'
    copies of their enrollment's: the authentication batch and the page's query, nothing else."""
    c, admin, ids = _world(gaps, intern_users, intern_seed)
    with count_calls() as cc:
        r = c.get(Q, headers=admin.headers)
    assert r.status == 200, r.text
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 1}
    body = r.json()
    by_id = {m["id"]: m for m in body["milestones"]}
    assert by_id[ids["reviewed"]]["student_name"] == "Asha Rao" and by_id[ids["submitted"]]["student_name"] == "Bala Iyer"
    assert all(m["student_email"] and m["domain_name"] for m in body["milestones"])
    assert body["counts"] == {"submitted": 1, "reviewed": 1, "rejected": 1} and body["total"] == 3
    # one status: its counter from the batch too
    with count_calls() as cc:
        r = c.get(Q, headers=admin.headers, query={"status": "submitted"})
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 1, "dynamodb.Query": 1}
    assert r.json()["total"] == 1 and r.json()["pendingCount"] == 1
    # refused callers: today's errors, nothing read beyond authentication
    for headers, err in (({}, (401, {"error": "Authentication required"})),
                         (intern_users.student().headers,
                          (403, {"error": "You do not have permission to perform this action"}))):
        r = c.get(Q, headers=headers)
        assert (r.status, r.json()) == err


def test_a_milestone_without_copies_has_its_enrollment_read(gaps, intern_users, intern_seed):
    """A milestone written before its copies (or by an older release) shows the enrollment's values,
    read in one batch, as before."""
    from internships.learning import plan
    from internships.store import table

    c, admin, ids = _world(gaps, intern_users, intern_seed)
    eid, order = plan.parse_id(ids["submitted"])
    table().update(*plan.key(eid, order), remove=list(plan.ENROLLMENT_COPY))
    with count_calls() as cc:
        r = c.get(Q, headers=admin.headers)
    assert r.status == 200, r.text
    assert _ddb(cc) == {"dynamodb.BatchGetItem": 2, "dynamodb.Query": 1}
    m = next(m for m in r.json()["milestones"] if m["id"] == ids["submitted"])
    e = table().get(f"ENROLL#{eid}", "ENROLL")
    assert (m["student_name"], m["student_email"], m["domain_name"]) == (
        "Bala Iyer", e["student_email"], e["domain_name"])


def test_the_enrollment_detail_shows_milestones_without_the_copies(gaps, intern_users, intern_seed):
    from internships.learning import plan

    c, admin, ids = _world(gaps, intern_users, intern_seed)
    eid, _ = plan.parse_id(ids["reviewed"])
    r = c.get(f"/api/admin/enrollments/{eid}", headers=admin.headers)
    assert r.status == 200, r.text
    body = r.json()
    ms = (body.get("enrollment") or body)["milestones"]
    assert ms and not any(k in m for m in ms for k in plan.ENROLLMENT_COPY)
