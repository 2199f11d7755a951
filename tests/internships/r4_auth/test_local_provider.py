"""The Google stand-in of ``make dev`` (local_runtime/oidc.py): parallel runtimes (the e2e suites)
must not fight over its port, and its debugger is off."""
from __future__ import annotations

import json
import urllib.request

import pytest

from local_runtime.oidc import OidcProvider


def test_a_busy_preferred_port_falls_back_to_a_free_one():
    a = OidcProvider("127.0.0.1", 0)
    port = int(a.issuer.rsplit(":", 1)[1])
    b = OidcProvider("127.0.0.1", port)  # taken: another free port, the process keeps running
    try:
        assert b.issuer != a.issuer
        for p in (a, b):
            doc = json.load(urllib.request.urlopen(p.issuer + "/.well-known/openid-configuration", timeout=5))
            assert doc["issuer"] == p.issuer and doc["jwks_uri"] == p.issuer + "/jwks"
        with pytest.raises(OSError):
            OidcProvider("127.0.0.1", port, fallback=False)
    finally:
        a.stop()
        b.stop()


def test_no_werkzeug_debugger_and_pkce_in_front():
    from werkzeug.debug import DebuggedApplication

    p = OidcProvider("127.0.0.1", 0)
    try:
        app = p._server.app
        assert not isinstance(app.wsgi_app, DebuggedApplication) and app.debug is False
        assert app.wsgi_app is p.pkce and not isinstance(p.pkce.app, DebuggedApplication)
    finally:
        p.stop()
