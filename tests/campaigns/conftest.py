"""Campaign fixtures shared by every campaign test directory.

All keys are real records written through the domain code into the moto account of
``campaigns_app`` (one fresh account per test).

- ``admin_key``: secret of an Admin key on the pro plan (account ``ACCOUNT``).
- ``auth_headers``: ``{"Authorization": "Bearer <admin_key>"}``.
- ``make_key(role=None, scopes=None, plan="pro", restrictions=None, account_id=ACCOUNT, name=...)``
  → secret of a new key (``role`` defaults to admin when neither role nor scopes is given).
- ``camp``: the campaigns client with ``auth_headers`` sent by default.
"""
from __future__ import annotations

import pytest

ACCOUNT = "acct-test"
OTHER_ACCOUNT = "acct-other"


@pytest.fixture
def make_key(campaigns_app):
    from campaigns.auth import create_key

    def _make(role: str | None = None, scopes=None, plan: str = "pro", restrictions: dict | None = None,
              account_id: str = ACCOUNT, name: str = "test key") -> str:
        if role is None and scopes is None:
            role = "admin"
        secret, _ = create_key(account_id, name, role=role, scopes=scopes, plan=plan, restrictions=restrictions)
        return secret

    return _make


@pytest.fixture
def admin_key(make_key) -> str:
    return make_key(role="admin", plan="pro", name="admin")


@pytest.fixture
def auth_headers(admin_key) -> dict[str, str]:
    return {"Authorization": f"Bearer {admin_key}"}


@pytest.fixture
def camp(campaigns_app, auth_headers):
    client = campaigns_app.campaigns
    client.default_headers = dict(auth_headers)
    yield client
    client.default_headers = {}
