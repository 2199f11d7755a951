"""Certificate templates: CRUD and the one active template that drives the certificate PDF.

Hook for the documents package: ``active_layout()`` returns the active template's layout
(``CertificateLayout`` fields) or ``None`` (then the built-in default layout applies), and
``render_text(text, values)`` fills the placeholders.
"""
from __future__ import annotations

import re

from lambdakit import clock, ids
from lambdakit.errors import NotFound

from .. import activity
from . import repository as repo
from .models import CertificateLayout


def _get(tid: str) -> dict:
    t = repo.get_template(tid)
    if not t:
        raise NotFound("Certificate template not found")
    return t


def list_templates(offset: int, limit: int, cursor: str | None):
    items, nxt = repo.list_templates(offset, limit, cursor)
    pointer = repo.active_pointer()
    active_id = pointer.get("template_id") if pointer else None
    for t in items:
        t["is_active"] = t["id"] == active_id
    return items, repo.count_templates(), nxt, active_id


def create(admin_id: str, data: dict) -> dict:
    now = clock.now_iso()
    tpl = {"id": ids.sortable_id(), "name": data["name"], "description": data.get("description", ""),
           "layout": data["layout"], "is_active": bool(data.get("is_active")), "created_at": now,
           "updated_at": now, "created_by": admin_id, "version": 1}
    pointer = repo.active_pointer() if tpl["is_active"] else None
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
    pointer = repo.active_pointer()
    repo.update_template(tid, sets, activate=activate, previous_active=(pointer or {}).get("template_id"), now=now)
    after = _get(tid)
    activity.record(admin_id, "certificate_template.update", "certificate_template", tid,
                    before={k: before.get(k) for k in sets if k not in ("updated_at", "updated_by")},
                    after={k: after.get(k) for k in sets if k not in ("updated_at", "updated_by")})
    return after


def active_layout() -> dict | None:
    """The layout of the active template (all fields filled with defaults), or None."""
    pointer = repo.active_pointer()
    if not pointer:
        return None
    t = repo.get_template(pointer["template_id"])
    if not t:
        return None
    return {**CertificateLayout.model_validate(t.get("layout") or {}).model_dump(), "template_id": t["id"]}


def render_text(text: str, values: dict) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), "")), text or "")
