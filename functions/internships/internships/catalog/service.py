"""Domain rules: public listing, lookup by slug, admin CRUD."""
from __future__ import annotations

import re

from lambdakit import clock, ids
from lambdakit.errors import NotFound

from . import repository as repo


def slugify(name: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return s[:80].strip("-") or ids.sortable_id().lower()


def _view(d: dict) -> dict:
    """The stored domain with its derived fields; the route's model (``models.PublicDomain``,
    ``admin_catalog.models.AdminDomain``) picks what its caller sees."""
    return {**d, "description": d.get("description", ""), "prices": d.get("prices", {}),
            "durations": sorted(int(k) for k in d.get("prices", {})),
            "milestones": [{"title": m["title"], "description": m.get("description", "")}
                           for m in d.get("milestones", [])],
            "is_active": bool(d.get("is_active"))}


def public_view(d: dict) -> dict:
    from lambdakit.model import dump

    from .models import PublicDomain

    return dump(PublicDomain, _view(d), exclude_unset=True)


def admin_view(d: dict) -> dict:
    """Every attribute an admin's model may declare (``admin_catalog.models.AdminDomain`` picks them)."""
    return {**_view(d), "enrollment_count": int(d.get("enrollment_count", 0)),
            "created_at": d.get("created_at"), "updated_at": d.get("updated_at")}


def list_active() -> list[dict]:
    return [public_view(d) for d in repo.list_all() if d.get("is_active")]


def by_slug(slug: str) -> dict:
    d = repo.get_by_slug(slug.lower()) if slug else None
    if not d or not d.get("is_active"):
        raise NotFound("Domain not found")
    return public_view(d)


def get(domain_id: str) -> dict:
    d = repo.get(domain_id)
    if not d:
        raise NotFound("Domain not found")
    return d


def list_admin() -> list[dict]:
    return [admin_view(d) for d in repo.list_all()]


def create(data) -> dict:
    now = clock.now_iso()
    # every field of the body is stored (an optional one only when given)
    d = {**{k: v for k, v in data.model_dump().items() if v is not None and (v != "" or k == "description")},
         "id": ids.sortable_id(), "slug": data.slug or slugify(data.name),
         "enrollment_count": 0, "created_at": now, "updated_at": now}
    repo.create(d)
    return d


def update(domain_id: str, data) -> tuple[dict, dict]:
    old = get(domain_id)
    given = data.model_dump(exclude_unset=True)
    fields = {k: v for k, v in given.items() if v is not None and (v != "" or k == "description")}
    remove = [k for k, v in given.items() if v == "" and k != "description"]  # "" clears an optional field
    if "milestones" in fields:
        fields["milestones"] = [{"title": m["title"], "description": m.get("description", "")}
                                for m in fields["milestones"]]
    fields["updated_at"] = clock.now_iso()
    return old, repo.update(old, fields, remove)


def delete(domain_id: str) -> dict:
    d = get(domain_id)
    repo.delete(d)
    return d


def price_for(domain: dict, duration: int) -> float | None:
    p = (domain.get("prices") or {}).get(str(duration))
    return None if p is None else float(p)
