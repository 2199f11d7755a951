"""Platform settings: exactly six keys, stored in item ``pk="SETTINGS"``, ``sk="SITE"``.

JOURNEY reads ``maxEnrollmentsPerStudent``; ENGAGE reads ``siteEmail`` (counselor address).
A missing key reads as its default. POST merges the given keys; any other key is 400.
``maxEnrollmentsPerStudent`` defaults to ``None``: no cap, which is what enrollment enforces when
nothing is stored (``enrollments.service``); ``null`` clears a cap.
"""
from __future__ import annotations

from typing import Any

from lambdakit.errors import ValidationFailed

from .. import activity
from . import repository as repo

KEYS = ("siteName", "siteEmail", "sitePhone", "siteAddress", "maintenanceMode", "maxEnrollmentsPerStudent")


def defaults() -> dict[str, Any]:
    from ..settings import settings

    return {"siteName": "Internship Programme", "siteEmail": settings().sender_email, "sitePhone": "",
            "siteAddress": "", "maintenanceMode": False, "maxEnrollmentsPerStudent": None}


def current() -> dict[str, Any]:
    stored = repo.get_site_settings()
    base = defaults()
    return {k: stored.get(k, base[k]) for k in KEYS}


def update(admin_id: str, body: dict) -> dict[str, Any]:
    from lambdakit.http import parse_model

    from .models import SiteSettingsUpdate

    unknown = sorted(k for k in body if k not in KEYS)
    if unknown:
        raise ValidationFailed(f"Unknown setting: {unknown[0]}; allowed keys are {', '.join(KEYS)}",
                               fields={unknown[0]: "Unknown setting"})
    if not body:
        raise ValidationFailed("At least one setting is required", fields={"body": "Empty"})
    changes = parse_model(SiteSettingsUpdate, body).model_dump(exclude_unset=True)
    before = current()
    repo.put_site_settings(changes, admin_id)
    after = {**before, **changes}
    activity.record(admin_id, "settings.update", "settings", "SITE",
                    before={k: before[k] for k in changes}, after=changes)
    return after
