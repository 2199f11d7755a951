"""Attempt items (one partition per attempt, so one query reads an attempt and all its answers).

``ATTEMPT#<id> / A#META`` — the attempt: status, owner, token hash, server start/deadline, stored
question/option order and section windows, results after grading. Indexes:
  gsi1 ``STUDENT#<student>`` / ``<started_at>#<id>`` (a student's attempts),
  gsi2 ``TESTATT#<test>`` / ``<started_at>#<id>`` (a test's attempts),
  gsi3 while in progress ``OPEN#<shard>`` / ``<deadline>#<id>`` (the sweep, sparse); once
  submitted ``TOP#<client>`` / ``<percentage padded>#<id>`` (top performers).
``ATTEMPT#<id> / A#ANS#<question>`` — one saved answer (idempotent upsert).
``TEST#<test> / CAND#<candidate>`` — attempts a candidate has started (attempt limit); guests
  (``guest:<fingerprint>``) also keep their name, times and ``slot`` (counted in ``candidate_count``).
``TATT#<test> / COUNT`` and ``SATT#<student> / COUNT`` — list totals, same transaction as the start.
``SWEEPMARK / OPEN#<shard>`` and ``SWEEPMARK / FOLDDUE#<shard>`` — the occupancy markers of the
  sweep's partitions (``lambdakit.occupancy``): written before an attempt is started on an
  ``OPEN`` shard or a fold entry put on a ``FOLDDUE`` shard; the sweep reads all of them in one
  BatchGetItem and queries only the marked shards.
"""
from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from lambdakit import aws, clock, occupancy, ratelimit
from lambdakit.errors import ConditionFailed

from ..settings import settings
from ..store import page_query, strip_keys, table

logger = logging.getLogger("exams.attempts")

META = "A#META"

#: Partition of the sweep's occupancy markers (one item per ``OPEN``/``FOLDDUE`` shard).
MARK_PK = "SWEEPMARK"
#: The markers' writer, with what this process marked (reset with the settings, as in tests).
markers = occupancy.Markers(table, owner=settings)


def open_mark(shard: int) -> occupancy.Key:
    """The occupancy marker of the ``OPEN#<shard>`` index partition (attempts in progress)."""
    return MARK_PK, f"OPEN#{shard}"


def fold_mark(shard: int) -> occupancy.Key:
    """The occupancy marker of the ``FOLDDUE#<shard>`` outbox partition."""
    return MARK_PK, f"FOLDDUE#{shard}"


def sweep_marks() -> list[occupancy.Key]:
    """Every marker the sweep reads: the ``OPEN`` shards', then the ``FOLDDUE`` shards'."""
    n = settings().sweep_shards
    return [open_mark(s) for s in range(n)] + [fold_mark(s) for s in range(n)]


def ans_sk(qid: str) -> str:
    return f"A#ANS#{qid}"


def top_sk(percentage: float, attempt_id: str) -> str:
    return f"{int(round(percentage * 1000)):08d}#{attempt_id}"


# ------------------------------------------------------------------ reads
def attempt_key(attempt_id: str) -> tuple[str, str]:
    return f"ATTEMPT#{attempt_id}", META


def get(attempt_id: str, *, consistent: bool = True) -> dict | None:
    return strip_keys(table().get(*attempt_key(attempt_id), consistent=consistent))


def get_with_answers(attempt_id: str) -> tuple[dict | None, dict[str, dict]]:
    """The attempt and every saved answer in one query (usually one round trip)."""
    items = table().query_all(f"ATTEMPT#{attempt_id}", sk_prefix="A#", consistent=True)
    meta, answers = None, {}
    for it in items:
        if it["sk"] == META:
            meta = strip_keys(it)
        else:
            answers[it["question_id"]] = strip_keys(it)
    return meta, answers


def candidate(test_id: str, candidate_id: str) -> dict | None:
    return table().get(f"TEST#{test_id}", f"CAND#{candidate_id}", consistent=True)


def page_for_student(student_id: str, *, page: int, limit: int, cursor: str | None):
    items, nxt = page_query(f"STUDENT#{student_id}", index="gsi1", page=page, limit=limit, cursor=cursor)
    return [strip_keys(i) for i in items], nxt


def page_for_test(test_id: str, *, page: int, limit: int, cursor: str | None):
    items, nxt = page_query(f"TESTATT#{test_id}", index="gsi2", page=page, limit=limit, cursor=cursor)
    return [strip_keys(i) for i in items], nxt


def all_for_student(student_id: str, limit: int = 500) -> list[dict]:
    items, _ = table().query(f"STUDENT#{student_id}", index="gsi1", limit=limit, forward=False)
    return [strip_keys(i) for i in items]


def count(kind: str, owner_id: str) -> dict:
    return table().get(f"{kind}#{owner_id}", "COUNT") or {}


def test_and_count_keys(test_id: str) -> list[tuple[str, str]]:
    return [(f"TEST#{test_id}", "META"), (f"TATT#{test_id}", "COUNT")]


def test_and_count(test_id: str, *, have: Mapping[tuple[str, str], dict | None] | None = None
                   ) -> tuple[dict | None, dict]:
    """The test (as ``papers.repository.get``) and its attempt totals (as ``count("TATT", ...)``) in
    one BatchGetItem, eventually consistent like both. ``have``: items read with authentication in
    this request (``identity.reads``), by key (``None``: no such item): used when it holds both."""
    test_key, count_key = test_and_count_keys(test_id)
    if have is not None and test_key in have and count_key in have:
        found = {k: it for k in (test_key, count_key) if (it := have[k]) is not None}
    else:
        found = table().get_many([test_key, count_key])
    test = found.get(test_key)
    return (strip_keys(test) if test else None), found.get(count_key, {})


def top_for_client(client_id: str, limit: int) -> list[dict]:
    items, _ = table().query(f"TOP#{client_id}", index="gsi3", limit=limit, forward=False)
    return [strip_keys(i) for i in items]


def due(shard: int, cutoff_iso: str, limit: int) -> list[dict]:
    items, _ = table().query(f"OPEN#{shard}", index="gsi3", sk_lte=f"{cutoff_iso}~", limit=limit)
    return items


def open_on(shard: int, limit: int) -> list[dict]:
    """The first ``limit`` attempts of the ``OPEN#<shard>`` index, earliest deadline first (the due
    ones of ``due`` lead them): the query that tells an empty shard."""
    items, _ = table().query(f"OPEN#{shard}", index="gsi3", limit=limit)
    return items


# ------------------------------------------------------------------ writes
def start(attempt: dict, *, test: dict, cand_count: int | None, new_candidate: bool, allowed: int,
          max_candidates: int | None, shard: int, cand_set: dict | None = None,
          cand_first: dict | None = None) -> None:
    """Create the attempt with every start rule as a condition, in one transaction:
    the test is still published, the candidate's attempt count (which also serialises the
    starts of one candidate) and the package's candidate capacity hold (``max_candidates``:
    a slot is counted now; guests pass ``None`` and count theirs on the first answer).
    ``ConditionFailed.reasons`` tells which op failed. The shard's occupancy marker is written
    first (at most once per process and shard in ``occupancy.REUSE_SECONDS``)."""
    a = attempt
    item = {**a, "pk": f"ATTEMPT#{a['id']}", "sk": META,
            "gsi2pk": f"TESTATT#{a['test_id']}", "gsi2sk": f"{a['started_at']}#{a['id']}",
            "gsi3pk": f"OPEN#{shard}", "gsi3sk": f"{a['deadline']}#{a['id']}"}
    if a.get("student_id"):
        item["gsi1pk"], item["gsi1sk"] = f"STUDENT#{a['student_id']}", f"{a['started_at']}#{a['id']}"
    cand_values: dict[str, Any] = {}
    if new_candidate:
        cand_cond = "attribute_not_exists(pk)"
    else:
        cand_cond = "#n = :seen"
        cand_values[":seen"] = cand_count
    test_cond = "#st = :pub AND attribute_not_exists(deleted_at)"
    test_values: dict[str, Any] = {":pub": "published"}
    if new_candidate and max_candidates:
        test_cond += " AND (attribute_not_exists(candidate_count) OR candidate_count < :maxc)"
        test_values[":maxc"] = max_candidates
    ops: list[dict] = [
        {"put": item, "condition": "attribute_not_exists(pk)"},
        {"update": (f"TEST#{a['test_id']}", f"CAND#{a['candidate_id']}"), "add": {"n": 1},
         "set": {"last_attempt_id": a["id"], **(cand_set or {})}, "set_if_absent": cand_first or None,
         "condition": cand_cond, "names": {"#n": "n"} if not new_candidate else None,
         "values": cand_values or None},
    ]
    if new_candidate and max_candidates:
        ops.append({"update": (f"TEST#{a['test_id']}", "META"), "add": {"candidate_count": 1},
                    "condition": test_cond, "names": {"#st": "status"}, "values": test_values})
    else:
        ops.append({"check": (f"TEST#{a['test_id']}", "META"), "condition": test_cond, "names": {"#st": "status"},
                    "values": test_values})
    ops = [{k: v for k, v in op.items() if v is not None} for op in ops]
    markers.mark(open_mark(shard))  # before the attempt is on the sweep's index
    table().transact(ops)  # contention (TransactionConflict) is retried inside Table.transact
    # hot counters outside the transaction (plain atomic ADDs never conflict). The attempt is
    # started: a throttle or server error here must not answer an error, or the client starts a
    # second attempt (issue 23); a lost increment is the counters' documented tolerance.
    try:
        _count_start(a, new_candidate)
    except Exception:  # noqa: BLE001
        logger.exception("attempt start counters not updated", extra={"attempt_id": a["id"]})


def _count_start(a: dict, new_candidate: bool) -> None:
    t = table()
    t.increment(f"TATT#{a['test_id']}", "COUNT", {"started": 1, **({"guests": 1} if a.get("is_guest")
                                                                    and new_candidate else {})})
    if a.get("student_id"):
        t.increment(f"SATT#{a['student_id']}", "COUNT", {"started": 1})
    day = a["started_at"][:10]
    t.increment(f"ACT#{day}", "GLOBAL", {"started": 1})
    t.increment(f"ACT#{day}", f"CLIENT#{a['client_id']}", {"started": 1})


def claim_slot(a: dict, *, identity_has_slot: bool, cutoff_ts: float, max_candidates: int | None) -> None:
    """A guest attempt's first answer: flag the attempt and, unless its guest identity holds a
    slot already, flag the candidate and count one slot under the capacity, in one transaction
    (reasons: 0 attempt no longer open / already flagged, 1 identity flagged, 2 capacity)."""
    ops: list[dict] = [{"update": (f"ATTEMPT#{a['id']}", META), "set": {"slot": True},
                        "condition": "#st = :ip AND deadline_ts >= :cut AND attribute_not_exists(slot)",
                        "names": {"#st": "status"}, "values": {":ip": "in_progress", ":cut": cutoff_ts}}]
    if not identity_has_slot:
        ops.append({"update": (f"TEST#{a['test_id']}", f"CAND#{a['candidate_id']}"),
                    "set": {"slot": True, "slot_attempt_id": a["id"]},
                    "condition": "attribute_exists(pk) AND attribute_not_exists(slot)"})
        test_op: dict[str, Any] = {"update": (f"TEST#{a['test_id']}", "META"), "add": {"candidate_count": 1}}
        if max_candidates:
            test_op.update(condition="attribute_not_exists(candidate_count) OR candidate_count < :maxc",
                           values={":maxc": max_candidates})
        ops.append(test_op)
    table().transact(ops)


def page_guests(test_id: str, *, page: int, limit: int, cursor: str | None):
    return page_query(f"TEST#{test_id}", sk_prefix="CAND#guest:", page=page, limit=limit, cursor=cursor,
                      forward=True)


def rate_hit(subject: str, limit: int, window: int) -> ratelimit.RateDecision:
    return ratelimit.hit(table(), subject, limit, window)


def bump_activity(day: str, client_id: str, **adds: int | float) -> None:
    t = table()
    t.increment(f"ACT#{day}", "GLOBAL", adds)
    t.increment(f"ACT#{day}", f"CLIENT#{client_id}", adds)


def save_answers(attempt_id: str, answers: list[dict], *, now_iso: str, cutoff_ts: float) -> None:
    """Upsert answers atomically, only while the attempt is in progress and inside its
    deadline + grace (one TransactWriteItems: a condition check plus one update per answer)."""
    ops: list[dict] = [{"check": (f"ATTEMPT#{attempt_id}", META),
                        "condition": "#st = :ip AND deadline_ts >= :cut",
                        "names": {"#st": "status"}, "values": {":ip": "in_progress", ":cut": cutoff_ts}}]
    for a in answers:
        fields = {k: v for k, v in a.items() if k != "question_id"}
        fields.update(question_id=a["question_id"], saved_at=now_iso, attempt_id=attempt_id)
        ops.append({"update": (f"ATTEMPT#{attempt_id}", ans_sk(a["question_id"])), "set": fields,
                    "add": {"saves": 1}})
    table().transact(ops)


def advance_section(attempt_id: str, index: int) -> None:
    try:
        table().update(f"ATTEMPT#{attempt_id}", META, set={"furthest_section": index},
                       condition="attribute_not_exists(furthest_section) OR furthest_section < :i",
                       values={":i": index})
    except ConditionFailed:
        pass


def mark_submitted(attempt_id: str, fields: dict, *, client_id: str, percentage: float,
                   fold_due_of: dict | None = None) -> dict:
    """in_progress → submitted exactly once (``ConditionFailed`` for every later caller).

    ``fold_due_of`` (the attempt as loaded, when the submission is fully graded): the analytics
    fold's outbox entry is written in the same transaction (one round trip, as the plain update),
    and the submitted attempt is that attempt with ``fields`` applied (a transaction returns no
    item; attributes other requests changed meanwhile, such as the risk score, may be older)."""
    top = {"gsi3pk": f"TOP#{client_id}", "gsi3sk": top_sk(percentage, attempt_id)}
    condition, names, values = "attribute_exists(pk) AND #st = :ip", {"#st": "status"}, {":ip": "in_progress"}
    if fold_due_of is None:
        return table().update(f"ATTEMPT#{attempt_id}", META, set={**fields, **top}, condition=condition,
                              names=names, values=values)
    cond: dict[str, Any] = {"condition": condition, "names": names, "values": values}
    _mark_fold_shard(attempt_id)
    table().transact([{"update": (f"ATTEMPT#{attempt_id}", META), "set": {**fields, **top}, **cond},
                      {"put": _fold_due_item(attempt_id, fold_due_of["test_id"])}])
    return {**fold_due_of, **fields}


def regrade(attempt_id: str, fields: dict, *, expected_version: int, client_id: str, percentage: float) -> dict:
    return table().update(
        f"ATTEMPT#{attempt_id}", META,
        set={**fields, "grade_version": expected_version + 1, "gsi3sk": top_sk(percentage, attempt_id)},
        condition="#st = :s AND (attribute_not_exists(grade_version) OR grade_version = :v)",
        names={"#st": "status"}, values={":s": "submitted", ":v": expected_version}, must_exist=True)


def add_risk(attempt_id: str, ops: list[dict]) -> None:
    table().transact(ops)


# ------------------------------------------------------------------ analytics fold outbox
# ``FOLDDUE#<shard> / <attempt>`` (issue 23 rule 4): put BEFORE the state change that makes an
# attempt foldable (submitted fully graded, or its last manual grade), cleared by the analytics
# worker once folded. The sweep re-queues entries older than ``FOLD_DUE_AFTER`` seconds, so an
# ``attempt_graded`` message SQS refused (or a request that died after the state change) is
# folded later, never lost; the fold's own markers make a second message harmless. An entry
# whose state change did not happen is dropped by the worker (the attempt is not foldable).
FOLD_DUE_AFTER = 120
FOLD_DUE_TTL = 7 * 86400  # < the fold markers' 15 days: a re-queued fold is never counted twice


def _fold_shard(attempt_id: str) -> int:
    import zlib

    return zlib.crc32(attempt_id.encode()) % settings().sweep_shards


def _fold_pk(attempt_id: str) -> str:
    return f"FOLDDUE#{_fold_shard(attempt_id)}"


def _mark_fold_shard(attempt_id: str) -> None:
    """The occupancy marker of the attempt's ``FOLDDUE`` shard, before an entry is put there."""
    markers.mark(fold_mark(_fold_shard(attempt_id)))


def _fold_due_item(attempt_id: str, test_id: str) -> dict:
    now = int(clock.now_ts())
    return {"pk": _fold_pk(attempt_id), "sk": attempt_id, "test_id": test_id, "at": now, "ttl": now + FOLD_DUE_TTL}


def mark_fold_due(attempt_id: str, test_id: str) -> None:
    _mark_fold_shard(attempt_id)
    table().put(_fold_due_item(attempt_id, test_id))


def clear_fold_due(attempt_id: str) -> None:
    table().delete(_fold_pk(attempt_id), attempt_id)


def folds_due(shard: int, cutoff_ts: int, limit: int) -> list[dict]:
    """Fold entries of one shard waiting since ``cutoff_ts`` or earlier (a small partition:
    entries live from a submission to its fold, seconds when the queue works), at most ``limit``.

    Filtered here rather than with a filter expression (first chosen in issue 21, when the condition
    builders imported the boto3 package; kept because the local emulator, moto, fails on ``at <=
    cutoff`` over an entry whose ``at`` is not a number, where DynamoDB reads it as false): the same
    items in the same order, page by page as DynamoDB reads them (a filter expression applies after
    the read, so pages and their cursors are the same), entries without a numeric ``at`` left out as
    the expression leaves them out."""
    out: list[dict] = []
    cursor = None
    while True:
        items, cursor = table().query(f"FOLDDUE#{shard}", cursor=cursor)
        out.extend(i for i in items if _waiting_since(i.get("at"), cutoff_ts))
        if not cursor or len(out) >= limit:
            return out[:limit]


def _waiting_since(at: Any, cutoff_ts: int) -> bool:
    return isinstance(at, (int, float)) and not isinstance(at, bool) and at <= cutoff_ts


def folds_on(shard: int) -> bool:
    """Whether the ``FOLDDUE#<shard>`` partition holds any entry (one item read)."""
    items, _ = table().query(f"FOLDDUE#{shard}", limit=1, consistent=True)
    return bool(items)


def postpone_fold(attempt_id: str) -> None:
    """Re-queued now: wait another ``FOLD_DUE_AFTER`` before the next re-queue (only while the
    entry still exists: a fold that cleared it meanwhile is not undone)."""
    try:
        table().update(_fold_pk(attempt_id), attempt_id, set={"at": int(clock.now_ts())},
                       condition="attribute_exists(pk)")
    except ConditionFailed:
        pass


# ------------------------------------------------------------------ queue
def enqueue_analytics(message: dict) -> None:
    url = settings().analytics_queue_url
    if not url:
        return
    aws.client("sqs").send_message(QueueUrl=url, MessageBody=json.dumps(message, separators=(",", ":")))
