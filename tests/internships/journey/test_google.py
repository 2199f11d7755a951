"""Google sign-in against a local fake OpenID provider (token + JWKS on 127.0.0.1)."""
from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KID = "test-key-1"
CLIENT_ID = "client-123.apps.example"


class FakeIdP:
    def __init__(self) -> None:
        self.claims: dict = {}
        self.received: dict = {}
        idp = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):  # noqa: ANN002
                pass

            def do_GET(self):  # noqa: N802
                jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(KEY.public_key()))
                jwk.update(kid=KID, alg="RS256", use="sig")
                self._send({"keys": [jwk]})

            def do_POST(self):  # noqa: N802
                n = int(self.headers.get("content-length", 0))
                idp.received = {k: v[0] for k, v in parse_qs(self.rfile.read(n).decode()).items()}
                now = int(time.time())
                claims = {"iss": "https://accounts.google.com", "aud": CLIENT_ID, "iat": now, "exp": now + 300,
                          **idp.claims}
                tok = jwt.encode(claims, KEY, algorithm="RS256", headers={"kid": KID})
                self._send({"id_token": tok, "access_token": "x", "token_type": "Bearer"})

            def _send(self, body):
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = HTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def idp(internships_app, monkeypatch):
    fake = FakeIdP()
    monkeypatch.setenv("INTERNSHIPS_GOOGLE_CLIENT_ID", CLIENT_ID)
    monkeypatch.setenv("INTERNSHIPS_GOOGLE_CLIENT_SECRET", "shh")
    monkeypatch.setenv("INTERNSHIPS_GOOGLE_AUTH_URL", "https://idp.example/auth")
    monkeypatch.setenv("INTERNSHIPS_GOOGLE_TOKEN_URL", fake.url + "/token")
    monkeypatch.setenv("INTERNSHIPS_GOOGLE_JWKS_URL", fake.url + "/jwks")
    from lambdakit.settings import reset_settings

    reset_settings()
    yield fake
    fake.server.shutdown()
    monkeypatch.undo()
    reset_settings()


def _start(c):
    r = c.get("/api/auth/google")
    assert r.status == 302
    loc = urlsplit(r.headers["location"])
    q = {k: v[0] for k, v in parse_qs(loc.query).items()}
    cookie = next(ck for ck in r.cookies if ck.startswith("oauth-state="))
    assert "HttpOnly" in cookie and "Path=/api/auth/google" in cookie
    return q, cookie.split(";", 1)[0]


def test_google_sign_in_creates_account_and_redirects(internships_app, idp):
    c = internships_app.internships
    q, cookie = _start(c)
    assert q["code_challenge_method"] == "S256" and q["client_id"] == CLIENT_ID and q["scope"] == "openid email profile"
    idp.claims = {"sub": "g-1", "email": "meera@gmail.com", "email_verified": True, "name": "Meera Nair",
                  "picture": "https://lh3.googleusercontent.com/a/pic", "nonce": q["nonce"]}
    r = c.get("/api/auth/google/callback", query={"code": "abc", "state": q["state"]}, headers={"cookie": cookie})
    assert r.status == 302 and r.headers["location"].endswith("/dashboard"), r.headers
    verifier = idp.received["code_verifier"]
    assert base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=") == \
        q["code_challenge"]
    token = next(ck for ck in r.cookies if ck.startswith("auth-token=")).split(";")[0].split("=", 1)[1]
    me = c.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"}).json()["user"]
    assert me["email"] == "meera@gmail.com" and me["avatar_url"] == "https://lh3.googleusercontent.com/a/pic"
    # second sign-in links to the same account
    q2, cookie2 = _start(c)
    idp.claims["nonce"] = q2["nonce"]
    r2 = c.get("/api/auth/google/callback", query={"code": "def", "state": q2["state"]}, headers={"cookie": cookie2})
    assert r2.headers["location"].endswith("/dashboard")


@pytest.mark.parametrize("case,reason", [("state", "invalid_state"), ("nonce", "invalid_nonce"),
                                         ("disposable", "disposable_email"), ("unverified", "email_not_verified"),
                                         ("nocookie", "invalid_state")])
def test_google_failures_redirect_to_login(internships_app, idp, case, reason):
    c = internships_app.internships
    q, cookie = _start(c)
    idp.claims = {"sub": "g-2", "email": "x@gmail.com", "email_verified": True, "nonce": q["nonce"]}
    state = q["state"]
    if case == "state":
        state = "forged"
    elif case == "nonce":
        idp.claims["nonce"] = "other"
    elif case == "disposable":
        idp.claims["email"] = "x@mailinator.com"
    elif case == "unverified":
        idp.claims["email_verified"] = False
    headers = {} if case == "nocookie" else {"cookie": cookie}
    r = c.get("/api/auth/google/callback", query={"code": "abc", "state": state}, headers=headers)
    assert r.status == 302 and r.headers["location"].endswith(f"/login?error={reason}")
    assert not any(ck.startswith("auth-token=") for ck in r.cookies)
