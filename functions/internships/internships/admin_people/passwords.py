"""Set-password links for accounts created by staff (lead convert).

The token is random (256 bits); only its SHA-256 is stored (``pk="PWRESET#<hash>"``,
TTL 72 h). The link points at the web front end's reset page, which posts the token
to the password-reset route of the accounts slice.
"""
from __future__ import annotations

from urllib.parse import quote

from lambdakit import clock
from lambdakit.security import random_token, sha256_hex

from ..settings import settings
from . import repository as repo

TOKEN_TTL_SECONDS = 72 * 3600


def random_password() -> str:
    # never shown to anyone: the user sets their own through the link
    return random_token(24) + "aA1"


def issue_set_password_link(user_id: str, *, purpose: str) -> tuple[str, str]:
    token = random_token(32)
    expires = int(clock.now_ts()) + TOKEN_TTL_SECONDS
    repo.put_password_token(sha256_hex(token), user_id, purpose, expires, clock.now_iso())
    base = (settings().frontend_url or settings().public_base_url).rstrip("/")
    expires_iso = clock.iso(clock.parse_iso("1970-01-01T00:00:00Z").fromtimestamp(expires, tz=clock.now().tzinfo))
    return f"{base}/reset-password?token={quote(token)}", expires_iso
