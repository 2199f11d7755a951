"""Analytics items, all maintained by the AnalyticsWorker (exactly once per attempt).

``TEST#<test> / STATS`` — ``n``, ``score_sum``, ``pct_sum``, ``passed`` and the total-score
histogram ``t:<T>``; ``TEST#<test> / ISTAT#<question>`` — per-question ``n``, ``correct``,
``unanswered``, option picks ``o:<X>`` and the joint histogram ``c:<x>:<rest>``;
``TEST#<test> / FOLD#<attempt>#<chunk>`` — idempotency markers (TTL 15 days > SQS retention);
``SSTATS#<student> / STATS`` — ``n``, ``pct_sum``; ``ACT#<YYYY-MM-DD> / GLOBAL|CLIENT#<id>`` —
activity today; ``ORGRANK / C#<client>`` — submissions of one client (``n``) for top organisations
(an item per client, not a map on one item that would grow with the number of clients: issue 23 rule 3).
"""
from __future__ import annotations

from lambdakit.errors import ConditionFailed

from ..store import strip_keys, table

CHUNK = 95


def fold(attempt: dict, test_add: dict, per_q: dict[str, dict], *, day: str, ttl: int) -> int:
    """Apply one attempt's increments; returns the number of chunks applied now (0 = all done before)."""
    tid, aid, cid = attempt["test_id"], attempt["id"], attempt["client_id"]
    qids = list(per_q)
    chunks = [qids[i:i + CHUNK] for i in range(0, max(len(qids), 1), CHUNK)] or [[]]
    applied = 0
    for n, chunk in enumerate(chunks):
        ops: list[dict] = [{"put": {"pk": f"TEST#{tid}", "sk": f"FOLD#{aid}#{n}", "ttl": ttl},
                            "condition": "attribute_not_exists(pk)"}]
        if n == 0:
            pct = float(attempt.get("percentage") or 0)
            ops.append({"update": (f"TEST#{tid}", "STATS"),
                        "add": {**test_add, "score_sum": float(attempt.get("score") or 0), "pct_sum": pct,
                                "passed": 1 if attempt.get("passed") else 0,
                                "time_sum": int(attempt.get("time_taken") or 0)}})
            if attempt.get("student_id"):
                ops.append({"update": (f"SSTATS#{attempt['student_id']}", "STATS"), "add": {"n": 1, "pct_sum": pct}})
            ops.append({"update": (f"ACT#{day}", "GLOBAL"), "add": {"submitted": 1}})
            ops.append({"update": (f"ACT#{day}", f"CLIENT#{cid}"), "add": {"submitted": 1}})
            ops.append({"update": ("ORGRANK", f"C#{cid}"), "add": {"n": 1}})
        for qid in chunk:
            ops.append({"update": (f"TEST#{tid}", f"ISTAT#{qid}"), "add": per_q[qid]})
        try:
            table().transact(ops)
            applied += 1
        except ConditionFailed as exc:
            if exc.reasons and exc.reasons[0] == "ConditionalCheckFailed":
                continue  # this chunk was folded by an earlier delivery
            raise
    return applied


def activity_key(day: str, client_id: str | None) -> tuple[str, str]:
    return f"ACT#{day}", f"CLIENT#{client_id}" if client_id else "GLOBAL"


def org_rank() -> dict[str, int]:
    """Submitted attempts per client id (one small item per client with submissions)."""
    return {i["sk"][2:]: int(i.get("n") or 0) for i in table().query_all("ORGRANK", sk_prefix="C#")}


def test_stats(test_id: str) -> dict:
    return table().get(f"TEST#{test_id}", "STATS") or {}


def item_stats(test_id: str) -> dict[str, dict]:
    return {i["sk"][len("ISTAT#"):]: i for i in table().query_all(f"TEST#{test_id}", sk_prefix="ISTAT#")}


def test_with_item_stats(test_id: str) -> tuple[dict | None, list[dict], dict | None, dict[str, dict]]:
    """The test (``META``), its paper (``PAPER#``), its answer key (``KEY``, ``KEY#<nnnn>``) and its
    item statistics (``ISTAT#``) in one query (eventually consistent, like each of their own reads):
    their sort keys lie side by side from ``ISTAT#`` to ``PAPER#``; anything else between is ignored.
    ``(test without keys or None, questions, key or None, {question id: item statistics})``."""
    from ..papers.repository import merge_key

    meta: dict | None = None
    questions: list[dict] = []
    stats: dict[str, dict] = {}
    keys: list[dict] = []
    for i in table().query_all(f"TEST#{test_id}", sk_between=("ISTAT#", "PAPER$")):
        sk = i["sk"]
        if sk == "META":
            meta = strip_keys(i)
        elif sk.startswith("PAPER#"):
            questions.extend(i.get("questions") or [])
        elif sk.startswith("ISTAT#"):
            stats[sk[len("ISTAT#"):]] = i
        elif sk.startswith("KEY"):
            keys.append(i)
    return meta, questions, merge_key(keys), stats


def many_test_stats(test_ids: list[str]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    keys = [(f"TEST#{t}", "STATS") for t in test_ids] + [(f"TATT#{t}", "COUNT") for t in test_ids]
    for it in table().batch_get(keys):
        tid = it["pk"].split("#", 1)[1]
        out.setdefault(tid, {})["stats" if it["sk"] == "STATS" else "count"] = it
    return out


def student_stats(student_id: str) -> dict:
    return table().get(f"SSTATS#{student_id}", "STATS") or {}


def activity_op(day: str, client_id: str, **adds: int) -> list[dict]:
    return [{"update": (f"ACT#{day}", "GLOBAL"), "add": adds},
            {"update": (f"ACT#{day}", f"CLIENT#{client_id}"), "add": adds}]


def clients(client_ids: list[str]) -> dict[str, dict]:
    return {i["id"]: strip_keys(i) for i in table().batch_get([(f"CLIENT#{c}", "CLIENT") for c in client_ids])}
