from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Principal:
    """The caller of a request: an API key of an account."""

    account_id: str
    key_id: str
    name: str
    scopes: frozenset[str]
    plan: str
    role: str | None = None
