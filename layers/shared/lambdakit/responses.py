"""Every route's answer goes out through its response model (issue 35).

A route names its response model once, in its documentation (``openapi.doc(response=...,
status=..., list_key=..., paginated=..., also=...)``). The resolver-wide ``middleware`` that
``http.make_resolver`` installs binds that declaration for the request, and each service's
success helpers (``ok``, ``paginated``) hand their payload to ``through_model`` before it is
serialised: the payload is validated by the model and dumped (``lambdakit.model.dump``), so a key
the model does not declare never leaves the service and a declared key of the wrong type is a
500 (logged with the route, the model and the failing locations, never the values). What the
OpenAPI document shows is what is returned, and nothing else.

- A payload the domain already dumped through a caller's view (``model.dump`` returns a
  ``Shaped`` dict) passes unchanged: a route documented as a union of views (student, share-code
  visitor, admin) is shaped by the domain that knows the caller.
- A list route (``list_key``/``paginated``) dumps every item; the envelope's own keys around the
  list (``pagination``, ``total``...) are the service's (``siblings``) and are kept, any other is
  dropped.
- A 2xx JSON answer of a route that has a model but did not pass ``through_model``
  (``RESPONSE_NOT_SHAPED``), or with a 2xx status the route does not document
  (``RESPONSE_STATUS_UNDOCUMENTED``), and a file answer of a media type the route does not name in
  ``doc(also_content=...)`` (``RESPONSE_CONTENT_UNDOCUMENTED``), is a 500 when ``LAMBDAKIT_RESPONSES_STRICT`` is set (the test
  suite) and an error log line otherwise.
- ``LAMBDAKIT_RESPONSE_AUDIT=<dir>``: nothing is changed; what shaping would drop, add or refuse
  is written to ``<dir>/<pid>.jsonl`` (the migration of routes onto their models).
"""
from __future__ import annotations

import importlib
import json
import os
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator

from .openapi import KEY

_current: ContextVar["_Bound | None"] = ContextVar("lambdakit_response_route", default=None)


class Shaped(dict):
    """A payload already dumped through a response model (``lambdakit.model.dump``)."""


class ResponseModelMismatch(Exception):
    """A route's payload does not validate against its own response model."""


@dataclass
class _Bound:
    route_key: str
    spec: dict
    shaped: set[int] = field(default_factory=set)


@lru_cache(maxsize=None)
def model_for(ref: str) -> Any:
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def _ref(spec: dict, status: int) -> tuple[str | None, bool]:
    """(model reference, listed) of the answer ``status`` of a route (a file or redirect route's
    main answer has none; its ``also`` answers are JSON models all the same)."""
    if status == int(spec.get("status", 200)):
        if _file_route(spec):
            return None, False
        return spec.get("response"), bool(spec.get("list_key") is not None or spec.get("paginated"))
    return (spec.get("also") or {}).get(str(status)), False


def _file_route(spec: dict) -> bool:
    return bool(spec.get("redirect") or spec.get("content_type"))


def middleware(app: Any, next_middleware: Callable) -> Any:
    route = (getattr(app, "context", None) or {}).get("_route")
    spec = (getattr(route, "openapi_extensions", None) or {}).get(KEY)
    if spec is None:
        return next_middleware(app)
    ev = app.current_event
    bound = _Bound(f"{ev.http_method.upper()} {getattr(route, 'path', ev.path)}", spec)
    token = _current.set(bound)
    try:
        resp = next_middleware(app)
    finally:
        _current.reset(token)
    status = int(getattr(resp, "status_code", 0) or 0)
    if not 200 <= status < 300 or (_file_route(spec) and status == int(spec.get("status", 200))):
        return resp
    ref, _ = _ref(spec, status)
    if ref is None and _is_json(resp):
        # a JSON success the route does not document: clients generated from the OpenAPI
        # document cannot read it
        return _refuse(bound, status, "RESPONSE_STATUS_UNDOCUMENTED", resp)
    if ref and status not in bound.shaped and _is_json(resp):
        return _refuse(bound, status, "RESPONSE_NOT_SHAPED", resp)
    if getattr(resp, "body", None) and not _is_json(resp) and _media(resp) not in (spec.get("also_content") or ()):
        # a file answer the route does not document (``doc(also_content=...)``: internships
        # POST /api/admin/export answers a small export as the CSV itself)
        return _refuse(bound, status, "RESPONSE_CONTENT_UNDOCUMENTED", resp)
    return resp


def _media(resp: Any) -> str:
    ctype = str(getattr(resp, "content_type", "") or (getattr(resp, "headers", None) or {}).get("Content-Type", ""))
    return ctype.split(";", 1)[0].strip().lower()


def _is_json(resp: Any) -> bool:
    ctype = str(getattr(resp, "content_type", "") or (getattr(resp, "headers", None) or {}).get("Content-Type", ""))
    return "json" in ctype and bool(getattr(resp, "body", None))


def _refuse(bound: _Bound, status: int, code: str, resp: Any) -> Any:
    """An answer that escaped its model: logged; a 500 in strict mode (the test suite)."""
    _unshaped(bound, status, code)
    if os.environ.get("LAMBDAKIT_RESPONSES_STRICT") and not _audit_dir():
        from .errors import ApiError

        raise ApiError("Internal server error", code=code, status=500)
    return resp


def through_model(payload: Any, status: int = 200, *, siblings: Iterable[str] = ()) -> Any:
    """``payload`` as the bound route's response model for ``status`` documents it.

    ``payload``: the model's object, a list of them (``paginated`` without ``list_key``), or a
    dict holding that list under ``list_key`` beside the envelope's ``siblings``. Outside a
    route (a domain function called directly) the payload is returned unchanged."""
    bound = _current.get()
    if bound is None:
        return payload
    bound.shaped.add(status)
    ref, listed = _ref(bound.spec, status)
    if ref is None:
        return payload
    model = model_for(ref)
    audit = _audit_dir()
    if audit:
        _seen(audit, bound, status, ref, payload)
    try:
        shaped = _shape(model, payload, listed, bound.spec.get("list_key"), set(siblings))
    except Exception as exc:  # noqa: BLE001 - pydantic's ValidationError or a payload of the wrong kind
        errors = _locations(exc)
        if audit:
            _record(audit, bound, status, ref, {"error": errors})
            return payload
        from .observability import get_logger

        get_logger("lambdakit").error("response does not match its model", extra={
            "route": bound.route_key, "status": status, "model": ref, "errors": errors})
        raise ResponseModelMismatch(f"{bound.route_key}: {ref}") from None
    if audit:
        before, after = set(keypaths(payload)), set(keypaths(shaped))
        extra_allowed = model.model_config.get("extra") == "allow"
        if before != after or extra_allowed:
            _record(audit, bound, status, ref, {"dropped": sorted(before - after), "added": sorted(after - before),
                                                "extra_allow": extra_allowed})
        return payload
    return shaped


def _shape(model: Any, payload: Any, listed: bool, list_key: str | None, siblings: set[str]) -> Any:
    from .model import dump

    def one(item: Any) -> Any:
        return item if isinstance(item, Shaped) else dump(model, item, exclude_unset=True)

    if not listed:
        return one(payload)
    if list_key is None:
        if not isinstance(payload, list):
            raise TypeError("a list route's payload is not a list")
        return [one(x) for x in payload]
    if not isinstance(payload, dict) or not isinstance(payload.get(list_key), list):
        raise TypeError(f"a list route's payload has no list under {list_key!r}")
    out = {k: v for k, v in payload.items() if k in siblings}
    out[list_key] = [one(x) for x in payload[list_key]]
    return out


def keypaths(v: Any, prefix: str = "") -> Iterator[str]:
    """Every key path of a JSON value (``a.b``, list items as ``a[].b``)."""
    if isinstance(v, dict):
        for k, x in v.items():
            p = f"{prefix}.{k}" if prefix else str(k)
            yield p
            yield from keypaths(x, p)
    elif isinstance(v, list):
        for x in v:
            yield from keypaths(x, prefix + "[]")


def _locations(exc: Exception) -> list[str]:
    errs = getattr(exc, "errors", None)
    if callable(errs):
        try:
            return [".".join(str(p) for p in e.get("loc", ())) + f": {e.get('type')}" for e in errs()][:20]
        except Exception:  # noqa: BLE001
            pass
    return [type(exc).__name__ + ": " + str(exc)[:200]]


def _unshaped(bound: _Bound, status: int, code: str) -> None:
    audit = _audit_dir()
    if audit:
        _record(audit, bound, status, None, {"unshaped": code})
        return
    from .observability import get_logger

    get_logger("lambdakit").error("response escaped its model", extra={"route": bound.route_key,
                                                                      "status": status, "code": code})


def _audit_dir() -> str:
    return os.environ.get("LAMBDAKIT_RESPONSE_AUDIT", "")


_SEEN: dict[tuple[str, int, str], set[str]] = {}


def _seen(audit: str, bound: _Bound, status: int, ref: str, payload: Any) -> None:
    """Audit: every key path each route answered with (written when the process ends)."""
    if not _SEEN:
        import atexit

        atexit.register(_flush_seen, audit)
    _SEEN.setdefault((bound.route_key, status, ref), set()).update(keypaths(payload))


def _flush_seen(audit: str) -> None:
    os.makedirs(audit, exist_ok=True)
    with open(os.path.join(audit, f"seen-{os.getpid()}.jsonl"), "a", encoding="utf-8") as fh:
        for (route, status, ref), paths in _SEEN.items():
            fh.write(json.dumps({"route": route, "status": status, "model": ref, "paths": sorted(paths)}) + "\n")


def _record(audit: str, bound: _Bound, status: int, ref: str | None, what: dict) -> None:
    os.makedirs(audit, exist_ok=True)
    line = {"route": bound.route_key, "status": status, "model": ref, **what}
    with open(os.path.join(audit, f"{os.getpid()}.jsonl"), "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line, default=str) + "\n")
