"""Items a route reads with authentication (issue 21: one round trip fewer on a route's first request).

A route whose first key read has a key known before authentication completes (path parameters,
query, the token's user id) declares it with ``declare(route_key, keys)``, next to the route, in
the style of ``exams.http.PUBLIC_ROUTES``. The service middleware reads those items in
authentication's BatchGetItem (the profile, the login marker, the platform settings and, in a
process without a key set, the stored key set) and hands them to the route, through
``read_with_auth(app)``, only after authentication and the policy table's role check succeeded
and only when the caller has a profile; the route's own middleware (``require``) still runs before
the route. A caller refused anywhere on the way gets exactly the error it got without them, and
nothing read is handed on: the items die with the request (the resolver clears its context).

The route looks its key up in ``read_with_auth(app)`` and reads it itself when absent (not
declared, not read, another key than the one it needs): the domain layer checks the item it gets
(tenant, ownership, token) exactly as one it read. A key that depends on the profile (the caller's
client id or role) cannot be known before the profile is read: it is not declared (never guessed).

``RouteRequest.maybe_super_admin``: keys that only a super admin's request uses (a list without
``client_id``) are declared only while this process has not read the caller's profile with another
role, so a client admin's requests do not keep reading them in vain (a role memory only; whatever
it says, the route checks what it gets).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .principal import SUPER_ADMIN

Key = tuple[str, str]
CONTEXT_KEY = "exams.read_with_auth"
#: longest id (UTF-8 bytes) a declared key is built from: DynamoDB refuses a key over 2048/1024
#: bytes, and that refusal would fail authentication itself (another error than today's)
MAX_ID_BYTES = 256
_ROLES_KEPT = 4096


@dataclass(frozen=True)
class RouteRequest:
    """What a declaration may build keys from: the matched route's path parameters and the query
    string (as the route reads them), and the user id of the token (before its signature is checked:
    the items are handed on only when the token verified with this very user id)."""

    path: Mapping[str, str]
    query: Mapping[str, str]
    user_id: str
    maybe_super_admin: bool = True

    def _id(self, value: Any) -> str | None:
        if not isinstance(value, str) or not value or len(value.encode("utf-8", "surrogatepass")) > MAX_ID_BYTES:
            return None
        return value

    def param(self, name: str) -> str | None:
        """A path parameter usable in a key (``None``: absent, empty or too long)."""
        return self._id(self.path.get(name))

    def arg(self, name: str) -> str | None:
        """A query parameter usable in a key (``None``: absent, empty or too long)."""
        return self._id(self.query.get(name))


@dataclass(frozen=True)
class Reads:
    keys: Callable[[RouteRequest], Iterable[Key]]
    #: the route's own read is strongly consistent: the whole batch is read so (a consistent read of
    #: the profile is one an eventually consistent read may also return)
    consistent: bool = False


ROUTE_READS: dict[str, Reads] = {}
_roles: dict[str, str] = {}


def declare(route_key: str, keys: Callable[[RouteRequest], Iterable[Key]], *, consistent: bool = False) -> None:
    """``keys``: the items the route ``route_key`` ("METHOD /path" as the template declares it) reads first."""
    ROUTE_READS[route_key] = Reads(keys, consistent)


def for_route(route_key: str) -> Reads | None:
    return ROUTE_READS.get(route_key)


def remember_role(user_id: str, role: str) -> None:
    if len(_roles) >= _ROLES_KEPT:
        _roles.clear()
    _roles[user_id] = role


def keys_for(reads: Reads, path: Mapping[str, str] | None, query: Mapping[str, str] | None,
             user_id: str) -> tuple[Key, ...]:
    """The declared keys of one request (none when the declaration cannot build them)."""
    role = _roles.get(user_id)
    req = RouteRequest(path=path or {}, query=query or {}, user_id=user_id,
                       maybe_super_admin=role in (None, SUPER_ADMIN))
    try:
        return tuple(dict.fromkeys(reads.keys(req)))
    except Exception:  # noqa: BLE001 - a faulty declaration must not change the request: no keys
        from lambdakit.observability import get_logger

        get_logger("exams").exception("route read declaration failed")
        return ()


def count_key(req: RouteRequest, key: Callable[[str, str | None], Key]) -> list[Key]:
    """A tenant list's total, ``key(client_id, folder_id)``, when the query names ``client_id`` (and
    ``folder_id``, optional) usable in a key: that tenant is the list's for every caller allowed to
    list it (a client admin or student naming another tenant is refused before the item is used)."""
    cid = req.arg("client_id")
    if cid is None:
        return []
    if req.query.get("folder_id"):
        fid = req.arg("folder_id")
        return [key(cid, fid)] if fid else []
    return [key(cid, None)]


def read_with_auth(app: Any) -> Mapping[Key, dict | None]:
    """The items the route's declaration had read with authentication in this request, by key
    (``None``: no such item; a key absent: not read, the route reads it itself)."""
    return app.context.get(CONTEXT_KEY) or {}


def take(app: Any, key: Key) -> tuple[bool, dict | None]:
    """``(True, item or None)`` when ``key`` was read with authentication, ``(False, None)`` otherwise."""
    got = read_with_auth(app)
    if key in got:
        return True, got[key]
    return False, None
