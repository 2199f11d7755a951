"""Pagination cursors: opaque, signed and bound to one list of one caller (issue 32, item 3).

Every ``cursor``/``nextCursor``/``next_cursor`` a service hands out is made here and read back
here, and nowhere else (``tests/platform/test_cursor_signing.py`` fails on any other codec use).
A cursor is::

    c1.<base64url(JSON of the DynamoDB start key)>.<base64url(HMAC-SHA256(key, scope + payload))>

* **Tamper-evident**: the MAC is checked with ``hmac.compare_digest`` (constant time) before the
  payload is even parsed; a forged, truncated, re-encoded or foreign cursor is refused.
* **Bound**: the MAC covers the *scope* of the request that made it: the matched route (method
  and route pattern, after ``strip_prefixes``: ``/api/v1`` twins share their cursors), its path
  parameters, every query parameter except ``cursor``, ``page`` and ``limit`` (the filters, sort
  keys, dates, search), and the caller (``owner``: each service's resolver names it, e.g. the
  campaigns account, the exams tenant and user, the internships user). A cursor of another list,
  other filters or another caller does not verify.
* **Per-service key**: each service's settings name a Secrets Manager secret
  (``<PREFIX>CURSOR_KEY_ARN``; the template's ``CursorKeySecret``, generated at deploy and by the
  local runtime), read through ``lambdakit.secrets`` (cached five minutes) only when a cursor is
  made or read. Rotating the secret invalidates every cursor in flight: the client gets a 400
  and starts again from the first page. So do deploys that change a list's key layout.

Anything that is not a cursor this service made for this request is ``InvalidCursor``: 400 in the
service's error shape, code ``INVALID_CURSOR``, never a 500. Cursors carried by the service
itself between its own invocations (e.g. the campaigns fan-out position kept on a campaign item)
never leave it and use ``ddb.pack_key``/``ddb.unpack_key``.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from contextlib import contextmanager
from contextvars import ContextVar
from types import SimpleNamespace
from typing import Any, Callable, Iterator

from .errors import ValidationFailed

FORMAT = "c1"
#: Query parameters that move within one list without changing it: not part of the binding.
UNBOUND_PARAMS = frozenset({"cursor", "page", "limit"})
#: Longest cursor accepted (a start key of four short attributes is well under 1 KB).
MAX_CURSOR_LENGTH = 2048
#: What the OpenAPI documents say about every ``cursor`` parameter (one place; see ``openapi``).
CURSOR_DESCRIPTION = ("Opaque, signed cursor from the previous page's next cursor. Valid only for the same "
                      "route, path, filters and caller; anything else (edited, truncated, from another list or "
                      "caller, or issued before the service's cursor key was rotated) is 400 INVALID_CURSOR: "
                      "start again from the first page.")

Owner = Callable[[Any], str]


class InvalidCursor(ValidationFailed):
    status, code = 400, "INVALID_CURSOR"

    def __init__(self, reason: str = "Invalid cursor") -> None:
        super().__init__("cursor is invalid; start again from the first page", fields={"cursor": reason})


class _Binding:
    __slots__ = ("app", "owner", "settings")

    def __init__(self, app: Any, owner: Owner | None, settings: Callable[[], Any] | None) -> None:
        self.app, self.owner, self.settings = app, owner, settings


_current: ContextVar[_Binding | None] = ContextVar("lambdakit_cursor_binding", default=None)


def middleware(owner: Owner | None, settings: Callable[[], Any] | None) -> Callable:
    """The resolver-wide middleware ``http.make_resolver`` installs: binds the request (its app,
    the service's ``owner`` function and settings) for ``encode_cursor``/``decode_cursor``."""

    def bind_cursor_scope(app: Any, next_middleware: Callable) -> Any:
        token = _current.set(_Binding(app, owner, settings))
        try:
            return next_middleware(app)
        finally:
            _current.reset(token)

    return bind_cursor_scope


@contextmanager
def bound(route: str, *, settings: Callable[[], Any], owner: str = "", query: dict[str, str] | None = None,
          path_params: dict[str, str] | None = None) -> Iterator[None]:
    """A request scope without an HTTP request (domain-level tests and tools calling a list
    function directly): ``route`` is ``"<METHOD> <route pattern>"``."""
    method, _, pattern = route.partition(" ")
    ev = SimpleNamespace(http_method=method, path=pattern, query_string_parameters=dict(query or {}))
    app = SimpleNamespace(current_event=ev, context={"_route": SimpleNamespace(path=pattern),
                                                     "_route_args": dict(path_params or {})})
    token = _current.set(_Binding(app, lambda _a: owner, settings))
    try:
        yield
    finally:
        _current.reset(token)


def _binding() -> _Binding:
    b = _current.get()
    if b is None:
        raise RuntimeError("pagination cursors are made and read only while serving an HTTP request")
    return b


def _key(b: _Binding) -> bytes:
    s = b.settings() if b.settings else None
    raw = getattr(s, "cursor_key", "") or ""
    if not raw:
        arn = getattr(s, "cursor_key_arn", "") or ""
        if not arn:
            raise RuntimeError("no cursor key configured (<PREFIX>CURSOR_KEY_ARN)")
        from . import secrets

        raw = secrets.secret_string(arn)
    # a key of its own for cursors even if the secret's value were reused elsewhere
    return hmac.new(raw.encode(), b"lambdakit/cursor/" + FORMAT.encode(), hashlib.sha256).digest()


def scope(app: Any, owner: Owner | None) -> bytes:
    """What a cursor is bound to: route, path parameters, filters and caller (canonical JSON)."""
    ctx = getattr(app, "context", {}) or {}
    route = ctx.get("_route")
    ev = app.current_event
    params = {k: v for k, v in (ev.query_string_parameters or {}).items() if k not in UNBOUND_PARAMS}
    doc = {
        "m": ev.http_method.upper(),
        "r": getattr(route, "path", None) or ctx.get("_path") or ev.path,
        "p": dict(ctx.get("_route_args") or {}),
        "q": params,
        "o": owner(app) if owner else "",
    }
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(key: bytes, scope_doc: bytes, payload: str) -> bytes:
    return hmac.new(key, FORMAT.encode() + b"\n" + scope_doc + b"\n" + payload.encode(), hashlib.sha256).digest()


def encode_cursor(last_key: dict | None) -> str | None:
    """The cursor that resumes after ``last_key`` (a DynamoDB start key), bound to this request."""
    if not last_key:
        return None
    from .ddbcalls import from_ddb

    b = _binding()
    payload = _b64(json.dumps(from_ddb(last_key), separators=(",", ":"), sort_keys=True).encode())
    return f"{FORMAT}.{payload}.{_b64(_mac(_key(b), scope(b.app, b.owner), payload))}"


def _value_ok(v: object) -> bool:
    """A key value DynamoDB can take back: a valid-Unicode string, or an integer within 38 digits."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return abs(v) < 10 ** 38
    return isinstance(v, str) and not any("\ud800" <= ch <= "\udfff" for ch in v)


def decode_cursor(cursor: str | None) -> dict | None:
    """The start key a cursor carries (``None`` for no cursor); ``InvalidCursor`` (400) for
    anything this service did not issue for this route, these filters and this caller."""
    if cursor is None or cursor == "":
        return None
    if not isinstance(cursor, str) or len(cursor) > MAX_CURSOR_LENGTH:
        raise InvalidCursor()
    parts = cursor.split(".")
    if len(parts) != 3 or parts[0] != FORMAT:
        raise InvalidCursor()
    _, payload, sig = parts
    try:
        given = _unb64(sig)
    except (binascii.Error, ValueError):
        raise InvalidCursor() from None
    b = _binding()
    if not hmac.compare_digest(given, _mac(_key(b), scope(b.app, b.owner), payload)):
        raise InvalidCursor("Cursor does not belong to this list, its filters or this caller")
    try:
        data = json.loads(_unb64(payload))
    except (binascii.Error, ValueError):
        raise InvalidCursor() from None
    if not isinstance(data, dict) or not data or not all(
            isinstance(k, str) and _value_ok(v) for k, v in data.items()):
        raise InvalidCursor()
    from .ddbcalls import to_ddb

    return to_ddb(data)
