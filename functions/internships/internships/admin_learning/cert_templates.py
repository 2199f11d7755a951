"""Certificate templates: CRUD and the one active template that drives the certificate PDF.

The documents package reads the active template itself: ``active_layout()`` (``documents.layout``,
re-exported here) returns its layout (``CertificateLayout`` fields) or ``None`` (then the built-in
default layout applies); ``render_text(text, values)`` fills the placeholders.
"""
from __future__ import annotations

import re

from lambdakit import clock, ids
from lambdakit.errors import NotFound

from .. import activity
from ..documents import repository as documents_repo
from ..documents.layout import active_layout  # noqa: F401 - the PDF's read of the active template
from . import repository as repo


def _get(tid: str) -> dict:
    t = documents_repo.certificate_template(tid)
    if not t:
        raise NotFound("Certificate template not found")
    return t


def list_templates(offset: int, limit: int, cursor: str | None):
    items, nxt = repo.list_templates(offset, limit, cursor)
    pointer = documents_repo.active_template_pointer()
    active_id = pointer.get("template_id") if pointer else None
    for t in items:
        t["is_active"] = t["id"] == active_id
    return items, repo.count_templates(), nxt, active_id


def create(admin_id: str, data: dict) -> dict:
    now = clock.now_iso()
    tpl = {"id": ids.sortable_id(), "name": data["name"], "description": data.get("description", ""),
           "layout": data["layout"], "is_active": bool(data.get("is_active")), "created_at": now,
           "updated_at": now, "created_by": admin_id, "version": 1}
    pointer = documents_repo.active_template_pointer() if tpl["is_active"] else None
    repo.create_template(tpl, activate=tpl["is_active"], previous_active=(pointer or {}).get("template_id"), now=now)
    activity.record(admin_id, "certificate_template.create", "certificate_template", tpl["id"], after=tpl)
    return tpl


def update(admin_id: str, tid: str, changes: dict) -> dict:
    before = _get(tid)
    now = clock.now_iso()
    sets = {k: v for k, v in changes.items() if k in ("name", "description", "layout") and v is not None}
    activate = changes.get("is_active")
    if activate is not None:
        sets["is_active"] = activate
    sets["updated_at"] = now
    sets["updated_by"] = admin_id
    pointer = documents_repo.active_template_pointer()
    repo.update_template(tid, sets, activate=activate, previous_active=(pointer or {}).get("template_id"), now=now)
    after = _get(tid)
    activity.record(admin_id, "certificate_template.update", "certificate_template", tid,
                    before={k: before.get(k) for k in sets if k not in ("updated_at", "updated_by")},
                    after={k: after.get(k) for k in sets if k not in ("updated_at", "updated_by")})
    return after


def render_text(text: str, values: dict) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), "")), text or "")
