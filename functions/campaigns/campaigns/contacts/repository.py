"""Contact items and every index/counter that follows them.

Items (``a`` = account id, ``cid`` = contact id, ``e`` = lower-cased, trimmed email):

- contact ``pk=ACCT#a#C#cid, sk=C``: the record (with ``version``, ``email_l`` and ``seq``, a
  ULID of its creation time). ``cid`` is ``keys.home_contact_id(a, e)`` (derived from the
  address) unless the home key was taken at creation (see guards). GSIs:
  gsi1 ``ACCT#a#CONTACTS`` / ``seq`` (all, newest first), gsi2 ``ACCT#a#CSTATUS#<status>`` / ``seq``,
  gsi3 ``ACCT#a#CEMAIL`` / ``e`` (email prefix search), gsi4 ``ACCT#a#CNAME`` / ``"<first last>#cid"``
  and gsi5 ``ACCT#a#CLAST`` / ``"<last>#cid"`` (name prefix search; only when the name is set).
- moved-email guard ``pk=ACCT#a#EMAIL#e, sk=EMAIL`` → ``contact_id``: exists only while the
  contact holding ``e`` is not at ``home_contact_id(a, e)``.
- list member ``pk=ACCT#a#LIST#<lid>#M, sk=C#<seq>#cid`` (``contact_id``, ``status``); tag member
  ``pk=ACCT#a#TAG#<tag>, sk=C#<seq>#cid``.
- counters: ``STATS#CONTACTS`` (total + per status), list item (``contact_count`` + per status),
  ``TAGSTAT#<tag>`` (total + per status).

Uniqueness of an address ``e`` (case-insensitive) — a contact "claims" ``e``:
- at its home key (``cid == home(e)``): the contact put itself (``attribute_not_exists`` on
  create, the version on update) plus a ConditionCheck that no guard for ``e`` exists;
- elsewhere: a conditional put of the guard for ``e`` plus a ConditionCheck that the item at
  ``home(e)`` is absent or holds another address.
Changing the email away from a guarded address deletes that guard in the same transaction.

``change_ops(a, old, new)`` turns any transition (create, update, delete) into one
transaction, so records, guards, indexes and counters never disagree.
"""
from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

from lambdakit import clock
from lambdakit.conditions import Attr
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Contention

from ..common import keys
from ..settings import settings


class WriteConflict(Exception):
    """A transaction was cancelled: ``kind`` is ``email`` (address taken), ``version`` (the
    contact changed meanwhile) or ``list`` (a list vanished)."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def table() -> Table:
    return Table(settings().table_name)


def _name_l(c: dict) -> str:
    return " ".join(x for x in ((c.get("first_name") or "").strip(), (c.get("last_name") or "").strip()) if x).lower()


def contact_item(a: str, c: dict) -> dict:
    pk, sk = keys.contact_key(a, c["id"])
    e = c["email"].strip().lower()
    order = keys.contact_order(c)
    item = {**c, "pk": pk, "sk": sk, "email_l": e,
            "gsi1pk": keys.all_contacts_gsi(a), "gsi1sk": order,
            "gsi2pk": keys.status_gsi(a, c["status"]), "gsi2sk": order,
            "gsi3pk": f"ACCT#{a}#CEMAIL", "gsi3sk": e}
    for attr in ("gsi4pk", "gsi4sk", "gsi5pk", "gsi5sk"):
        item.pop(attr, None)
    name = _name_l(c)
    if name:
        item.update(gsi4pk=f"ACCT#{a}#CNAME", gsi4sk=f"{name}#{c['id']}")
    last = (c.get("last_name") or "").strip().lower()
    if last:
        item.update(gsi5pk=f"ACCT#{a}#CLAST", gsi5sk=f"{last}#{c['id']}")
    return item


def is_home(a: str, cid: str, email_l: str) -> bool:
    return cid == keys.home_contact_id(a, email_l)


def _claim_ops(a: str, cid: str, e: str) -> list[dict]:
    """Ops that make ``cid`` the holder of address ``e`` (see the module docstring)."""
    if is_home(a, cid, e):
        return [{"check": keys.email_key(a, e), "condition": "attribute_not_exists(pk)", "_kind": "email"}]
    return [{"put": {"pk": keys.email_key(a, e)[0], "sk": keys.email_key(a, e)[1], "contact_id": cid},
             "condition": "attribute_not_exists(pk)", "_kind": "email"},
            {"check": keys.contact_key(a, keys.home_contact_id(a, e)),
             "condition": "attribute_not_exists(pk) OR #el <> :el", "names": {"#el": "email_l"},
             "values": {":el": e}, "_kind": "email"}]


def change_ops(a: str, old: dict | None, new: dict | None, *, live_lists: set[str] | None = None) -> list[dict]:
    """Transaction ops for ``old → new`` (either may be ``None``). ``live_lists``: the old
    contact's lists that still exist (a deleted list's counters are not touched)."""
    ops: list[dict] = []
    cur = new if new is not None else old
    assert cur is not None
    cid = cur["id"]
    s0, s1 = (old or {}).get("status"), (new or {}).get("status")
    e0 = (old or {}).get("email", "").strip().lower()
    e1 = (new or {}).get("email", "").strip().lower()
    # the record
    if new is not None:
        if old:
            ops.append({"put": contact_item(a, new), "condition": "#v = :v", "names": {"#v": "version"},
                        "values": {":v": old["version"]}, "_kind": "version"})
        else:  # a create at the home key fails here when the key is taken ("home")
            ops.append({"put": contact_item(a, new), "condition": "attribute_not_exists(pk)",
                        "_kind": "home" if is_home(a, cid, e1) else "version"})
    else:
        assert old is not None
        ops.append({"delete": keys.contact_key(a, cid), "condition": "#v = :v", "names": {"#v": "version"},
                    "values": {":v": old["version"]}, "_kind": "version"})
    # uniqueness: release the old address's guard, claim the new address
    if old and e0 != e1 and not is_home(a, cid, e0):
        ops.append({"delete": keys.email_key(a, e0), "_kind": "version"})
    if new is not None and e0 != e1:
        ops.extend(_claim_ops(a, cid, e1))
    # account counters
    add: dict[str, int] = defaultdict(int)
    if s0:
        add["total"] -= 1
        add[s0] -= 1
    if s1:
        add["total"] += 1
        add[s1] += 1
    add = {k: v for k, v in add.items() if v}
    if add:
        ops.append({"update": keys.stats_key(a, "CONTACTS"), "add": add, "_kind": "stats"})
    msk = keys.member_sk(cur)
    # lists
    l0_all = set((old or {}).get("lists") or ())
    l0 = l0_all & (live_lists if live_lists is not None else l0_all)
    l1 = set((new or {}).get("lists") or ())
    for lid in sorted(l0_all | l1):
        member = (keys.list_members_pk(a, lid), msk)
        delta = _delta(s0 if lid in l0 else None, s1 if lid in l1 else None, count="contact_count")
        if lid in l1:
            if lid not in l0_all or s0 != s1:
                ops.append({"put": {"pk": member[0], "sk": member[1], "contact_id": cid, "status": s1},
                            "_kind": "list"})
        elif lid in l0_all:
            ops.append({"delete": member, "_kind": "list"})
        if delta:
            ops.append({"update": keys.list_key(a, lid), "add": delta, "condition": "attribute_exists(pk)",
                        "_kind": "list"})
    # tags
    t0, t1 = set((old or {}).get("tags") or ()), set((new or {}).get("tags") or ())
    for tag in sorted(t0 | t1):
        member = (keys.tag_members_pk(a, tag), msk)
        if tag in t1 and (tag not in t0 or s0 != s1):
            ops.append({"put": {"pk": member[0], "sk": member[1], "contact_id": cid, "status": s1},
                        "_kind": "tag"})
        elif tag not in t1:
            ops.append({"delete": member, "_kind": "tag"})
        delta = _delta(s0 if tag in t0 else None, s1 if tag in t1 else None, count="total")
        if delta:
            ops.append({"update": keys.tag_stats_key(a, tag), "add": delta, "set": {"tag": tag}, "_kind": "tag"})
    return ops


def _delta(s0: str | None, s1: str | None, *, count: str) -> dict[str, int]:
    d: dict[str, int] = defaultdict(int)
    if s0:
        d[count] -= 1
        d[s0] -= 1
    if s1:
        d[count] += 1
        d[s1] += 1
    return {k: v for k, v in d.items() if v}


def write(ops: list[dict]) -> None:
    """Run ``change_ops`` as one transaction (``Table.transact`` rides out contention)."""
    if len(ops) > 100:
        raise WriteConflict("too_many")
    clean = [{k: v for k, v in op.items() if k != "_kind"} for op in ops]
    try:
        table().transact(clean)
    except ConditionFailed as exc:
        for op, reason in zip(ops, exc.reasons, strict=False):
            if reason == "ConditionalCheckFailed":
                raise WriteConflict(op["_kind"]) from None
        raise WriteConflict("version") from None


class ImportChunk(NamedTuple):
    """An import chunk's once-only counting (issue 23 rule 2): ``ck`` names the chunk (a hash of
    its options and valid rows), ``seqs`` maps the contact ids it creates to their ``seq``,
    ``created_at`` is their creation time and ``nonce`` names this counting. A retry of a
    pending marker passes ``put_marker=False`` and the marker's ``parts`` already added."""

    a: str
    ck: str
    seqs: dict[str, str]
    created_at: str
    nonce: str
    put_marker: bool = True
    parts: int = 0


def write_batch(ops: list[dict], *, chunk: ImportChunk | None = None) -> int:
    """Apply the ops of many *new* contacts at their home keys without transactions: items
    with BatchWriteItem (25 a call), counter deltas merged into one update per counter item.
    The uniqueness checks (``check`` ops) were done just before by ``probe_import``.
    Returns the number of items written.

    With ``chunk`` (an import chunk, issue 23 rule 2): a ``pending`` chunk marker naming the
    created ids (with their ``seq``) is put *before* the items; the merged counter deltas are
    then added in transactions of ≤ 99 counter items, each also moving the marker's ``parts``
    from n to n + 1 under its ``nonce`` (the last one sets it ``done``): a resent or repeated
    part fails that condition and is confirmed from the marker. A retry of the chunk that finds
    the marker pending (``probe_import``) writes the same items again and adds the parts not
    yet added, under the same nonce: a failure anywhere leaves the counters neither short nor
    doubled. Extra calls per chunk: one PutItem, and one TransactWriteItems per 99 counter
    items instead of one UpdateItem per counter item."""
    puts: list[dict] = []
    counters: dict[tuple[str, str], dict] = {}
    for op in ops:
        if "check" in op:
            continue
        if "delete" in op:
            raise ValueError("write_batch only creates")
        if "put" in op:
            puts.append(op["put"])
        elif "update" in op:
            entry = counters.setdefault(op["update"], {"add": defaultdict(int), "set": {}})
            for k, v in (op.get("add") or {}).items():
                entry["add"][k] += v
            entry["set"].update(op.get("set") or {})
    updates = [{"update": k, "add": add, **({"set": e["set"]} if e["set"] else {})}
               for k, e in sorted(counters.items()) if (add := {n: v for n, v in e["add"].items() if v})]
    if chunk is None:
        table().batch_write(puts=puts)
        for u in updates:
            table().update(*u["update"], add=u["add"], set=u.get("set"), return_values="NONE")
        return len(puts)
    mk = chunk_marker_key(chunk.a, chunk.ck)
    if chunk.put_marker:
        table().put({"pk": mk[0], "sk": mk[1], "status": "pending", "seqs": chunk.seqs, "created_at": chunk.created_at,
                     "nonce": chunk.nonce, "parts": 0, "ttl": int(clock.now_ts()) + CHUNK_MARKER_TTL})
    if puts:
        table().batch_write(puts=puts)
    n = -(-len(updates) // 99)
    if n == 0:
        table().update(*mk, set={"status": "done"}, return_values="NONE")
    for j in range(chunk.parts, n):
        mark = {"update": mk, "set": {"parts": j + 1, **({"status": "done"} if j == n - 1 else {})},
                "condition": "#n = :n AND #p = :p", "names": {"#n": "nonce", "#p": "parts"},
                "values": {":n": chunk.nonce, ":p": j}}
        _once([mark, *updates[j * 99:(j + 1) * 99]], mk, chunk.nonce, j + 1)
    return len(puts)


CHUNK_MARKER_TTL = 7 * 86400


def chunk_marker_key(a: str, ck: str) -> tuple[str, str]:
    return keys.acct(a), f"IMPCHUNK#{ck}"


def _once(ops: list[dict], mk: tuple[str, str], nonce: str, parts: int) -> None:
    """One counter transaction of a chunk: a condition failure is "already added" only when the
    marker read back has this nonce and at least these parts (else retried once, then 503)."""
    for _try in range(2):
        try:
            table().transact(ops)
            return
        except ConditionFailed as exc:
            if not (exc.reasons and exc.reasons[0] == "ConditionalCheckFailed"):
                raise
            m = table().get(*mk, consistent=True) or {}
            if m.get("nonce") == nonce and int(m.get("parts") or 0) >= parts:
                return
            if m.get("nonce") != nonce or int(m.get("parts") or 0) != parts - 1:
                break
    raise Contention("The import counters could not be updated, please retry", reasons=["ConditionUnconfirmed"])


# ---------------------------------------------------------------- reads
def get(a: str, cid: str, *, consistent: bool = False) -> dict | None:
    return table().get(*keys.contact_key(a, cid), consistent=consistent)


class Probe(NamedTuple):
    """What holds an address: ``contact_id`` of its holder (``None`` when free); ``home_taken``:
    the address is free but its home key holds a contact that moved to another address (a
    new contact of this address needs a fallback id and a guard)."""

    contact_id: str | None
    home_taken: bool = False
    contact: dict | None = None


def probe_emails(a: str, emails_l: list[str], *, extra: list[tuple[str, str]] | None = None,
                 found: dict | None = None) -> dict[str, Probe]:
    """One consistent BatchGetItem of the home contact keys and guard keys of the addresses
    (≤ 50 keys for 25 addresses); ``extra`` keys are read in the same call, the items found
    (by key) are added to ``found``."""
    emails_l = list(dict.fromkeys(emails_l))
    if not emails_l and not extra:
        return {}
    home = {e: keys.home_contact_id(a, e) for e in emails_l}
    want = [keys.contact_key(a, home[e]) for e in emails_l] + [keys.email_key(a, e) for e in emails_l]
    got = {(i["pk"], i["sk"]): i for i in table().batch_get([*want, *(extra or [])], consistent=True)}
    if found is not None:
        found.update(got)
    out: dict[str, Probe] = {}
    for e in emails_l:
        guard = got.get(keys.email_key(a, e))
        contact = got.get(keys.contact_key(a, home[e]))
        if guard is not None:
            out[e] = Probe(guard["contact_id"])
        elif contact is not None and contact.get("email_l") == e:
            out[e] = Probe(contact["id"], contact=contact)
        else:
            out[e] = Probe(None, home_taken=contact is not None)
    return out


def probe_import(a: str, emails_l: list[str], ck: str) -> tuple[dict[str, Probe], dict | None]:
    """``probe_emails`` for an import chunk, 25 addresses a call, whose first BatchGetItem also
    reads the chunk's marker (no extra call): returns the probes and the marker (or ``None``)."""
    probes: dict[str, Probe] = {}
    marker = None
    mk = chunk_marker_key(a, ck)
    for i in range(0, max(len(emails_l), 1), 25):
        got: dict = {}
        probes.update(probe_emails(a, emails_l[i:i + 25], extra=[mk] if i == 0 else None, found=got))
        marker = got.get(mk) if i == 0 else marker
    return probes, marker


def find_by_emails(a: str, emails_l: list[str]) -> dict[str, dict]:
    """The contacts holding these addresses (keys: the lower-cased addresses): one
    BatchGetItem, plus one for addresses held through a guard."""
    probes = probe_emails(a, [e.strip().lower() for e in emails_l if e and e.strip()])
    out = {e: p.contact for e, p in probes.items() if p.contact is not None}
    moved = {p.contact_id: e for e, p in probes.items() if p.contact is None and p.contact_id}
    if moved:
        for cid, c in contacts_by_id(a, list(moved), consistent=True).items():
            out[moved[cid]] = c
    return out


def contacts_by_id(a: str, cids: list[str], *, consistent: bool = False) -> dict[str, dict]:
    if not cids:
        return {}
    got = table().batch_get([keys.contact_key(a, c) for c in cids], consistent=consistent)
    return {i["id"]: i for i in got}


def lists_by_id(a: str, list_ids: list[str]) -> dict[str, dict]:
    """The list items (which carry the member counters ``change_ops`` keeps) of the ids that exist."""
    if not list_ids:
        return {}
    return {i["id"]: i for i in table().batch_get([keys.list_key(a, i) for i in list_ids])}


def get_list(a: str, list_id: str) -> dict | None:
    return table().get(*keys.list_key(a, list_id))


def counters(a: str, *, list_id: str | None = None, tag: str | None = None) -> dict[str, dict | None]:
    """The contact, list and tag counter items in one BatchGetItem."""
    want = {"contacts": keys.stats_key(a, "CONTACTS")}
    if list_id:
        want["list"] = keys.list_key(a, list_id)
    if tag:
        want["tag"] = keys.tag_stats_key(a, tag)
    got = {(i["pk"], i["sk"]): i for i in table().batch_get(list(want.values()))}
    return {name: got.get(k) for name, k in want.items()}


def query_source(source: str, a: str, *, value: str | None, status: str | None, limit: int,
                 cursor: dict | None) -> tuple[list[dict], dict | None]:
    """One page of an index: ``all``, ``status``, ``list``, ``tag``, ``email`` (prefix),
    ``name`` (prefix of "first last"), ``last`` (prefix of last name)."""
    t = table()
    flt = Attr("status").eq(status) if status and source not in ("all", "status") else None
    if source == "all":
        return t.query(keys.all_contacts_gsi(a), index="gsi1", limit=limit, cursor=cursor, forward=False)
    if source == "status":
        return t.query(keys.status_gsi(a, status or ""), index="gsi2", limit=limit, cursor=cursor, forward=False)
    if source == "list":
        return t.query(keys.list_members_pk(a, value or ""), filter=flt, limit=limit, cursor=cursor, forward=False)
    if source == "tag":
        return t.query(keys.tag_members_pk(a, value or ""), filter=flt, limit=limit, cursor=cursor, forward=False)
    if source == "email":
        return t.query(f"ACCT#{a}#CEMAIL", index="gsi3", sk_prefix=value, filter=flt, limit=limit, cursor=cursor)
    if source == "name":
        return t.query(f"ACCT#{a}#CNAME", index="gsi4", sk_prefix=value, filter=flt, limit=limit, cursor=cursor)
    if source == "last":
        return t.query(f"ACCT#{a}#CLAST", index="gsi5", sk_prefix=value, filter=flt, limit=limit, cursor=cursor)
    raise ValueError(source)


SOURCE_INDEX = {"all": "gsi1", "status": "gsi2", "list": None, "tag": None, "email": "gsi3", "name": "gsi4",
                "last": "gsi5"}


def source_pk(source: str, a: str, value: str | None, status: str | None) -> tuple[str, str]:
    """(attribute, value) of the partition key a cursor of ``source`` must carry."""
    return {
        "all": ("gsi1pk", keys.all_contacts_gsi(a)),
        "status": ("gsi2pk", keys.status_gsi(a, status or "")),
        "list": ("pk", keys.list_members_pk(a, value or "")),
        "tag": ("pk", keys.tag_members_pk(a, value or "")),
        "email": ("gsi3pk", f"ACCT#{a}#CEMAIL"),
        "name": ("gsi4pk", f"ACCT#{a}#CNAME"),
        "last": ("gsi5pk", f"ACCT#{a}#CLAST"),
    }[source]


def members_of_list(a: str, list_id: str, limit: int, cursor: dict | None) -> tuple[list[dict], dict | None]:
    return table().query(keys.list_members_pk(a, list_id), limit=limit, cursor=cursor)
