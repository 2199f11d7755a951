"""Hostile JSON bodies for every route of a service's OpenAPI document (issue 17).

``cases(doc)`` yields, for every POST/PUT/PATCH/DELETE operation (documented body or not), a
list of ``Case(method, path, body, label, url_field)``: a schema-derived base body with one
property (or all of them) replaced by a hostile value:

* ``NaN``, ``Infinity``, ``-Infinity``, ``1e999``: JSON number literals Python parses to
  non-finite floats (raw text, not valid JSON for strict parsers);
* an unpaired surrogate (``"\\ud800"``) in a value and in a key;
* a 10^30 integer, a number DynamoDB cannot store (39 digits);
* nesting 40 levels deep, a 1 MB string;
* CR/LF inside every string;
* ``javascript:``/``data:`` URLs in every URL-like property (name containing url, link, href,
  website, logo, avatar, image).

The quality suite drives them through the real handlers (tests/quality/test_hostile_bodies.py)
and ``make fuzz`` sends them to the local runtime: never a 5xx, always the service's error
format on 4xx, and a URL-like value a 2xx answer stores is http(s).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterator

METHODS = ("post", "put", "patch", "delete")
URL_LIKE = re.compile(r"(url|link|href|website|logo|avatar|image)", re.I)
BAD_URLS = ("javascript:alert(document.domain)", "data:text/html,<script>alert(1)</script>")
PLACEHOLDER = "fuzz0000000000000000000000000000"
NUMBER_LITERALS = ("NaN", "Infinity", "-Infinity", "1e999", "1" + "0" * 39, "-1" + "0" * 40, "1e40")
_MARK = "\u0000HOSTILE\u0000"
_REFERENCE = re.compile(r"(_id|Id|_ids|Ids|^id|template|schedul|idempotency|parent|password|token|code|secret)", re.I)


@dataclass
class Case:
    method: str
    path: str
    body: bytes
    label: str
    url_field: str | None = None


def _resolve(doc: dict, schema: Any, depth: int = 0) -> dict:
    if not isinstance(schema, dict) or depth > 8:
        return {}
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return _resolve(doc, doc.get("components", {}).get("schemas", {}).get(name, {}), depth + 1)
    for key in ("allOf", "anyOf", "oneOf"):
        if schema.get(key):
            options = [_resolve(doc, s, depth + 1) for s in schema[key]]
            options = [o for o in options if o.get("type") != "null"] or options
            if key == "allOf":
                merged: dict = {"type": "object", "properties": {}, "required": []}
                for o in options:
                    merged["properties"].update(o.get("properties") or {})
                    merged["required"] += o.get("required") or []
                return merged
            return options[0] if options else {}
    return schema


def example(doc: dict, schema: Any, name: str = "", depth: int = 0) -> Any:
    """A plausible valid value for ``schema`` (not exhaustive: enough to get past validation
    on most routes, so that hostile values reach the code behind it)."""
    s = _resolve(doc, schema, depth)
    if "example" in s:
        return s["example"]
    if "default" in s and s["default"] is not None:
        return s["default"]
    if s.get("enum"):
        return s["enum"][0]
    if "const" in s:
        return s["const"]
    t = s.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if t == "object" or (t is None and "properties" in s):
        if depth > 4:
            return {}
        props = s.get("properties") or {}
        required = set(s.get("required") or [])
        # optional properties too (the base should pass validation, so that hostile values
        # reach the code behind it), except references to other objects and schedules
        return {k: example(doc, v, k, depth + 1) for k, v in props.items()
                if k in required or not (_REFERENCE.search(k) or _resolve(doc, v).get("type") in ("array", "object"))}
    if t == "array":
        n = int(s.get("minItems") or 0)
        return [example(doc, s.get("items") or {}, name, depth + 1) for _ in range(n)]
    if t == "integer":
        return int(s.get("minimum") if s.get("minimum") is not None else 1)
    if t == "number":
        return s.get("minimum") if s.get("minimum") is not None else 1
    if t == "boolean":
        return False
    if t == "string" or t is None:
        fmt = s.get("format")
        if fmt == "email" or "email" in name.lower() or name.lower() in ("to", "cc", "bcc", "reply_to", "from"):
            return "fuzz@example.com"
        if fmt == "date-time":
            return "2030-01-01T00:00:00Z"
        if fmt == "date":
            return "2030-01-01"
        if fmt == "uri" or URL_LIKE.search(name):
            return "https://example.com/x"
        return "x" * max(1, int(s.get("minLength") or 1))
    return None


def body_schema(doc: dict, op: dict) -> dict | None:
    content = ((op.get("requestBody") or {}).get("content") or {}).get("application/json")
    if not content:
        return None
    return _resolve(doc, content.get("schema") or {})


def _encode(body: Any, mark_replacement: str | None = None) -> bytes:
    text = json.dumps(body)
    if mark_replacement is not None:
        text = text.replace(json.dumps(_MARK), mark_replacement)
    return text.encode()


def _with(base: Any, key: str | None, value: Any) -> Any:
    """``base`` with every top-level property (``key`` None) or one replaced by ``value``."""
    if isinstance(base, dict):
        out = dict(base)
        if key is None:
            return {k: value for k in (out or {"x": None})}
        out[key] = value
        return out
    if isinstance(base, list):
        return [_with(base[0] if base else {}, key, value)] if key else [value]
    return {key or "x": value}


def _set(base: Any, path: tuple, value: Any) -> Any:
    """A copy of ``base`` with ``value`` at ``path`` (str: object key, int: list item),
    creating the containers on the way."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        items = list(base) if isinstance(base, list) else []
        first = items[0] if items else {}
        return [_set(first, rest, value)] + items[1:]
    out = dict(base) if isinstance(base, dict) else {}
    out[head] = _set(out.get(head), rest, value)
    return out


def paths(doc: dict, schema: Any, prefix: tuple = (), depth: int = 0) -> Iterator[tuple[tuple, bool]]:
    """``(path, url_like)`` of every property of ``schema`` (nested objects and list items
    included, 3 levels), plus a free key ``"k"`` inside free-form objects."""
    s = _resolve(doc, schema)
    if depth > 3:
        return
    t = s.get("type")
    if t == "array" or "items" in s:
        yield from paths(doc, s.get("items") or {}, prefix + (0,), depth + 1)
        return
    props = s.get("properties") or {}
    for k, v in props.items():
        yield prefix + (k,), bool(URL_LIKE.search(k))
        yield from paths(doc, v, prefix + (k,), depth + 1)
    untyped = t is None and not props and not s.get("enum") and "const" not in s
    if (t == "object" and not props) or untyped or s.get("additionalProperties") not in (None, False):
        if prefix:
            yield prefix + ("k",), False


def _strings(base: Any, value: str) -> Any:
    """``base`` with every string leaf, at any depth (list items and nested objects), replaced by
    ``value`` (CR/LF in every string of a body at once, e.g. ``settings.from_name``)."""
    if isinstance(base, dict):
        return {k: _strings(v, value) for k, v in base.items()}
    if isinstance(base, list):
        return [_strings(v, value) for v in base]
    return value if isinstance(base, str) else base


def _numbers(base: Any, value: int) -> Any:
    """``base`` with every number leaf, at any depth, replaced by ``value`` (issue 32: ±10^40 on
    every number field, nested ones included, in one body)."""
    if isinstance(base, dict):
        return {k: _numbers(v, value) for k, v in base.items()}
    if isinstance(base, list):
        return [_numbers(v, value) for v in base]
    return value if isinstance(base, (int, float)) and not isinstance(base, bool) else base


def _nested(depth: int) -> Any:
    v: Any = "deep"
    for i in range(depth):
        v = {"a": v} if i % 2 else [v]
    return v


def route_cases(doc: dict, path: str, method: str, op: dict) -> list[Case]:
    real_path = re.sub(r"\{[^}]+\}", PLACEHOLDER, path)
    m = method.upper()
    schema = body_schema(doc, op)
    base: Any = example(doc, schema) if schema else {}
    if schema and (schema.get("type") == "array" or "items" in schema) and not base:
        base = [example(doc, schema.get("items") or {})]
    out: list[Case] = []

    def add(label: str, body: Any, literal: str | None = None, url_field: str | None = None) -> None:
        out.append(Case(m, real_path, _encode(body, literal), f"{m} {path}: {label}", url_field))

    for lit in NUMBER_LITERALS:
        add(f"every property = {lit}", _with(base, None, _MARK), lit)
    add("every property = unpaired surrogate", _with(base, None, "x\ud800"))
    add("key with unpaired surrogate", _with(base, "k\udc00", "v"))
    add("every property = 1 MB string", _with(base, None, "x" * (1024 * 1024)))
    add("every property = CR/LF", _with(base, None, "a\r\nb\rc\nd"))
    add("every string, nested included = CR/LF", _strings(base, "line1\r\nX-Injected: 1\r\n"))
    add("60-deep nesting", {"a": _nested(60)})
    if _numbers(base, 10 ** 40) != base:  # only a body that has a number to replace (else it is the plain body)
        add("every number, nested included = 10^40", _numbers(base, 10 ** 40))
        add("every number, nested included = -10^40", _numbers(base, -10 ** 40))
    add("every string, nested included = NUL and C0 controls", _strings(base, "a\u0000b\u001bc\u007f"))
    documented = list(dict.fromkeys(paths(doc, schema or {})))
    found = documented or [(("x",), False)]
    for p, url_like in found:
        name = ".".join(str(x) for x in p)
        top = len(p) == 1 or (len(p) == 2 and isinstance(p[0], int))
        add(f"{name} = NaN", _set(base, p, _MARK), "NaN")
        add(f"{name} = 1e999", _set(base, p, _MARK), "1e999")
        add(f"{name} = unpaired surrogate", _set(base, p, "\ud800"))
        if documented:  # an undocumented "x" on a route without a body is ignored, not stored
            add(f"{name} = 10^40", _set(base, p, 10 ** 40))
            add(f"{name} = -10^40", _set(base, p, -10 ** 40))
        add(f"{name} = CR/LF", _set(base, p, "line1\r\nX-Injected: 1\r\n"))
        if top:
            add(f"{name} = 40-deep nesting", _set(base, p, _nested(40)))
        if url_like:
            for u in BAD_URLS:
                add(f"{name} = {u.split(':')[0]}: URL", _set(base, p, u), url_field=str(p[-1]))
    return out


def cases(doc: dict) -> Iterator[Case]:
    """Every hostile case of every body-taking operation of ``doc``."""
    for path, ops in sorted((doc.get("paths") or {}).items()):
        for method, op in sorted(ops.items()):
            if method in METHODS and isinstance(op, dict):
                yield from route_cases(doc, path, method, op)


def stored_bad_url(body: Any, bad: tuple[str, ...] = BAD_URLS) -> str | None:
    """The first hostile URL a response body echoes back as a value (it was stored), or ``None``."""
    stack = [body]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            stack.extend(cur.values())
        elif isinstance(cur, list):
            stack.extend(cur)
        elif isinstance(cur, str) and cur.strip().lower().startswith(("javascript:", "data:")):
            return cur
    return None


# ---------------------------------------------------------------- hostile query parameters (issue 32)
def _b64(raw: str) -> str:
    import base64

    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


#: Forged, truncated and non-base64 cursors (a real cursor of another list or caller is added by
#: the drivers: ``query_cases(doc, cursors=...)``).
FORGED_CURSORS = ("eyJhIjoxfQ", _b64('{"pk":"ACCT#x","sk":"LIST#1"}'), _b64('{"pk":1' + "0" * 40 + "}"),
                  _b64("[1,2]"), "c1.eyJhIjoxfQ.AAAA", "c1..", "c1", "%%%not-base64!!", "x" * 3000)
QUERY_NUMBERS = ("-1", "0", "1" + "0" * 40, "-1" + "0" * 40, "abc", "1.5", "9" * 5000)
QUERY_DATES = ("2030-13-45", "not-a-date", "1" + "0" * 40, "2030-01-01T25:61:00Z", "0000-00-00")
QUERY_SORTS = ("__proto__", "pk", "desc;drop", "x" * 2000)
QUERY_ANY = ("\u0000", "a\r\nX-Injected: 1", "x" * 5000)
_CURSORISH = re.compile(r"(cursor|token|next|after|before)$", re.I)
_DATEISH = re.compile(r"(date|Date|_at$|^since$|^until$|^from$|^start$|^end$)")
_SORTISH = re.compile(r"(sort|order|group_by|timeframe|format|fields)", re.I)
_NUMBERISH = re.compile(r"^(page|limit|offset|per_page|size|week|olderThanDays|days|count)$", re.I)


def query_values(doc: dict, param: dict, cursors: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Hostile values for one documented query parameter, chosen by its name and schema."""
    name = str(param.get("name") or "")
    s = _resolve(doc, param.get("schema") or {})
    types = s.get("type") if isinstance(s.get("type"), list) else [s.get("type")]
    if s.get("anyOf"):
        types += [_resolve(doc, o).get("type") for o in s["anyOf"]]
    if name == "cursor" or _CURSORISH.search(name):
        return FORGED_CURSORS + tuple(cursors) + QUERY_ANY[:1]
    if "integer" in types or "number" in types or _NUMBERISH.match(name):
        return QUERY_NUMBERS + QUERY_ANY[:1]
    if s.get("format") in ("date", "date-time") or _DATEISH.search(name):
        return QUERY_DATES + QUERY_ANY[:1]
    if _SORTISH.search(name) or s.get("enum"):
        return QUERY_SORTS + QUERY_ANY[:2]
    return QUERY_ANY


def query_cases(doc: dict, cursors: tuple[str, ...] = (), per_param: int | None = None) -> Iterator[Case]:
    """For every GET operation with documented query parameters: each parameter alone with each
    of its hostile values, then all of them hostile at once. The path is ``path?query`` (encoded);
    the body is empty. ``per_param`` (the quick profile of the test suite) keeps that many values
    per parameter (the first, then a rotation over the rest, so that every value is sent somewhere);
    cursor parameters always get every forged and harvested cursor."""
    import zlib
    from urllib.parse import urlencode

    for path, ops in sorted((doc.get("paths") or {}).items()):
        op = ops.get("get") if isinstance(ops, dict) else None
        if not isinstance(op, dict):
            continue
        params = [p for p in op.get("parameters") or [] if isinstance(p, dict) and p.get("in") == "query"]
        if not params:
            continue
        real_path = re.sub(r"\{[^}]+\}", PLACEHOLDER, path)
        for p in params:
            values = query_values(doc, p, cursors)
            if per_param and len(values) > per_param and not (p["name"] == "cursor" or _CURSORISH.search(p["name"])):
                rest = values[1:]
                at = zlib.crc32(f"{path}?{p['name']}".encode()) % len(rest)
                values = (values[0], *(rest * 2)[at:at + per_param - 1])
            for v in values:
                shown = v if len(v) <= 24 else f"{v[:12]}…({len(v)})"
                yield Case("GET", f"{real_path}?{urlencode({p['name']: v})}", b"", f"GET {path}: ?{p['name']}={shown!r}")
        every = {p["name"]: query_values(doc, p, cursors)[0] for p in params}
        yield Case("GET", f"{real_path}?{urlencode(every)}", b"", f"GET {path}: every query parameter hostile")


def cursors_in(body: Any) -> list[str]:
    """The non-empty ``nextCursor``/``next_cursor`` values anywhere in a response body."""
    out, stack = [], [body]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            for k, v in cur.items():
                if k in ("nextCursor", "next_cursor") and isinstance(v, str) and v:
                    out.append(v)
                else:
                    stack.append(v)
        elif isinstance(cur, list):
            stack.extend(cur)
    return out


def number_cases(doc: dict) -> Iterator[Case]:
    """10^40 and -10^40 at every number property (integer or number; nested objects and list
    items included) of every body-taking operation: each must be refused (4xx), issue 32."""
    for path, ops in sorted((doc.get("paths") or {}).items()):
        for method, op in sorted(ops.items()):
            if method not in METHODS or not isinstance(op, dict):
                continue
            schema = body_schema(doc, op)
            if not schema:
                continue
            base: Any = example(doc, schema)
            if (schema.get("type") == "array" or "items" in schema) and not base:
                base = [example(doc, schema.get("items") or {})]
            real_path = re.sub(r"\{[^}]+\}", PLACEHOLDER, path)
            for p, _ in dict.fromkeys(paths(doc, schema)):
                if not _is_number(doc, schema, p):
                    continue
                name = ".".join(str(x) for x in p)
                for v, shown in ((10 ** 40, "10^40"), (-10 ** 40, "-10^40")):
                    yield Case(method.upper(), real_path, _encode(_set(base, p, v)), f"{method.upper()} {path}: {name} = {shown}")


def _is_number(doc: dict, schema: Any, p: tuple) -> bool:
    s = _resolve(doc, schema)
    for part in p:
        if isinstance(part, int) or s.get("type") == "array":
            s = _resolve(doc, s.get("items") or {})
            if isinstance(part, int):
                continue
        s = _resolve(doc, (s.get("properties") or {}).get(part) or {})
    types = s.get("type") if isinstance(s.get("type"), list) else [s.get("type")]
    return bool({"integer", "number"} & set(types))
