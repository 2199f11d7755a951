"""Contacts domain: create/read/update/erase, filtered listing with counter-backed totals,
and the functions the sending slice uses.

For the sending slice (all take the account id; all are tenant-safe):

- ``get_contact(a, contact_id) -> dict | None`` and ``find_by_email(a, email) -> dict | None``;
- ``list_members_page(a, list_id, cursor=None, page_size=100, status="active")`` →
  ``(contacts, next_cursor)``: the list's members in pages, for fan-out;
- ``active_count(a, list_id) -> int``: active members (estimated recipients), from counters;
- ``set_status(a, contact_id, status) -> (contact, changed)``: mark a contact
  ``unsubscribed``/``bounced`` (or ``active``) with every counter kept right; idempotent;
  ``changed`` is True for exactly one of concurrent callers.
"""
from __future__ import annotations

import itertools
import json
import logging
from typing import IO, Any, Callable, Iterable, NamedTuple

from lambdakit import clock, ids
from lambdakit.errors import ApiError, Conflict, NotFound, ValidationFailed
from lambdakit.http import parse_model
from lambdakit.pagination import page_meta, page_request

from ..common.emails import InvalidEmail, email_key, normalise_email
from ..common.keys import home_contact_id
from ..common.pages import key_of, make_cursor, parse_cursor, walk
from ..settings import settings
from . import repository as repo
from .models import STATUSES, ContactIn, ContactOut, ContactPatch, ImportJobIn

logger = logging.getLogger("campaigns.contacts")
FIELDS = ("first_name", "last_name", "phone", "tags", "custom_fields", "lists", "status")


def public(c: dict) -> dict:
    return ContactOut.model_validate(c).model_dump()


def _emit(a: str, kind: str, data: dict[str, Any]) -> None:
    from .. import events

    events.emit(a, kind, data)


def _live_lists(a: str, contact: dict | None) -> set[str]:
    lids = list((contact or {}).get("lists") or [])
    return set(repo.lists_by_id(a, lids)) if lids else set()


def _email_conflict() -> Conflict:
    return Conflict("A contact with this email already exists",
                    details={"email": "A contact with this email already exists"})


def _apply(a: str, old: dict | None, new: dict | None) -> None:
    """One transaction for ``old → new``; a failed create at the home key (``WriteConflict``
    ``home``) is left to the caller (``_create``)."""
    ops = repo.change_ops(a, old, new, live_lists=_live_lists(a, old) if old else None)
    try:
        repo.write(ops)
    except repo.WriteConflict as exc:
        if exc.kind == "email":
            raise _email_conflict() from None
        if exc.kind == "home":
            raise
        if exc.kind == "list":
            raise ValidationFailed("Unknown list", fields={"lists": "One of the lists does not exist"}) from None
        if exc.kind == "too_many":
            raise ValidationFailed("Too many list and tag changes at once",
                                   fields={"lists": "Change fewer lists and tags in one request"}) from None
        raise


def new_contact_id(a: str, email: str) -> str:
    """The contact id a new contact of ``email`` tries first (its home key)."""
    return home_contact_id(a, email_key(email))


def _create(a: str, c: dict) -> None:
    """Write a new contact: at its home key; when that key holds a contact whose email has
    since changed, at a random id with a guard for the address (``repository`` docstring).
    Raises 409 ``CONFLICT`` when another contact holds the address."""
    e = email_key(c["email"])
    for _ in range(4):
        try:
            _apply(a, None, c)
            return
        except repo.WriteConflict as exc:
            if exc.kind != "home":
                raise
        home = repo.get(a, c["id"], consistent=True)
        if home is not None and home.get("email_l") == e:
            raise _email_conflict()
        if home is not None:
            c["id"] = ids.sortable_id().lower()  # fallback id; the guard makes the address unique
    raise ApiError("The contact changed concurrently; retry", code="CONFLICT", status=409)


def _retrying(fn, attempts: int = 4):
    for i in range(attempts):
        try:
            return fn()
        except repo.WriteConflict as exc:
            if exc.kind != "version" or i == attempts - 1:
                if exc.kind == "version":
                    raise ApiError("The contact changed concurrently; retry", code="CONFLICT", status=409) from None
                raise


def require_lists(a: str, list_ids: list[str]) -> dict[str, dict]:
    """The list items of ``list_ids``; 422 keyed ``lists`` when one is unknown."""
    found = repo.lists_by_id(a, list_ids)
    missing = [i for i in list_ids if i not in found]
    if missing:
        raise ValidationFailed("Unknown list", fields={"lists": f"Unknown list id(s): {', '.join(missing)}"})
    return found


def create(a: str, body: dict) -> dict:
    req: ContactIn = parse_model(ContactIn, body)
    lists = req.lists or []
    if lists:
        require_lists(a, lists)
    now = clock.now_iso()
    c = {"id": new_contact_id(a, req.email), "seq": ids.sortable_id().lower(), "account_id": a,
         "email": req.email, "first_name": req.first_name or "", "last_name": req.last_name or "",
         "phone": req.phone or "", "tags": req.tags or [], "custom_fields": req.custom_fields or {},
         "lists": lists, "status": req.status or "active", "created_at": now, "updated_at": now, "version": 1}
    _create(a, c)
    if c["status"] == "active":
        _emit(a, "contact.subscribed", {"contact_id": c["id"], "email": c["email"], "lists": lists,
                                        "subscribed_at": now})
    return public(c)


def get_contact(a: str, cid: str) -> dict | None:
    return repo.get(a, cid)


def get(a: str, cid: str) -> dict:
    c = repo.get(a, cid)
    if c is None:
        raise NotFound("Contact not found")
    return public(c)


def find_by_email(a: str, email: str) -> dict | None:
    e = email_key(email)
    return repo.find_by_emails(a, [e]).get(e)


def update(a: str, cid: str, body: dict) -> dict:
    req: ContactPatch = parse_model(ContactPatch, body)
    changes = req.model_dump(exclude_unset=True)
    if any(v is None for k, v in changes.items() if k in ("email", "tags", "custom_fields", "lists", "status")):
        bad = next(k for k, v in changes.items() if v is None)
        raise ValidationFailed("Field cannot be null", fields={bad: "Cannot be null"})
    if changes.get("lists"):
        old = repo.get(a, cid)
        new_lists = [x for x in changes["lists"] if x not in ((old or {}).get("lists") or [])]
        if new_lists:
            require_lists(a, new_lists)
    result: dict = {}

    def attempt():
        old = repo.get(a, cid, consistent=True)
        if old is None:
            raise NotFound("Contact not found")
        new = {**old, **{k: ("" if v is None else v) for k, v in changes.items()}}
        new.update(updated_at=clock.now_iso(), version=int(old["version"]) + 1)
        _apply(a, old, new)
        result.update(old=old, new=new)

    _retrying(attempt)
    if result["old"]["status"] != "active" and result["new"]["status"] == "active":
        _emit(a, "contact.subscribed", {"contact_id": cid, "email": result["new"]["email"],
                                        "lists": result["new"]["lists"], "subscribed_at": clock.now_iso()})
    return public(result["new"])


def set_status(a: str, cid: str, status: str) -> tuple[dict, bool]:
    """Mark a contact active/unsubscribed/bounced; counters follow. No-op when unchanged.

    Returns ``(contact, changed)``: ``changed`` is True only for the one call whose conditional
    write made the transition, so concurrent callers (two unsubscribe clicks, a complaint and
    a click) can emit ``contact.unsubscribed`` exactly once."""
    if status not in STATUSES:
        raise ValueError(status)
    out: dict = {}

    def attempt():
        old = repo.get(a, cid, consistent=True)
        if old is None:
            raise NotFound("Contact not found")
        if old["status"] == status:
            out["c"], out["changed"] = old, False
            return
        new = {**old, "status": status, "updated_at": clock.now_iso(), "version": int(old["version"]) + 1}
        _apply(a, old, new)  # conditional on the version read: a concurrent change retries
        out["c"], out["changed"] = new, True

    _retrying(attempt)
    return public(out["c"]), out["changed"]


def delete(a: str, cid: str) -> dict:
    """Data-protection erasure: the contact, its uniqueness guard, list and tag memberships
    go in one transaction (aggregate counters are decremented, never lost); then the
    sending slice erases per-recipient records (sends, opens, clicks, outbox copies)."""
    gone: dict = {}

    def attempt():
        old = repo.get(a, cid, consistent=True)
        if old is None:
            raise NotFound("Contact not found")
        _apply(a, old, None)
        gone.update(old)

    _retrying(attempt)
    erase_elsewhere(a, cid, gone["email"])
    return {"id": cid, "deleted": True}


def erase_elsewhere(a: str, cid: str, email: str) -> None:
    """Erase the contact's personal data held elsewhere: per-recipient send, open and click
    records, outbox copies, webhook delivery bodies (``campaigns.privacy.erasure``)."""
    from ..privacy import erasure

    erasure.erase_person(a, email)


# ---------------------------------------------------------------- fan-out helpers
def list_members_page(a: str, list_id: str, cursor: str | None = None, page_size: int = 100,
                      status: str | None = "active") -> tuple[list[dict], str | None]:
    start = parse_cursor(cursor, expect={"pk": repo.source_pk("list", a, list_id, None)[1]})
    items, resume, _ = walk(lambda n, c: repo.query_source("list", a, value=list_id, status=status, limit=n,
                                                           cursor=c),
                            skip=0, need=page_size, start=start, enrich=lambda xs: _enrich(a, xs), budget=20)
    return [public(c) for c in items], make_cursor(resume)


def active_count(a: str, list_id: str) -> int:
    item = repo.get_list(a, list_id)
    return int((item or {}).get("active", 0))


def detach_list(a: str, list_id: str, *, budget_items: int = 25) -> bool:
    """Remove a deleted list from its members; returns True when work remains (queued)."""
    cursor = None
    done = 0
    while done < budget_items:
        members, cursor = repo.members_of_list(a, list_id, min(100, budget_items - done), cursor)
        for m in members:
            _detach_one(a, list_id, m["contact_id"], m["sk"])
            done += 1
        if not cursor:
            return False
    from . import jobs

    jobs.enqueue({"type": "detach_list", "account_id": a, "list_id": list_id})
    return True


def _detach_one(a: str, list_id: str, cid: str, member_sk: str) -> None:
    def attempt():
        old = repo.get(a, cid, consistent=True)
        if old is None or list_id not in (old.get("lists") or []):
            repo.table().delete(f"ACCT#{a}#LIST#{list_id}#M", member_sk)
            return
        new = {**old, "lists": [x for x in old["lists"] if x != list_id], "version": int(old["version"]) + 1,
               "updated_at": clock.now_iso()}
        _apply(a, old, new)

    _retrying(attempt)


# ---------------------------------------------------------------- listing
def _enrich(a: str, items: list[dict]) -> list[dict | None]:
    """Index items → their contacts (one BatchGetItem); contact items pass through."""
    need = [i["contact_id"] for i in items if i.get("sk") != "C"]
    found = repo.contacts_by_id(a, need)
    return [i if i.get("sk") == "C" else found.get(i["contact_id"]) for i in items]


def _search_term(raw: str | None) -> str | None:
    if raw is None:
        return None
    s = raw.strip().lower()
    if not s:
        return None
    if len(s) > 100:
        raise ValidationFailed("search is too long", fields={"search": "At most 100 characters"})
    return s


def _matches_search(c: dict, s: str) -> bool:
    first, last = (c.get("first_name") or "").strip().lower(), (c.get("last_name") or "").strip().lower()
    full = " ".join(x for x in (first, last) if x)
    return c["email"].lower().startswith(s) or full.startswith(s) or last.startswith(s)


def list_contacts(a: str, *, page: str | None, limit: str | None, cursor: str | None, list_id: str | None,
                  tag: str | None, status: str | None, search: str | None) -> dict:
    pr = page_request(page, limit)
    if status is not None and status not in STATUSES:
        raise ValidationFailed("Invalid status", fields={"status": f"One of: {', '.join(STATUSES)}"})
    list_id = (list_id or "").strip() or None
    tag = (tag or "").strip() or None
    s = _search_term(search)
    cnt = repo.counters(a, list_id=list_id, tag=tag)
    if list_id and cnt.get("list") is None:
        raise NotFound("List not found")

    def count(item: dict | None, key: str) -> int:
        return max(0, int((item or {}).get(key, 0)))

    # counter-backed candidates: (count with the status filter applied, source, value)
    cands = []
    if list_id:
        cands.append((count(cnt["list"], status or "contact_count"), "list", list_id))
    if tag:
        cands.append((count(cnt["tag"], status or "total"), "tag", tag))
    base_total = count(cnt["contacts"], status or "total")

    state = parse_cursor(cursor)  # a cursor wins over page
    skip = 0 if state is not None else pr.offset
    if state is None and skip > settings().max_page_offset:
        raise ValidationFailed("Page too deep; follow next_cursor",
                               fields={"page": f"page * limit must stay under {settings().max_page_offset}"})

    if cands:
        exact_total, source, value = min(cands)
        other_tag = tag if source == "list" else None
        other_list = list_id if source == "tag" else None

        def match(c: dict) -> bool:
            return ((other_tag is None or other_tag in (c.get("tags") or []))
                    and (other_list is None or other_list in (c.get("lists") or []))
                    and (s is None or _matches_search(c, s))
                    and (status is None or c.get("status") == status))

        need_match = bool(other_tag or other_list or s)
        start = _check_cursor(state, a, source, value, status)
        items, resume, complete = walk(
            lambda n, cur: repo.query_source(source, a, value=value, status=status, limit=n, cursor=cur),
            skip=skip, need=pr.limit, start=start, enrich=lambda xs: _enrich(a, xs),
            match=match if need_match else (lambda c: status is None or c.get("status") == status))
        exact = not need_match
        total = exact_total
        cursor_out = _cursor(source, resume)
    elif s:
        items, cursor_out, complete = _search(a, s, status, skip, pr.limit, state)
        exact, total = False, base_total
    else:
        source = "status" if status else "all"
        start = _check_cursor(state, a, source, None, status)
        items, resume, complete = walk(
            lambda n, cur: repo.query_source(source, a, value=None, status=status, limit=n, cursor=cur),
            skip=skip, need=pr.limit, start=start, index=repo.SOURCE_INDEX[source])
        exact, total = True, base_total
        cursor_out = _cursor(source, resume)
    if not exact and cursor_out is None and complete:
        total, exact = pr.offset + len(items) if state is None else total, state is None
    meta = page_meta(pr, total)
    meta.update(next_cursor=cursor_out, total_exact=exact)
    return {"contacts": [public(c) for c in items], "pagination": meta}


def _cursor(source: str, key: dict | None) -> str | None:
    return make_cursor({**key, "_src": source}) if key else None


def _check_cursor(state: dict | None, a: str, source: str, value: str | None, status: str | None) -> dict | None:
    if state is None:
        return None
    attr, pk = repo.source_pk(source, a, value, status)
    if state.get("_src") != source or state.get(attr) != pk:
        raise ValidationFailed("Invalid cursor", fields={"cursor": "Cursor does not match this query"})
    return {k: v for k, v in state.items() if k != "_src"}


SEARCH_SOURCES = ("email", "name", "last")


def _search(a: str, s: str, status: str | None, skip: int, need: int, state: dict | None):
    """Prefix search: a merge of three sorted index streams (email, full name, last name),
    ordered by the matched text; a contact found by several streams is returned once per
    request. Cursor: the resume key of each stream."""
    pos: dict[str, Any] = {}
    if state is not None:
        if state.get("_src") != "search" or state.get("q") != s:
            raise ValidationFailed("Invalid cursor", fields={"cursor": "Cursor does not match this query"})
        for src in SEARCH_SOURCES:
            raw = state.get(src, "")
            if raw in ("", "done"):
                pos[src] = raw or None
            else:
                try:
                    key = json.loads(raw)
                except ValueError:
                    raise ValidationFailed("Invalid cursor", fields={"cursor": "Invalid cursor"}) from None
                attr, pk = repo.source_pk(src, a, None, None)
                if not isinstance(key, dict) or key.get(attr) != pk:
                    raise ValidationFailed("Invalid cursor", fields={"cursor": "Invalid cursor"})
                pos[src] = key
    else:
        pos = {src: None for src in SEARCH_SOURCES}
    fetch_at = dict(pos)
    bufs: dict[str, list[dict]] = {src: [] for src in SEARCH_SOURCES}
    calls, budget = 0, 12
    seen: set[str] = set()
    out: list[dict] = []

    def sort_key(src: str, item: dict) -> tuple[str, str]:
        idx = repo.SOURCE_INDEX[src]
        v = item[f"{idx}sk"]
        return (v, item["id"]) if src == "email" else tuple(v.rsplit("#", 1))  # type: ignore[return-value]

    while True:
        for src in SEARCH_SOURCES:
            if not bufs[src] and fetch_at[src] != "done":
                if calls >= budget:
                    return out, _search_cursor(s, pos), False
                items, last = repo.query_source(src, a, value=s, status=status, limit=max(25, need),
                                                cursor=fetch_at[src])
                calls += 1
                bufs[src].extend(items)
                fetch_at[src] = last if last else "done"
        heads = [(sort_key(src, bufs[src][0]), src) for src in SEARCH_SOURCES if bufs[src]]
        if not heads:
            return out, None, True
        # take a run of merged heads, then resolve them with one BatchGetItem
        run: list[tuple[str, dict]] = []
        while heads and len(run) < need + skip + 10:
            _, src = min(heads)
            run.append((src, bufs[src].pop(0)))
            heads = [(sort_key(x, bufs[x][0]), x) for x in SEARCH_SOURCES if bufs[x]]
            if not bufs[src] and fetch_at[src] != "done":
                break  # must refill this stream before merging further
        contacts = _enrich(a, [it for _, it in run])
        last_of = {src: it for src, it in run}
        for (src, it), c in zip(run, contacts, strict=False):
            pos[src] = key_of(it, repo.SOURCE_INDEX[src])
            if it is last_of[src] and not bufs[src] and fetch_at[src] == "done":
                pos[src] = "done"
            if c is None or c["id"] in seen or (status and c.get("status") != status):
                continue
            seen.add(c["id"])
            if skip:
                skip -= 1
                continue
            out.append(c)
            if len(out) == need:
                more = any(bufs[x] or fetch_at[x] != "done" for x in SEARCH_SOURCES) or it is not run[-1][1]
                return out, _search_cursor(s, pos) if more else None, True


def _search_cursor(s: str, pos: dict[str, Any]) -> str | None:
    state = {"_src": "search", "q": s}
    for src in SEARCH_SOURCES:
        v = pos.get(src)
        state[src] = "" if v is None else ("done" if v == "done" else json.dumps(v, sort_keys=True))
    return make_cursor(state)


# ---------------------------------------------------------------- import
def _merge_existing(a: str, cid: str, rec: dict, opts) -> bool:
    from .importer import merge_fields

    changed = {"v": False}

    def attempt():
        old = repo.get(a, cid, consistent=True)
        if old is None:
            return
        new = merge_fields(old, rec, opts)
        if new is None:
            return
        new.update(updated_at=clock.now_iso(), version=int(old["version"]) + 1)
        _apply(a, old, new)
        changed["v"] = True

    _retrying(attempt)
    return changed["v"]


def _import_options(a: str, list_id: str | None, tags, update_existing) -> "Any":
    from .importer import ImportOptions, parse_bool, parse_form_tags

    list_id = (list_id or "").strip() or None
    if list_id and repo.get_list(a, list_id) is None:
        raise ValidationFailed("Unknown list", fields={"list_id": "Unknown list id"})
    tag_list = tags if isinstance(tags, list) else parse_form_tags(tags)
    upd = update_existing if isinstance(update_existing, bool) else parse_bool(update_existing, "update_existing")
    return ImportOptions(list_id=list_id, tags=tag_list, update_existing=upd)


def import_file(a: str, form) -> dict:
    """In-request import of a multipart upload (``file``, ``list_id``, ``tags``, ``update_existing``)."""
    from . import importer

    f = form.files.get("file")
    if f is None:
        raise ValidationFailed("A CSV file is required", fields={"file": "Required"})
    opts = _import_options(a, form.fields.get("list_id"), form.fields.get("tags"), form.fields.get("update_existing"))
    text = importer.decode(f.data)
    limit = settings().import_max_sync_rows
    _, it = importer.rows(text)
    batch: list = []
    total: dict[str, Any] = {"imported": 0, "updated": 0, "skipped": 0, "errors": []}
    seen: set[str] = set()
    n = 0
    chunks = []
    for line, row in it:
        n += 1
        if n > limit:
            raise ApiError(f"More than {limit} rows: use POST /contacts/imports (asynchronous job)",
                           code="PAYLOAD_TOO_LARGE", status=413,
                           details={"max_rows": limit, "job_route": "POST /contacts/imports"})
        batch.append((line, row))
        if len(batch) == importer.CHUNK:
            chunks.append(batch)
            batch = []
    if batch:
        chunks.append(batch)
    for ch in chunks:
        r = importer.import_chunk(a, ch, opts, seen, _merge_existing)
        total["imported"] += r.imported
        total["updated"] += r.updated
        total["skipped"] += r.skipped
        total["errors"].extend(r.errors)
    return total


def create_import_job(a: str, body: dict) -> dict:
    from . import jobs

    req = parse_model(ImportJobIn, body)
    opts = _import_options(a, req.list_id, req.tags, req.update_existing)
    job_id = ids.sortable_id().lower()
    s = settings()
    now = clock.now_iso()
    job = {"job_id": job_id, "account_id": a, "status": "awaiting_upload", "list_id": opts.list_id,
           "tags": opts.tags, "update_existing": opts.update_existing, "processed": 0, "imported": 0,
           "updated": 0, "skipped": 0, "errors": [], "created_at": now, "ttl": int(clock.now_ts()) + 30 * 86400}
    jobs.put_job(a, job)
    up = jobs.presigned_upload(jobs.upload_key(a, job_id), s.import_job_max_bytes, s.presign_ttl_seconds)
    return {**job_public(job), "upload": {"method": "POST", "url": up["url"], "fields": up["fields"],
                                          "max_bytes": s.import_job_max_bytes,
                                          "expires_in": s.presign_ttl_seconds}}


def job_public(job: dict) -> dict:
    total = job.get("total")
    done = int(job.get("processed", 0))
    return {"job_id": job["job_id"], "status": job["status"], "processed": done, "total": total,
            "progress": round(100.0 * done / total, 1) if total else (100.0 if job["status"] == "completed" else 0.0),
            "imported": int(job.get("imported", 0)), "updated": int(job.get("updated", 0)),
            "skipped": int(job.get("skipped", 0)), "errors": job.get("errors") or [],
            "list_id": job.get("list_id"), "tags": job.get("tags") or [],
            "update_existing": bool(job.get("update_existing")), "created_at": job.get("created_at"),
            "started_at": job.get("started_at"), "finished_at": job.get("finished_at"),
            "failure": job.get("failure")}


def get_import_job(a: str, job_id: str) -> dict:
    from . import jobs

    job = jobs.get_job(a, job_id, consistent=True)
    if job is None:
        raise NotFound("Import job not found")
    return job_public(job)


def run_import_job(a: str, job_id: str, bucket: str, key: str, *, time_left_ms: Callable[[], int]) -> str:
    """Process an uploaded file from the job's last committed row. Returns ``completed``,
    ``continue`` (a continuation was queued) or ``skipped`` (nothing to do)."""
    from . import importer, jobs

    s = settings()
    job = jobs.get_job(a, job_id, consistent=True)
    if job is None or job["status"] not in ("awaiting_upload", "running"):
        return "skipped"
    if jobs.upload_size(bucket, key) > s.import_job_max_bytes:
        jobs.start_job(a, job_id, clock.now_iso(), 0)
        jobs.finish(a, job_id, "failed", clock.now_iso(), "File too large")
        return "completed"
    try:
        text = importer.decode(jobs.read_upload(bucket, key))
        _, it = importer.rows(text)
        total = importer.count_rows(text)
    except ApiError as exc:
        jobs.start_job(a, job_id, clock.now_iso(), 0)
        jobs.finish(a, job_id, "failed", clock.now_iso(), exc.message)
        return "completed"
    job = jobs.start_job(a, job_id, clock.now_iso(), total)
    if job is None:
        return "skipped"
    from .importer import ImportOptions

    opts = ImportOptions(list_id=job.get("list_id"), tags=job.get("tags") or [],
                         update_existing=bool(job.get("update_existing")))
    processed = int(job.get("processed", 0))
    errors_len = len(job.get("errors") or [])
    seen: set[str] = set()
    batch: list = []
    budget = s.import_rows_per_invocation
    done_now = 0
    for idx, (line, row) in enumerate(it):
        if idx < processed:
            # rows before the checkpoint only seed in-file de-duplication
            if "__error__" not in row:
                try:
                    seen.add(normalise_email(row.get("email", "")).lower())
                except InvalidEmail:
                    pass
            continue
        batch.append((line, row))
        if len(batch) == importer.CHUNK:
            if not _commit_chunk(a, job_id, batch, opts, seen, processed, errors_len):
                return "skipped"
            processed += len(batch)
            done_now += len(batch)
            batch = []
            if done_now >= budget or time_left_ms() < 60_000:
                jobs.enqueue({"type": "import_continue", "account_id": a, "job_id": job_id, "bucket": bucket,
                              "key": key})
                return "continue"
    if batch and not _commit_chunk(a, job_id, batch, opts, seen, processed, errors_len):
        return "skipped"
    jobs.finish(a, job_id, "completed", clock.now_iso())
    jobs.delete_upload(bucket, key)
    return "completed"


def _commit_chunk(a, job_id, batch, opts, seen, processed, errors_len) -> bool:
    from . import importer, jobs

    r = importer.import_chunk(a, batch, opts, seen, _merge_existing)
    return jobs.advance(a, job_id, processed, {"processed": len(batch), "imported": r.imported,
                                               "updated": r.updated, "skipped": r.skipped},
                        r.errors, errors_len)


# ---------------------------------------------------------------- export
EXPORT_FIELDS = ("id", "email", "first_name", "last_name", "phone", "tags", "lists", "status", "custom_fields",
                 "created_at", "updated_at")
#: Lifetime of the presigned download URL of an asynchronous export (the job may take minutes).
EXPORT_JOB_URL_TTL_SECONDS = 3600
#: Worker runs of one export job before it is marked failed (SQS redelivers a crashed run).
EXPORT_MAX_ATTEMPTS = 3
_PAGE = 500


class _Spec(NamedTuple):
    fmt: str
    cols: list[str]
    list_id: str | None
    status: str | None

    @property
    def ctype(self) -> str:
        return "application/json" if self.fmt == "json" else "text/csv; charset=utf-8"


def _export_spec(fmt: str | None, list_id: str | None, fields: str | None, status: str | None) -> _Spec:
    fmt = (fmt or "csv").strip().lower()
    if fmt not in ("csv", "json"):
        raise ValidationFailed("format must be csv or json", fields={"format": "One of: csv, json"})
    if status is not None and status not in STATUSES:
        raise ValidationFailed("Invalid status", fields={"status": f"One of: {', '.join(STATUSES)}"})
    cols = [f.strip() for f in (fields or "").split(",") if f.strip()] or list(EXPORT_FIELDS)
    bad = [f for f in cols if f not in EXPORT_FIELDS]
    if bad:
        raise ValidationFailed("Unknown field", fields={"fields": f"Unknown: {', '.join(bad)}; allowed: "
                                                                 f"{', '.join(EXPORT_FIELDS)}"})
    return _Spec(fmt, list(dict.fromkeys(cols)), (list_id or "").strip() or None, status)


def _expected_rows(a: str, spec: _Spec) -> int:
    """Rows the export will hold, from the maintained counters (one BatchGetItem)."""
    cnt = repo.counters(a, list_id=spec.list_id)
    if spec.list_id:
        item = cnt.get("list")
        if item is None:
            raise NotFound("List not found")
        return max(0, int(item.get(spec.status or "contact_count", 0)))
    return max(0, int((cnt["contacts"] or {}).get(spec.status or "total", 0)))


def export(a: str, *, fmt: str | None, list_id: str | None, fields: str | None, status: str | None = None) -> dict:
    """Build the export. Returns ``{"inline": (body, content_type, filename), "count": n}``,
    ``{"url": ..., ...}`` when it is too big for a Lambda response, or ``{"job": ...}`` (an
    asynchronous export) when the counters say it holds more than ``export_inline_max_rows``
    rows. The request's DynamoDB cost is bounded by that setting, whatever the data size."""
    import io

    from . import jobs

    spec = _export_spec(fmt, list_id, fields, status)
    s = settings()
    limit = s.export_inline_max_rows
    expected = _expected_rows(a, spec)
    if expected > limit:
        return {"job": _queue_export(a, spec, expected)}
    contacts = list(itertools.islice(_iter_export(a, spec.list_id, spec.status, page=min(_PAGE, limit + 1)),
                                     limit + 1))
    if len(contacts) > limit:  # the counters lagged behind: never read more than the bound here
        return {"job": _queue_export(a, spec, len(contacts))}
    filename = _export_filename(spec)
    buf = io.BytesIO()
    _render(spec, contacts, buf)
    body = buf.getvalue()
    if len(body) <= s.export_inline_max_bytes:
        return {"inline": (body, spec.ctype, filename), "count": len(contacts)}
    key = f"exports/{a}/{ids.sortable_id().lower()}/{filename}"
    url = jobs.put_export(key, body, spec.ctype, filename, s.presign_ttl_seconds)
    return {"url": url, "format": spec.fmt, "count": len(contacts), "bytes": len(body), "filename": filename,
            "expires_in": s.presign_ttl_seconds}


def _export_filename(spec: _Spec) -> str:
    return f"contacts-{clock.now().strftime('%Y%m%d-%H%M%S')}.{spec.fmt}"


def _queue_export(a: str, spec: _Spec, expected: int) -> dict:
    from . import jobs

    job_id = ids.sortable_id().lower()
    filename = _export_filename(spec)
    key = f"exports/{a}/{job_id}/{filename}"
    job = {"job_id": job_id, "account_id": a, "kind": "export", "status": "queued", "format": spec.fmt,
           "fields": spec.cols, "list_id": spec.list_id, "status_filter": spec.status, "key": key,
           "filename": filename, "processed": 0, "total": expected, "attempts": 0, "created_at": clock.now_iso(),
           "ttl": int(clock.now_ts()) + 7 * 86400}
    jobs.put_export_job(a, job)
    jobs.enqueue({"type": "export", "account_id": a, "job_id": job_id})
    return {**export_job_public(job), "url": jobs.export_url(key, EXPORT_JOB_URL_TTL_SECONDS),
            "expires_in": EXPORT_JOB_URL_TTL_SECONDS}


def export_job_public(job: dict) -> dict:
    total = job.get("total")
    done = int(job.get("processed", 0))
    return {"job_id": job["job_id"], "status": job["status"], "format": job["format"], "fields": job["fields"],
            "list_id": job.get("list_id"), "status_filter": job.get("status_filter"), "filename": job["filename"],
            "processed": done, "total": total,
            "progress": (100.0 if job["status"] == "completed"
                         else round(min(100.0, 100.0 * done / total), 1) if total else 0.0),
            "created_at": job["created_at"], "started_at": job.get("started_at"),
            "finished_at": job.get("finished_at"), "failure": job.get("failure"),
            "status_url": f"/contacts/exports/{job['job_id']}"}


def get_export_job(a: str, job_id: str) -> dict:
    """Status of an export job of this account; a completed job carries a fresh download URL."""
    from . import jobs

    job = jobs.get_export_job(a, job_id, consistent=True)
    if job is None:
        raise NotFound("Export job not found")
    out = export_job_public(job)
    if job["status"] == "completed":
        out.update(url=jobs.export_url(job["key"], EXPORT_JOB_URL_TTL_SECONDS),
                   expires_in=EXPORT_JOB_URL_TTL_SECONDS)
    return out


def run_export_job(a: str, job_id: str) -> str:
    """Worker side: stream the contacts (paged key queries) into the file and upload it.
    Returns ``completed``, ``failed`` or ``skipped``; raises on an error that SQS should retry."""
    import tempfile

    from . import jobs

    job = jobs.start_export_job(a, job_id, clock.now_iso())
    if job is None:
        return "skipped"
    spec = _Spec(job["format"], list(job["fields"]), job.get("list_id"), job.get("status_filter"))
    try:
        def rows():
            n = 0
            for c in _iter_export(a, spec.list_id, spec.status):
                yield c
                n += 1
                if n % _PAGE == 0:
                    jobs.export_progress(a, job_id, n)

        with tempfile.TemporaryFile() as out:
            n = _render(spec, rows(), out)
            out.seek(0)
            jobs.upload_export(job["key"], out, spec.ctype, job["filename"])
    except Exception:
        if int(job.get("attempts", 0)) < EXPORT_MAX_ATTEMPTS:
            raise
        logger.exception("export job failed", extra={"job_id": job_id})
        jobs.finish_export_job(a, job_id, "failed", clock.now_iso(), error="Export failed")
        return "failed"
    jobs.finish_export_job(a, job_id, "completed", clock.now_iso(), processed=n)
    return "completed"


def _render(spec: _Spec, contacts: Iterable[dict], out: IO[bytes]) -> int:
    """Write the export of ``contacts`` to ``out`` (CSV with every cell, header included, neutralised
    by ``lambdakit.csvsafe``, or a JSON
    array); returns the number of rows. Inline and asynchronous exports share it, so both
    give the same bytes for the same contacts."""
    import io
    import tempfile

    from lambdakit import csvsafe

    n = 0
    if spec.fmt == "json":
        out.write(b"[")
        for c in contacts:
            p = public(c)
            out.write((", " if n else "").encode() + json.dumps({k: p[k] for k in spec.cols},
                                                                ensure_ascii=False).encode("utf-8"))
            n += 1
        out.write(b"]")
        return n
    with tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024, mode="w+t", encoding="utf-8") as spool:
        # the header names every custom field, so the records are spooled while their keys are collected
        custom: set[str] = set()
        for c in contacts:
            p = public(c)
            if "custom_fields" in spec.cols:
                custom.update(p["custom_fields"])
            spool.write(json.dumps(p, ensure_ascii=False) + "\n")
        spool.seek(0)
        header = [c for c in spec.cols if c != "custom_fields"] + sorted(custom - set(EXPORT_FIELDS))
        text = io.TextIOWrapper(out, encoding="utf-8", newline="")  # type: ignore[arg-type]
        w = csvsafe.writer(text, lineterminator="\r\n")  # every cell neutralised, the header included
        w.writerow(header)
        for line in spool:
            p = json.loads(line)
            row = []
            for col in header:
                if col in ("tags", "lists"):
                    v = ";".join(p[col])
                elif col in EXPORT_FIELDS:
                    v = p[col]
                else:
                    v = p["custom_fields"].get(col, "")
                row.append(v)
            w.writerow(row)
            n += 1
        text.flush()
        text.detach()
    return n


def _iter_export(a: str, list_id: str | None, status: str | None, *, page: int = _PAGE):
    cursor = None
    source = "list" if list_id else ("status" if status else "all")
    while True:
        items, cursor = repo.query_source(source, a, value=list_id, status=status, limit=page, cursor=cursor)
        contacts = _enrich(a, items) if source == "list" else items
        for c in contacts:
            if c is not None and (status is None or c.get("status") == status):
                yield c
        if not cursor:
            return
