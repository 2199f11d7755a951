"""CSV import rules, shared by the in-request import and the asynchronous worker.

Columns: ``email`` (required), ``first_name``, ``last_name``, ``phone``, ``tags`` (``;``
separates tags in a cell), ``status``; every other column becomes a custom field (empty cells are
ignored). Header names are matched case-insensitively. Mailchimp, SendGrid and listmonk exports
are recognised by their header and mapped (``platforms``); an imported contact keeps the
unsubscribed/bounced status of its row and an import never makes such a contact active again.
A bad row is reported as
``{line, error}`` (line numbers count the header as line 1) and never stops the others.
A repeated email inside the file is skipped after its first row. Existing contacts are
skipped, or merged when ``update_existing`` (non-empty cells overwrite, tags and lists are
added).

Writes: rows are handled in chunks of ``CHUNK`` (100; the job's progress commits per chunk).
Inside a chunk, each group of ``PROBE`` (25) rows costs ONE consistent BatchGetItem of the
rows' home contact keys and guard keys (≤ 50 keys): that finds existing contacts. New
contacts of the chunk then go out with BatchWriteItem at their home keys (25 items a
call: one item per plain row, so ≤ 1 call per 25 rows; a row with ``list_id`` or tags adds
one membership item per list/tag); counter deltas are merged per counter item and added
once per chunk, in a transaction under the chunk's marker (``repository.write_batch``: a
constant number of extra calls per chunk, read with the first probe). A new address whose
home key holds a contact that has moved to another address is created alone, in a
transaction, with a fallback id and a guard.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass, field
from typing import Callable, Iterator

from lambdakit import clock, ids
from lambdakit.errors import ValidationFailed
from lambdakit.observability import count as metric

from ..common import keys
from ..common.emails import InvalidEmail, normalise_email
from . import platforms
from . import repository as repo
from .fields import MAX_CUSTOM_FIELDS, MAX_LISTS, MAX_TAGS, clean_custom, clean_tags

STANDARD = ("email", "first_name", "last_name", "phone", "tags", "status")
CHUNK = 100
PROBE = 25


@dataclass
class ImportOptions:
    list_id: str | None = None
    tags: list[str] = field(default_factory=list)
    update_existing: bool = False


@dataclass
class ChunkResult:
    rows: int = 0
    imported: int = 0
    updated: int = 0
    skipped: int = 0
    errors: list[dict] = field(default_factory=list)


def parse_bool(value: str | None, name: str) -> bool:
    if value is None or value.strip() == "":
        return False
    v = value.strip().lower()
    if v in ("true", "1", "yes", "on"):
        return True
    if v in ("false", "0", "no", "off"):
        return False
    raise ValidationFailed(f"{name} must be true or false", fields={name: "Must be true or false"})


def parse_form_tags(value: str | None) -> list[str]:
    try:
        return clean_tags([t for t in (value or "").split(",")])
    except ValueError as exc:
        raise ValidationFailed("Invalid tags", fields={"tags": str(exc)}) from None


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValidationFailed("The file must be UTF-8 encoded CSV", fields={"file": "Must be UTF-8 CSV"}) from None


def rows(text: str) -> tuple[platforms.Mapping, Iterator[tuple[int, dict[str, str]]]]:
    """The header's column mapping and ``(line, row)`` pairs of canonical rows."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise ValidationFailed("The file is empty", fields={"file": "Empty file"}) from None
    except csv.Error:
        raise ValidationFailed("The file is not valid CSV", fields={"file": "Invalid CSV"}) from None
    mapping = platforms.detect(header)
    if "email" not in {t for _, t in mapping.columns}:
        raise ValidationFailed("The CSV needs an email column", fields={"file": "Missing email column"})

    def gen() -> Iterator[tuple[int, dict[str, str]]]:
        line = reader.line_num
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                yield line + 1, {"__error__": f"Malformed CSV row: {exc}"}
                line = reader.line_num
                continue
            start, line = line + 1, reader.line_num
            if not any(c.strip() for c in cells):
                continue
            row = platforms.apply(mapping, cells)
            if len(cells) > len(header):
                row["__error__"] = "More cells than header columns"
            yield start, row

    return mapping, gen()


def count_rows(text: str) -> int:
    _, it = rows(text)
    return sum(1 for _ in it)


def _record(row: dict[str, str], opts: ImportOptions) -> dict:
    if "__error__" in row:
        raise ValueError(row["__error__"])
    try:
        email = normalise_email(row.get("email", ""))
    except InvalidEmail as exc:
        raise ValueError(str(exc)) from None
    tags = clean_tags([t for t in (row.get("tags") or "").split(";")] + opts.tags)
    custom = clean_custom({k: v.strip() for k, v in row.items() if k not in STANDARD and v and v.strip()})
    rec = {"email": email, "tags": tags, "custom_fields": custom,
           "status": platforms.status_of(row.get("status") or "")}
    for k in ("first_name", "last_name", "phone"):
        v = (row.get(k) or "").strip()
        if len(v) > (50 if k == "phone" else 200):
            raise ValueError(f"{k} is too long")
        rec[k] = v
    return rec


def check_rows(batch: list[tuple[int, dict[str, str]]], opts: ImportOptions) -> dict:
    """The first pass (``dry_run``): every row validated, nothing read or written."""
    seen: set[str] = set()
    errors: list[dict] = []
    statuses = {"active": 0, "unsubscribed": 0, "bounced": 0}
    skipped = 0
    for line, row in batch:
        try:
            rec = _record(row, opts)
        except ValueError as exc:
            errors.append({"line": line, "error": str(exc)})
            continue
        if rec["email"].lower() in seen:
            skipped += 1
            continue
        seen.add(rec["email"].lower())
        statuses[rec["status"]] += 1
    return {"imported": 0, "updated": 0, "skipped": skipped, "errors": errors, "valid": len(seen),
            "statuses": statuses}


def import_chunk(a: str, batch: list[tuple[int, dict[str, str]]], opts: ImportOptions, seen: set[str],
                 merge: Callable[[str, str, dict, ImportOptions], bool], scope: str = "") -> ChunkResult:
    """Validate, de-duplicate and write one chunk of rows. ``scope`` names a job's chunk
    (``<job id>#<first row>``); an in-request import has none."""
    res = ChunkResult(rows=len(batch))
    good: list[tuple[int, dict]] = []
    for line, row in batch:
        try:
            rec = _record(row, opts)
        except ValueError as exc:
            res.errors.append({"line": line, "error": str(exc)})
            continue
        e = rec["email"].lower()
        if e in seen:
            res.skipped += 1
            continue
        seen.add(e)
        good.append((line, rec))
    # The chunk's marker (issue 23 rule 2), read by the first probe. A pending marker: an earlier
    # attempt of this very chunk did not finish; the contacts it created are written again with the
    # same seq and created_at (the same items) and counted under its nonce (the parts not added
    # yet), so never twice nor not at all. A done marker of the same job chunk (``scope``): those
    # contacts were this chunk's (its progress commit was lost) and count as imported again.
    ck = chunk_key(opts, [rec for _, rec in good], scope)
    probes, marker = repo.probe_import(a, [r["email"].lower() for _, r in good], ck) if good else ({}, None)
    pending = marker if marker and marker.get("status") == "pending" else None
    earlier: dict[str, str] = (marker or {}).get("seqs") or {} if pending is not None or scope else {}
    parts = int((pending or {}).get("parts") or 0)
    made = str((marker or {}).get("created_at") or "")
    again: list[dict] = []  # ops of the pending marker's contacts (counted under its nonce)
    ops: list[dict] = []
    seqs: dict[str, str] = {}
    now = clock.now_iso()
    for line, rec in good:
        e = rec["email"].lower()
        probe = probes[e]
        home = keys.home_contact_id(a, e)
        seq = earlier.get(home)
        held = probe.contact if probe.contact_id == home else None
        if seq is not None and held is not None and held.get("seq") == seq:
            if pending is not None:  # written by the earlier attempt: counted now unless already
                cops = repo.change_ops(a, None, _new_contact(a, home, seq, made, rec, opts))
                if int(held.get("version") or 1) != 1 or parts:  # changed since, or all items written
                    cops = [op for op in cops if "update" in op]
                again.extend(cops)
            res.imported += 1
            continue
        if seq is not None and pending is not None and not parts and probe.contact_id is None \
                and not probe.home_taken:  # not written by the earlier attempt yet
            again.extend(repo.change_ops(a, None, _new_contact(a, home, seq, made, rec, opts)))
            res.imported += 1
            continue
        if probe.contact_id is not None:
            if not opts.update_existing:
                res.skipped += 1
                continue
            try:
                changed = merge(a, probe.contact_id, rec, opts)
            except Exception as exc:  # noqa: BLE001 - a bad row never stops the others
                res.errors.append({"line": line, "error": getattr(exc, "message", None) or str(exc)})
                continue
            res.updated += 1 if changed else 0
            res.skipped += 0 if changed else 1
            continue
        c = _new_contact(a, home, ids.sortable_id().lower(), now, rec, opts)
        if probe.home_taken:  # rare: its own transaction, fallback id + guard
            c["id"] = ids.sortable_id().lower()
            try:
                repo.write(repo.change_ops(a, None, c))
            except repo.WriteConflict as exc:
                res.errors.append({"line": line, "error": "A contact with this email already exists"
                                   if exc.kind == "email" else "The contact could not be written; retry"})
                continue
        else:
            ops.extend(repo.change_ops(a, None, c))
            seqs[c["id"]] = c["seq"]
        res.imported += 1
    if again and pending is not None:
        repo.write_batch(again, chunk=repo.ImportChunk(a, ck, earlier, made, str(pending["nonce"]), put_marker=False,
                                                       parts=parts))
    if ops:
        repo.write_batch(ops, chunk=repo.ImportChunk(a, ck, seqs, now, ids.sortable_id().lower()))
    chunk_metrics(res)
    return res


def chunk_key(opts: ImportOptions, recs: list[dict], scope: str = "") -> str:
    """The name of a chunk's marker: a hash of the import options, the chunk's valid rows and
    its ``scope`` (``<job id>#<first row>`` for a job's chunk): a retry of the chunk has the
    same; another file, other options or another job another."""
    blob = json.dumps([scope, opts.list_id, sorted(opts.tags), opts.update_existing, recs], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:40]


def _new_contact(a: str, cid: str, seq: str, now: str, rec: dict, opts: ImportOptions) -> dict:
    return {"id": cid, "seq": seq, "account_id": a, "email": rec["email"], "first_name": rec["first_name"],
            "last_name": rec["last_name"], "phone": rec["phone"], "tags": rec["tags"],
            "custom_fields": rec["custom_fields"], "lists": [opts.list_id] if opts.list_id else [],
            "status": rec.get("status") or "active", "created_at": now, "updated_at": now, "version": 1}


def chunk_metrics(res: ChunkResult) -> None:
    """Business metrics of one written chunk, as values (not one data point per row). Skipped
    counts every row not written: repeats, existing contacts left alone, invalid rows."""
    for name, value in (("ImportRowsImported", res.imported), ("ImportRowsUpdated", res.updated),
                        ("ImportRowsSkipped", res.skipped + len(res.errors))):
        if value:
            metric(name, value)


def merge_fields(old: dict, rec: dict, opts: ImportOptions) -> dict | None:
    """The merged contact for ``update_existing``, or ``None`` when nothing changes."""
    new = dict(old)
    for k in ("first_name", "last_name", "phone"):
        if rec.get(k):
            new[k] = rec[k]
    new["tags"] = list(dict.fromkeys([*(old.get("tags") or []), *rec["tags"]]))
    new["custom_fields"] = {**(old.get("custom_fields") or {}), **rec["custom_fields"]}
    lists = list(old.get("lists") or [])
    if opts.list_id and opts.list_id not in lists:
        lists.append(opts.list_id)
    new["lists"] = lists
    if rec.get("status", "active") != "active" and old.get("status") == "active":
        new["status"] = rec["status"]  # an unsubscribed/cleaned row unsubscribes; never the reverse
    if len(new["tags"]) > MAX_TAGS or len(lists) > MAX_LISTS:
        raise ValueError(f"at most {MAX_TAGS} tags and {MAX_LISTS} lists per contact")
    if len(new["custom_fields"]) > MAX_CUSTOM_FIELDS:  # issue 23 rule 3: merges never grow a contact past the cap
        raise ValueError(f"at most {MAX_CUSTOM_FIELDS} custom fields per contact")
    if all(new.get(k) == old.get(k) for k in ("first_name", "last_name", "phone", "tags", "custom_fields", "lists",
                                          "status")):
        return None
    return new
