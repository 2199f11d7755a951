"""Issue 23 rule 4 (exams): an ``attempt_graded`` message SQS refuses is not lost. The submit
puts a ``FOLDDUE`` outbox entry before the attempt turns submitted; the analytics worker clears
it after the fold; the attempt sweep re-queues entries waiting longer than ``FOLD_DUE_AFTER``.
Faults through botocore hooks on the real SQS client."""
from __future__ import annotations

import botocore.exceptions

from tests.exams.delivery.delivery_helpers import drain_analytics, mcq


def _istat(test_id: str, qid: str) -> dict | None:
    from exams.store import table

    return table().get(f"TEST#{test_id}", f"ISTAT#{qid}", consistent=True)


def _due(attempt_id: str) -> dict | None:
    from exams.attempts import repository as repo
    from exams.store import table

    return table().get(repo._fold_pk(attempt_id), attempt_id, consistent=True)


def _refuse(**_):
    raise botocore.exceptions.ClientError({"Error": {"Code": "ServiceUnavailable", "Message": "down"}},
                                          "SendMessage")


def test_a_refused_analytics_message_is_requeued_by_the_sweep_and_folded_once(tenant):
    from exams.attempts import repository as repo
    from exams.attempts import sweep
    from lambdakit import aws, clock

    app, st = tenant.app, tenant.students[0]
    q = tenant.question(**mcq("Q", correct="A"))
    t = tenant.test([q["id"]])
    a = tenant.start(t)
    app.exams.post("/api/attempt-answers", headers=st.headers,
                   json=[{"attempt_id": a["id"], "question_id": q["id"], "selected_option": "A"}])
    sqs = aws.client("sqs")
    sqs.meta.events.register("before-call.sqs.SendMessage", _refuse, unique_id="fold-outbox")
    try:
        r = app.exams.post(f"/api/attempts/{a['id']}/submit", headers=st.headers)
    finally:
        sqs.meta.events.unregister("before-call.sqs.SendMessage", unique_id="fold-outbox")
    assert r.status == 200, r.text  # the submission stands
    assert drain_analytics(app) == 0 and _istat(t["id"], q["id"]) is None  # nothing queued, nothing folded
    assert _due(a["id"]) is not None
    assert sweep.requeue_folds() == 0  # not yet due: the message may still be on its way
    clock.set_offset(repo.FOLD_DUE_AFTER + 5)
    try:
        assert sweep.requeue_folds() == 1
        assert sweep.requeue_folds() == 0  # postponed: one re-queue per FOLD_DUE_AFTER
        assert drain_analytics(app) == 1
        assert _istat(t["id"], q["id"])["n"] == 1 and _due(a["id"]) is None
        # a duplicate message (the original arriving late) folds nothing twice
        repo.enqueue_analytics({"type": "attempt_graded", "attempt_id": a["id"], "test_id": t["id"]})
        drain_analytics(app)
        assert _istat(t["id"], q["id"])["n"] == 1
    finally:
        clock.set_offset(0)


def test_an_entry_whose_submit_failed_is_dropped_by_the_worker(tenant):
    """The entry is put before the state change; when that change never happens the worker finds
    the attempt not foldable and drops the entry (the real submit puts a new one)."""
    from exams.analytics import service
    from exams.attempts import repository as repo

    q = tenant.question(**mcq("Q", correct="A"))
    a = tenant.start(tenant.test([q["id"]]))
    repo.mark_fold_due(a["id"], a["test_id"])
    assert service.fold_attempt(a["id"]) == 0 and _due(a["id"]) is None
