from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Principal:
    """The caller of a request: an API key of an account."""

    account_id: str
    key_id: str
    name: str
    scopes: frozenset[str]
    plan: str
    role: str | None = None
    #: The key's ``restrictions`` (rate_limit, ip_whitelist, expires_at): a key creates no wider key.
    restrictions: dict = field(default_factory=dict, compare=False, hash=False)
