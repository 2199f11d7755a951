"""Domains: ``DOMAIN#<id>``/``DOMAIN`` (gsi1 ``DOMAINS`` / slug) + slug claim ``DOMAINSLUG#<slug>``."""
from __future__ import annotations

from typing import Sequence

from lambdakit.errors import ConditionFailed, Conflict, NotFound

from ..store import clean as _clean
from ..store import table

MAX_DOMAINS = 500



def _key(domain_id: str) -> tuple[str, str]:
    return f"DOMAIN#{domain_id}", "DOMAIN"



def get(domain_id: str, *, consistent: bool = False) -> dict | None:
    return _clean(table().get(*_key(domain_id), consistent=consistent))


def get_by_slug(slug: str) -> dict | None:
    claim = table().get(f"DOMAINSLUG#{slug}", "SLUG")
    return get(claim["domain_id"]) if claim else None


def list_all() -> list[dict]:
    """Every domain, by slug (a small, bounded catalogue)."""
    return [_clean(i) for i in table().query_all("DOMAINS", index="gsi1", max_items=MAX_DOMAINS)]


def create(domain: dict) -> None:
    pk, sk = _key(domain["id"])
    try:
        table().transact([
            {"put": {"pk": f"DOMAINSLUG#{domain['slug']}", "sk": "SLUG", "domain_id": domain["id"]},
             "condition": "attribute_not_exists(pk)"},
            {"put": {"pk": pk, "sk": sk, "gsi1pk": "DOMAINS", "gsi1sk": domain["slug"], **domain},
             "condition": "attribute_not_exists(pk)"},
            {"update": ("COUNTERS", "domains"), "add": {"count": 1}},
        ])
    except ConditionFailed:
        raise Conflict("A domain with this slug already exists") from None


def update(old: dict, fields: dict, remove: Sequence[str] = ()) -> dict:
    """Set ``fields`` and remove the attributes named in ``remove`` (a new slug moves its claim)."""
    pk, sk = _key(old["id"])
    new_slug = fields.get("slug")
    ops: list[dict] = []
    sets = dict(fields)
    if new_slug and new_slug != old["slug"]:
        sets["gsi1sk"] = new_slug
        ops += [
            {"put": {"pk": f"DOMAINSLUG#{new_slug}", "sk": "SLUG", "domain_id": old["id"]},
             "condition": "attribute_not_exists(pk)"},
            {"delete": (f"DOMAINSLUG#{old['slug']}", "SLUG")},
        ]
    ops.insert(0, {"update": (pk, sk), "set": sets, "remove": list(remove),
                   "condition": "attribute_exists(pk) AND slug = :old",
                   "values": {":old": old["slug"]}})
    try:
        table().transact(ops)
    except ConditionFailed as exc:
        if len(exc.reasons) > 1 and exc.reasons[1] == "ConditionalCheckFailed":
            raise Conflict("A domain with this slug already exists") from None
        raise Conflict("The domain changed meanwhile; retry") from None
    return get(old["id"], consistent=True) or {}


def delete(domain: dict) -> None:
    """Hard delete, only while no enrollment references the domain."""
    pk, sk = _key(domain["id"])
    try:
        table().transact([
            {"delete": (pk, sk), "condition": "attribute_exists(pk) AND (attribute_not_exists(enrollment_count) "
                                              "OR enrollment_count = :zero)", "values": {":zero": 0}},
            {"delete": (f"DOMAINSLUG#{domain['slug']}", "SLUG")},
            {"update": ("COUNTERS", "domains"), "add": {"count": -1}},
        ])
    except ConditionFailed:
        if get(domain["id"], consistent=True) is None:
            raise NotFound("Domain not found") from None
        raise Conflict("The domain has enrollments; deactivate it instead (is_active: false)") from None


def site_settings() -> dict:
    return table().get("SETTINGS", "SITE") or {}
