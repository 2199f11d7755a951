"""Question bank items.

``QUESTION#<id> / META`` — the question; ``gsi1`` ``QBANK#<client>`` / ``F#<folder>#<created>#<id>``
(list per tenant, prefix per folder); ``gsi2`` ``QBATCH#<batch>`` / ``<id>`` (import rollback).
``QCOUNT#<client> / META`` — counter ``all``; ``QCOUNT#<client> / F#<folder>`` — counter ``n`` of
one folder (an item per folder, never a map on one item: folder ids are free text, issue 23 rule 3),
maintained in the same transaction as the writes (list totals without counting).
``QIMPORT#<batch> / META`` — the import manifest (client, count, state).
"""
from __future__ import annotations

from collections.abc import Mapping

from lambdakit.errors import ConditionFailed, Conflict

from ..store import page_query, read_or_have, strip_keys, table

NO_FOLDER = "-"


def _item(q: dict) -> dict:
    folder = q.get("folder_id") or NO_FOLDER
    item = {**q, "pk": f"QUESTION#{q['id']}", "sk": "META", "gsi1pk": f"QBANK#{q['client_id']}",
            "gsi1sk": f"F#{folder}#{q['created_at']}#{q['id']}"}
    if q.get("import_batch_id"):
        item["gsi2pk"], item["gsi2sk"] = f"QBATCH#{q['import_batch_id']}", q["id"]
    return item


def _count_ops(client_id: str, deltas: dict[str, int]) -> list[dict]:
    """``all`` on the ``META`` item, each ``f:<folder>`` on the folder's own item."""
    ops = [{"update": (f"QCOUNT#{client_id}", "META"), "add": {"all": deltas["all"]}}]
    ops += [{"update": (f"QCOUNT#{client_id}", f"F#{k[2:]}"), "add": {"n": v}}
            for k, v in deltas.items() if k.startswith("f:") and v]
    return ops


def _chunks(questions: list[dict], room: int = 99) -> list[list[dict]]:
    """Consecutive chunks whose writes plus counter updates (``META`` and one per folder) fit one
    transaction of 100 items with ``100 - room`` to spare (the import manifest)."""
    out: list[list[dict]] = []
    cur: list[dict] = []
    folders: set[str] = set()
    for q in questions:
        f = q.get("folder_id") or NO_FOLDER
        if cur and len(cur) + 1 + 1 + len(folders | {f}) > room:
            out.append(cur)
            cur, folders = [], set()
        cur.append(q)
        folders.add(f)
    if cur:
        out.append(cur)
    return out


def _folder_deltas(questions: list[dict], sign: int) -> dict[str, int]:
    d: dict[str, int] = {"all": sign * len(questions)}
    for q in questions:
        k = f"f:{q.get('folder_id') or NO_FOLDER}"
        d[k] = d.get(k, 0) + sign
    return d


def insert(questions: list[dict], *, manifest: dict | None = None) -> None:
    """Insert questions atomically per transaction of ≤ 98 (+ counters, + manifest on the last).
    Larger imports are compensated by ``delete_many`` on failure."""
    if not questions:
        return
    t = table()
    client_id = questions[0]["client_id"]
    chunks = _chunks(questions)
    done: list[dict] = []
    try:
        for n, chunk in enumerate(chunks):
            ops = [{"put": _item(q), "condition": "attribute_not_exists(pk)"} for q in chunk]
            ops.extend(_count_ops(client_id, _folder_deltas(chunk, +1)))
            if manifest is not None and n == len(chunks) - 1:
                ops.append({"put": {**manifest, "pk": f"QIMPORT#{manifest['id']}", "sk": "META"},
                            "condition": "attribute_not_exists(pk)"})
            t.transact(ops)
            done.extend(chunk)
    except ConditionFailed:
        delete_many(done)
        raise Conflict("A question with this id already exists", code="ALREADY_EXISTS") from None
    except Exception:
        delete_many(done)
        raise


def delete_many(questions: list[dict]) -> None:
    if not questions:
        return
    t = table()
    for chunk in _chunks(questions, room=100):
        ops = [{"delete": (f"QUESTION#{q['id']}", "META")} for q in chunk]
        ops.extend(_count_ops(chunk[0]["client_id"], _folder_deltas(chunk, -1)))
        t.transact(ops)


def get(question_id: str) -> dict | None:
    return strip_keys(table().get(f"QUESTION#{question_id}", "META"))


def get_many(question_ids: list[str]) -> dict[str, dict]:
    items = table().batch_get([(f"QUESTION#{q}", "META") for q in question_ids])
    return {i["id"]: strip_keys(i) for i in items}


def page(client_id: str, folder_id: str | None, *, page: int, limit: int, cursor: str | None):
    prefix = f"F#{folder_id}#" if folder_id else None
    items, nxt = page_query(f"QBANK#{client_id}", index="gsi1", sk_prefix=prefix, page=page, limit=limit,
                            cursor=cursor, forward=True)
    return [strip_keys(i) for i in items], nxt


def folder_question_ids(client_id: str, folder_id: str, most: int) -> list[str]:
    """Ids of the tenant's questions in ``folder_id``, in creation order, at most ``most`` (a test
    built from its folder: bounded by the test's question cap, never by the bank's size)."""
    out: list[str] = []
    cursor = None
    while len(out) < most:
        items, cursor = table().query(f"QBANK#{client_id}", index="gsi1", sk_prefix=f"F#{folder_id}#",
                                      limit=most - len(out), cursor=cursor, forward=True)
        out.extend(i["id"] for i in items)
        if not cursor:
            break
    return out[:most]


def count_key(client_id: str, folder_id: str | None) -> tuple[str, str]:
    """The key of the list's total: of a folder, or of the tenant (``META``)."""
    return f"QCOUNT#{client_id}", f"F#{folder_id}" if folder_id else "META"


def count(client_id: str, folder_id: str | None, *,
          have: Mapping[tuple[str, str], dict | None] | None = None) -> int:
    """``have``: items read with authentication in this request (``identity.reads``), by key
    (``None``: no such item): the total's item when there, else it is read."""
    item = read_or_have(count_key(client_id, folder_id), have)
    return int((item or {}).get("n" if folder_id else "all") or 0)


def batch_manifest(batch_id: str) -> dict | None:
    return strip_keys(table().get(f"QIMPORT#{batch_id}", "META"))


def batch_questions(batch_id: str) -> list[dict]:
    return [strip_keys(i) for i in table().iter_query(f"QBATCH#{batch_id}", index="gsi2")]


def begin_rollback(batch_id: str, at: str) -> dict:
    """committed → rolling_back (or resume a rollback that was interrupted). ``ConditionFailed``
    when the batch is unknown or already rolled back."""
    return table().update(f"QIMPORT#{batch_id}", "META", set={"state": "rolling_back", "rollback_started_at": at},
                          condition="#s IN (:c, :r)", names={"#s": "state"},
                          values={":c": "committed", ":r": "rolling_back"}, must_exist=True)


def finish_rollback(batch_id: str, at: str, deleted: int) -> None:
    table().update(f"QIMPORT#{batch_id}", "META", set={"state": "rolled_back", "rolled_back_at": at,
                                                        "deleted": deleted})


def delete_existing(questions: list[dict]) -> int:
    """Delete questions that still exist, decrementing counters only for real deletions
    (safe under concurrent or repeated rollbacks)."""
    t = table()
    deleted = 0
    for chunk in _chunks(questions, room=100):
        ops = [{"delete": (f"QUESTION#{q['id']}", "META"), "condition": "attribute_exists(pk)"} for q in chunk]
        ops.extend(_count_ops(chunk[0]["client_id"], _folder_deltas(chunk, -1)))
        try:
            t.transact(ops)
            deleted += len(chunk)
        except ConditionFailed:
            for q in chunk:
                try:
                    t.transact([{"delete": (f"QUESTION#{q['id']}", "META"), "condition": "attribute_exists(pk)"},
                                *_count_ops(q["client_id"], _folder_deltas([q], -1))])
                    deleted += 1
                except ConditionFailed:
                    pass
    return deleted
