"""Round 4 auth fixtures: the Google stand-in (``local_runtime.oidc``, the same provider ``make dev``
starts) on a free loopback port, with the service configured for it through its settings."""
from __future__ import annotations

import pytest

from tests.internships.r4_auth.helpers import CALLBACK


@pytest.fixture(scope="session")
def oidc_provider():
    from local_runtime.oidc import OidcProvider

    p = OidcProvider("127.0.0.1", 0)
    p.client_id, p.client_secret = p.register_client([CALLBACK])
    yield p
    p.stop()


@pytest.fixture
def google(internships_app, oidc_provider, monkeypatch):
    """The service pointed at the stand-in; yields the provider (``.issuer``, ``.put_user``)."""
    from internships.accounts import oidc
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_GOOGLE_ISSUER", oidc_provider.issuer)
    monkeypatch.setenv("INTERNSHIPS_GOOGLE_CLIENT_ID", oidc_provider.client_id)
    monkeypatch.setenv("INTERNSHIPS_GOOGLE_CLIENT_SECRET", oidc_provider.client_secret)
    reset_settings()
    oidc.forget()
    yield oidc_provider
    monkeypatch.undo()
    reset_settings()
    oidc.forget()
