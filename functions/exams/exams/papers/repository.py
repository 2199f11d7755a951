"""Test items.

``TEST#<id> / META`` — the test; ``gsi1`` ``TESTS#<client>`` / ``<created>#<id>``; ``gsi2``
``TESTS#<client>#S#<status>`` / ``<created>#<id>``; ``gsi3`` ``TESTS#<client>#F#<folder>`` (lists).
``TEST#<id> / KEY`` (and ``KEY#<nnnn>`` when it does not fit) — answer key snapshot written at
publish (grading reads only these; they sort between ``ISTAT#`` and ``META``).
``TEST#<id> / PAPER#<nnnn>`` — question content snapshot (≤ 40 questions per item) for delivery.
Both snapshots are cut into items of at most ``SNAPSHOT_BYTES`` (issue 23 rule 3): 500 questions of
up to ~9,000 characters each would not fit 40 to an item, nor a key of 500 fill-in questions with
many accepted texts one item.
``TEST#<id> / CAND#<student>`` — attempts used by a candidate (attempt limit), see attempts.
``SHARE#<code> / SHARE`` — share code → test id (uniqueness by conditional put).
``TCOUNT#<client> / META`` — list totals ``all``, ``s:<status>``; ``TCOUNT#<client> / F#<folder>`` — ``n``
of one folder (an item per folder: folder ids are free text, issue 23 rule 3).
"""
from __future__ import annotations

from collections.abc import Mapping

from lambdakit.batching import runs
from lambdakit.ddbcalls import size_of
from lambdakit.errors import ConditionFailed

from ..store import page_query, read_or_have, strip_keys, table

PAPER_CHUNK = 40
SNAPSHOT_BYTES = 300_000


def _by_size(entries: list, *, most: int) -> list[list]:
    """Consecutive runs of at most ``most`` entries and ``SNAPSHOT_BYTES`` (one entry may be alone)."""
    return runs(entries, most=most, max_bytes=SNAPSHOT_BYTES, size_of=size_of)


def merge_key(items: list[dict]) -> dict | None:
    """The answer key from its items (``KEY``, ``KEY#0001``...), as one ``{"keys": {...}}``."""
    parts = [i for i in items if i["sk"] == "KEY" or i["sk"].startswith("KEY#")]
    if not parts:
        return None
    keys: dict = {}
    for i in sorted(parts, key=lambda i: i["sk"]):
        keys.update(i.get("keys") or {})
    return {**parts[0], "keys": keys}


def _index_keys(t: dict) -> dict:
    cid, created = t["client_id"], t["created_at"]
    keys = {"gsi1pk": f"TESTS#{cid}", "gsi1sk": f"{created}#{t['id']}",
            "gsi2pk": f"TESTS#{cid}#S#{t['status']}", "gsi2sk": f"{created}#{t['id']}"}
    if t.get("folder_id"):
        keys["gsi3pk"], keys["gsi3sk"] = f"TESTS#{cid}#F#{t['folder_id']}", f"{created}#{t['id']}"
    return keys


def _count_ops(client_id: str, deltas: dict[str, int]) -> list[dict]:
    """``all`` and ``s:<status>`` on the ``META`` item, each ``f:<folder>`` on the folder's own item."""
    main = {k: v for k, v in deltas.items() if not k.startswith("f:")}
    ops = [{"update": (f"TCOUNT#{client_id}", "META"), "add": main}] if main else []
    ops += [{"update": (f"TCOUNT#{client_id}", f"F#{k[2:]}"), "add": {"n": v}}
            for k, v in deltas.items() if k.startswith("f:") and v]
    return ops


def create(t: dict) -> None:
    """Test + share code in one transaction; ``ConditionFailed`` (reasons) on a share-code clash."""
    deltas = {"all": 1, f"s:{t['status']}": 1}
    if t.get("folder_id"):
        deltas[f"f:{t['folder_id']}"] = 1
    table().transact([
        {"put": {**t, **_index_keys(t), "pk": f"TEST#{t['id']}", "sk": "META"}, "condition": "attribute_not_exists(pk)"},
        {"put": {"pk": f"SHARE#{t['share_code']}", "sk": "SHARE", "test_id": t["id"], "client_id": t["client_id"]},
         "condition": "attribute_not_exists(pk)"},
        *_count_ops(t["client_id"], deltas),
    ])


def key_and_meta(test_id: str) -> tuple[dict | None, dict | None]:
    """Answer key and test in one query (``KEY``, ``KEY#<nnnn>`` when the key is cut into several
    items, and ``META`` sort next to each other)."""
    items = table().query_all(f"TEST#{test_id}", sk_between=("KEY", "META"))
    meta = next((i for i in items if i["sk"] == "META"), None)
    return merge_key(items), strip_keys(meta)


def get(test_id: str, *, consistent: bool = False) -> dict | None:
    return strip_keys(table().get(f"TEST#{test_id}", "META", consistent=consistent))


def get_key(test_id: str) -> dict | None:
    return merge_key(table().query_all(f"TEST#{test_id}", sk_prefix="KEY"))


def get_paper(test_id: str) -> list[dict]:
    out: list[dict] = []
    for item in table().query_all(f"TEST#{test_id}", sk_prefix="PAPER#"):
        out.extend(item.get("questions") or [])
    return out


def by_share_code(code: str) -> dict | None:
    return table().get(f"SHARE#{code}", "SHARE")


def update_fields(t: dict, changes: dict, *, expected_status: str, expected_version: int) -> dict:
    """Optimistic update (version check) keeping index keys and counters in step."""
    new = {**t, **changes}
    ops_set = {**changes, **_index_keys(new), "version": expected_version + 1}
    remove = [] if new.get("folder_id") else ["gsi3pk", "gsi3sk"]
    deltas: dict[str, int] = {}
    if new["status"] != t["status"]:
        deltas[f"s:{t['status']}"] = -1
        deltas[f"s:{new['status']}"] = 1
    if new.get("folder_id") != t.get("folder_id"):
        if t.get("folder_id"):
            deltas[f"f:{t['folder_id']}"] = -1
        if new.get("folder_id"):
            deltas[f"f:{new['folder_id']}"] = 1
    ops = [{"update": (f"TEST#{t['id']}", "META"), "set": ops_set, "remove": remove,
            "condition": "#st = :st AND #ver = :ver AND attribute_not_exists(deleted_at)",
            "names": {"#st": "status", "#ver": "version"}, "values": {":st": expected_status, ":ver": expected_version}}]
    if deltas:
        ops.extend(_count_ops(t["client_id"], deltas))
    table().transact(ops)
    new["version"] = expected_version + 1
    return new


def publish(t: dict, key: dict, paper: list[dict], now: str, *, question_ids: list[str] | None = None) -> dict:
    """``question_ids``: the questions the test was built with on publish (from its folder), kept on it."""
    new = {**t, "status": "published", "published_at": now, "updated_at": now}
    built = {"question_ids": question_ids} if question_ids is not None else {}
    new.update(built)
    ops: list[dict] = [
        {"update": (f"TEST#{t['id']}", "META"),
         "set": {"status": "published", "published_at": now, "updated_at": now, **_index_keys(new),
                 "version": int(t.get("version") or 0) + 1, "question_count": len(paper), **built},
         "condition": "#st = :d AND attribute_not_exists(deleted_at)", "names": {"#st": "status"},
         "values": {":d": "draft"}},
        *_count_ops(t["client_id"], {"s:draft": -1, "s:published": 1}),
    ]
    for n, run in enumerate(_by_size(list(key.items()), most=len(key) or 1)):
        ops.append({"put": {"pk": f"TEST#{t['id']}", "sk": f"KEY#{n:04d}" if n else "KEY", "keys": dict(run)}})
    for n, qs in enumerate(_by_size(paper, most=PAPER_CHUNK)):
        ops.append({"put": {"pk": f"TEST#{t['id']}", "sk": f"PAPER#{n:04d}", "questions": qs}})
    table().transact(ops)
    new["question_count"] = len(paper)
    return new


def soft_delete(t: dict, now: str) -> None:
    deltas = {"all": -1, f"s:{t['status']}": -1}
    if t.get("folder_id"):
        deltas[f"f:{t['folder_id']}"] = -1
    table().transact([
        {"update": (f"TEST#{t['id']}", "META"), "set": {"deleted_at": now, "updated_at": now},
         "remove": ["gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "gsi3pk", "gsi3sk"],
         "condition": "attribute_not_exists(deleted_at) AND #st = :st", "names": {"#st": "status"},
         "values": {":st": t["status"]}},
        {"delete": (f"SHARE#{t['share_code']}", "SHARE")},
        *_count_ops(t["client_id"], deltas),
    ])


def page(client_id: str, status: str | None, folder_id: str | None, *, page: int, limit: int, cursor: str | None):
    if folder_id:
        pk, index = f"TESTS#{client_id}#F#{folder_id}", "gsi3"
    elif status:
        pk, index = f"TESTS#{client_id}#S#{status}", "gsi2"
    else:
        pk, index = f"TESTS#{client_id}", "gsi1"
    items, nxt = page_query(pk, index=index, page=page, limit=limit, cursor=cursor, forward=False)
    items = [strip_keys(i) for i in items]
    if folder_id and status:
        items = [i for i in items if i.get("status") == status]
    return items, nxt


def count_key(client_id: str, folder_id: str | None) -> tuple[str, str]:
    """The key of the list's total: of a folder, or of the tenant (``META``)."""
    return f"TCOUNT#{client_id}", f"F#{folder_id}" if folder_id else "META"


def count(client_id: str, status: str | None, folder_id: str | None, *,
          have: Mapping[tuple[str, str], dict | None] | None = None) -> int:
    """``have``: items read with authentication in this request (``identity.reads``), by key
    (``None``: no such item): the total's item when there, else it is read."""
    item = read_or_have(count_key(client_id, folder_id), have) or {}
    if folder_id:
        return int(item.get("n") or 0)
    return int(item.get(f"s:{status}" if status else "all") or 0)


def recent_published(client_id: str, limit: int) -> list[dict]:
    items, _ = table().query(f"TESTS#{client_id}#S#published", index="gsi2", limit=limit, forward=False)
    return [strip_keys(i) for i in items]


def recent(client_id: str, limit: int) -> list[dict]:
    items, _ = table().query(f"TESTS#{client_id}", index="gsi1", limit=limit, forward=False)
    return [strip_keys(i) for i in items]


__all__ = ["ConditionFailed"]
