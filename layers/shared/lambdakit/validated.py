"""Shared validated field types for the services' pydantic models (issue 17).

``WebUrl``: every user-given URL that is stored and later shown (submission URLs, logo and
avatar URLs, profile links, resource links, preview URLs) is an absolute ``http``/``https``
URL with a host, no whitespace or control characters, no credentials, at most 2,048
characters. ``""`` is accepted where a model lets a client clear the value. Webhook URLs keep
their own stricter outbound checks (``lambdakit.ssrf``) on top.

``FreeDict``: every free-form object a client sends (metadata, template
variables, custom fields, filters) is bounded: nesting depth, number of keys (at every level
and in total), key length, string length, list length; values are strings, finite numbers,
booleans, null, bounded lists of those, or nested objects within the depth.

Both raise ``ValueError``, which pydantic turns into a field error; the services render it as
their validation error (422/400), never a 500.
"""
from __future__ import annotations

import math
import re
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AfterValidator, BeforeValidator, Field

from .model import MULTILINE

URL_MAX_LENGTH = 2048
_BAD_URL_CHARS = re.compile(r"[\x00-\x20\x7f-\x9f\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
URL_PATTERN = r"^(https?://[^\s/?#]+([/?#]\S*)?)?$"


def web_url(v: Any) -> Any:
    """``v`` if it is an http(s) URL (or ``""``/``None``); ``ValueError`` otherwise."""
    if v is None or v == "":
        return v
    if not isinstance(v, str):
        raise ValueError("must be an http(s) URL")
    if len(v) > URL_MAX_LENGTH:
        raise ValueError(f"must be at most {URL_MAX_LENGTH} characters")
    if _BAD_URL_CHARS.search(v):
        raise ValueError("must be an http(s) URL without spaces or control characters")
    try:
        parts = urlsplit(v)
        host = parts.hostname
        parts.port  # noqa: B018 - validates the port
    except ValueError:
        raise ValueError("must be a valid http(s) URL") from None
    if parts.scheme.lower() not in ("http", "https") or not host:
        raise ValueError("must be an http(s) URL")
    if parts.username is not None or parts.password is not None:
        raise ValueError("must not carry credentials")
    return v


def _strip(v: Any) -> Any:
    return v.strip() if isinstance(v, str) else v


#: An absolute http(s) URL (or ``""``). Use as ``WebUrl | None``; a field's own
#: ``Field(max_length=...)`` may lower the length limit.
WebUrl = Annotated[str, BeforeValidator(_strip), AfterValidator(web_url),
                   Field(max_length=URL_MAX_LENGTH, json_schema_extra={"format": "uri", "pattern": URL_PATTERN})]


def check_free_value(value: Any, *, max_depth: int = 4, max_keys: int = 50, max_total_keys: int = 200,
                     max_key_length: int = 100, max_string_length: int = 10_000, max_list_length: int = 100,
                     path: str = "") -> Any:
    """``value`` (a dict) if within the bounds; ``ValueError`` naming the offending path."""
    if not isinstance(value, dict):
        raise ValueError("must be an object")
    total = 0
    stack: list[tuple[Any, int, str]] = [(value, 1, path)]
    while stack:
        cur, depth, where = stack.pop()
        at = f" at {where}" if where else ""
        if isinstance(cur, dict):
            if depth > max_depth:
                raise ValueError(f"nested deeper than {max_depth} levels{at}")
            if len(cur) > max_keys:
                raise ValueError(f"at most {max_keys} keys per object{at}")
            total += len(cur)
            if total > max_total_keys:
                raise ValueError(f"at most {max_total_keys} keys in all")
            for k, v in cur.items():
                if not isinstance(k, str) or not k or len(k) > max_key_length:
                    raise ValueError(f"keys are 1-{max_key_length} characters{at}")
                if _SURROGATE.search(k):
                    raise ValueError(f"keys must be valid Unicode{at}")
                stack.append((v, depth + 1, f"{where}.{k}" if where else k))
        elif isinstance(cur, list):
            if depth > max_depth + 1:
                raise ValueError(f"nested deeper than {max_depth} levels{at}")
            if len(cur) > max_list_length:
                raise ValueError(f"lists hold at most {max_list_length} items{at}")
            stack.extend((v, depth + 1, f"{where}[{i}]") for i, v in enumerate(cur))
        elif isinstance(cur, str):
            if len(cur) > max_string_length:
                raise ValueError(f"strings are at most {max_string_length} characters{at}")
            if _SURROGATE.search(cur):
                raise ValueError(f"strings must be valid Unicode{at}")
        elif isinstance(cur, float):
            if not math.isfinite(cur):
                raise ValueError(f"numbers must be finite{at}")
        elif cur is None or isinstance(cur, (bool, int)):
            continue
        else:
            raise ValueError(f"values are strings, numbers, booleans, null, lists or objects{at}")
    return value


def _check_default(v: dict[str, Any]) -> dict[str, Any]:
    return check_free_value(v)


#: A bounded free-form object: depth 4, 50 keys per object, 200 in all, keys of 1-100
#: characters, strings of at most 10,000 characters, lists of at most 100 items. Its string values
#: may span lines (``lambdakit.model``: multi-line); control characters are refused as everywhere.
FreeDict = Annotated[dict[str, Any], AfterValidator(_check_default), MULTILINE]
