"""Local bootstrap for ``make dev``: the super admin in the emulator's Cognito, plus its profile.

Called by the local runtime after provisioning, with ``AWS_ENDPOINT_URL`` pointing at the
emulator and the functions' environment exported. Returns what ``dev.json`` shows under
``exams``. Sign in with ``InitiateAuth`` (USER_PASSWORD_AUTH) against the emulator using
``identity.client_id`` and send the IdToken as ``Authorization: Bearer``.

Tokens: the emulator signs ID tokens with issuer
``https://cognito-idp.<region>.amazonaws.com/<user_pool_id>`` — exactly the template's
``EXAMS_JWT_ISSUER`` — and audience = the app client id (``EXAMS_JWT_AUDIENCE``). In the
``local`` stage the JWKS URL (``EXAMS_JWKS_URL``, the real Cognito URL) is redirected to
``$AWS_ENDPOINT_URL/<user_pool_id>/.well-known/jwks.json`` (see ``exams.identity.jwks``).
"""
from __future__ import annotations

import os

from lambdakit.security import random_token

DEFAULT_EMAIL = "superadmin@example.com"


def seed() -> dict:
    from .settings import settings
    from .users.bootstrap import ensure_super_admin

    s = settings()
    email = os.environ.get("EXAMS_DEV_SUPER_ADMIN_EMAIL", DEFAULT_EMAIL).lower()
    password = os.environ.get("EXAMS_DEV_SUPER_ADMIN_PASSWORD") or f"Sa{random_token(12)}7x"
    ensure_super_admin(email, password, "Super Admin")
    return {"identity": {"user_pool_id": s.user_pool_id, "client_id": s.jwt_audience},
            "super_admin": {"email": email, "password": password}}
