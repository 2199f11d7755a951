"""Platform settings item and rate-limit counters.

Settings: pk=SETTINGS sk=PLATFORM {maintenance_mode, announcement_banner, registration_enabled,
updated_at, updated_by, version}. Read once per request (no in-process cache), so a PUT takes
effect on the very next request in every Lambda container: an authenticated request reads it with
the caller's profile (one BatchGetItem, ``exams.http``), others with one GetItem.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lambdakit import ratelimit
from lambdakit.ddb import Table

from ..settings import settings
from ..store import read_or_have

SETTINGS_KEY = ("SETTINGS", "PLATFORM")


def table() -> Table:
    return Table(settings().table_name)


def get_settings(have: Mapping[tuple[str, str], dict | None] | None = None) -> dict | None:
    """The platform settings item; from ``have`` (read with authentication) when it holds it."""
    return read_or_have(SETTINGS_KEY, have)


def update_settings(changes: dict, *, before: dict | None) -> dict:
    """Set ``changes`` and bump ``version``; optimistic check against the item read before
    (``ConditionFailed`` when someone else wrote in between)."""
    names: dict[str, str] | None = {"#ver": "version"}
    values: dict[str, Any] | None = None
    if before is None:
        cond, names = "attribute_not_exists(pk)", None
    elif before.get("version") is None:
        cond = "attribute_not_exists(#ver)"
    else:
        cond, values = "#ver = :ver", {":ver": before["version"]}
    return table().update(*SETTINGS_KEY, set=changes, add={"version": 1}, condition=cond, names=names,
                          values=values)


def hit(subject: str, limit: int, window: int) -> ratelimit.RateDecision:
    return ratelimit.hit(table(), subject, limit, window)



def hit_pair(outer: tuple[str, int, int], inner: tuple[str, int, int], subject: str
             ) -> tuple[ratelimit.RateDecision, ratelimit.RateDecision | None]:
    """``hit`` of ``<outer name>:<subject>`` and ``<inner name>:<subject>`` in one UpdateItem
    (``lambdakit.ratelimit.hit_pair``; ``ratelimit.can_pair`` must hold)."""
    return ratelimit.hit_pair(table(), f"{outer[0]}:{subject}", outer[1:], f"{inner[0]}:{subject}", inner[1:])
