"""A contact's fields as every path needs them: the statuses, the bounds (issue 23 rule 3), the
cleaning rules of tags, custom fields, lists and the address, and the public view (``ContactOut``).

Apart from the request and documentation models (``models``, which re-exports these names), so
that a path which only reads, exports or imports contacts (the export route, the import worker)
does not define every body model of the endpoint group on its cold start (issue 21).
"""
from __future__ import annotations

from typing import Any

from ..common.emails import InvalidEmail, normalise_email
from ..common.view import View

STATUSES = ("active", "unsubscribed", "bounced")
MAX_TAGS = 20
MAX_LISTS = 20
MAX_CUSTOM_FIELDS = 50


def clean_tags(v: Any) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list):
        raise ValueError("must be an array of strings")
    out: list[str] = []
    for t in v:
        if not isinstance(t, str):
            raise ValueError("must be an array of strings")
        t = t.strip()
        if not t:
            continue
        if len(t) > 64 or "#" in t:
            raise ValueError("tags are 1-64 characters without '#'")
        if t not in out:
            out.append(t)
    if len(out) > MAX_TAGS:
        raise ValueError(f"at most {MAX_TAGS} tags")
    return out


def clean_custom(v: Any) -> dict[str, str]:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ValueError("must be an object of strings")
    out: dict[str, str] = {}
    for k, val in v.items():
        k = str(k).strip()
        if not k or len(k) > 64:
            raise ValueError("keys are 1-64 characters")
        if val is None:
            continue
        if isinstance(val, bool) or not isinstance(val, (str, int, float)):
            raise ValueError(f"value of {k!r} must be a string")
        s = str(val)
        if len(s) > 2000:
            raise ValueError(f"value of {k!r} is too long")
        out[k] = s
    if len(out) > MAX_CUSTOM_FIELDS:
        raise ValueError(f"at most {MAX_CUSTOM_FIELDS} custom fields")
    return out


def clean_lists(v: Any) -> list[str]:
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
        raise ValueError("must be an array of list ids")
    out = list(dict.fromkeys(x.strip() for x in v))
    if len(out) > MAX_LISTS:
        raise ValueError(f"at most {MAX_LISTS} lists")
    return out


def clean_email(v: Any) -> str:
    try:
        return normalise_email(v)
    except InvalidEmail as exc:
        raise ValueError(str(exc)) from None


class ContactOut(View):
    id: str
    email: str
    first_name: str = ""
    last_name: str = ""
    phone: str = ""
    tags: list[str] = []
    custom_fields: dict[str, str] = {}
    lists: list[str] = []
    status: str
    created_at: str
    updated_at: str
