"""The public view of a key record (``KeyOut``), apart from the creation bodies (``models``, which
re-exports it): listing and showing keys validate with it without defining those (issue 21)."""
from __future__ import annotations

from ..common.view import View


class KeyRestrictionsOut(View):
    rate_limit: str | None = None
    ip_whitelist: list[str] | None = None
    expires_at: str | None = None


class KeyOut(View):
    key_id: str
    name: str
    prefix: str
    scopes: list[str]
    role: str | None = None
    plan: str
    restrictions: KeyRestrictionsOut
    status: str
    created_at: str
    created_by: str | None = None
    revoked_at: str | None = None
