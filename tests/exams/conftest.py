"""Fixtures shared by the examination-service tests.

``exam_users`` makes real users through the service's own code and real ID tokens: the
emulator's Cognito signs them (RS256) and the service verifies them against the emulator's
JWKS with the production code path. Under the in-process mock the JWKS document is fetched
from the emulator once and served to the service from a ``file://`` URL (``EXAMS_JWKS_URL``,
a local-stage-only scheme); issuer and audience are the template's values unchanged.
"""
from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass, field

import pytest

SA_EMAIL = "root@exams.example.com"
PASSWORD = "Passw0rd!x"


@dataclass
class User:
    id: str
    email: str
    client_id: str | None
    role: str
    headers: dict[str, str]
    password: str = PASSWORD
    token: str = ""
    name: str = ""
    extra: dict = field(default_factory=dict)


def sign_in(email: str, password: str = PASSWORD) -> str:
    """USER_PASSWORD_AUTH against the emulator's Cognito; returns the IdToken."""
    import boto3

    idp = boto3.client("cognito-idp", region_name="us-east-1")
    r = idp.initiate_auth(ClientId=os.environ["EXAMS_JWT_AUDIENCE"], AuthFlow="USER_PASSWORD_AUTH",
                          AuthParameters={"USERNAME": email, "PASSWORD": password})
    return r["AuthenticationResult"]["IdToken"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class ExamUsers:
    def __init__(self, app) -> None:
        self.app = app
        self._n = itertools.count(1)
        self._sa: User | None = None

    def _email(self, prefix: str) -> str:
        return f"{prefix}{next(self._n)}@exams.example.com"

    def super_admin(self) -> User:
        if self._sa is None:
            from exams.users.bootstrap import ensure_super_admin

            uid = ensure_super_admin(SA_EMAIL, PASSWORD, "Root")
            tok = sign_in(SA_EMAIL)
            self._sa = User(uid, SA_EMAIL, None, "super_admin", bearer(tok), token=tok, name="Root")
        return self._sa

    def client(self, name: str = "Acme", plan_id: str = "growth", **extra) -> dict:
        r = self.app.exams.post("/api/clients", json={"name": name, "plan_id": plan_id, **extra},
                                headers=self.super_admin().headers)
        assert r.status == 201, r.text
        return r.json()["data"]

    def _user(self, role: str, client_id: str | None, by: User | None = None) -> User:
        email = self._email(role.split("_")[-1])
        body = {"email": email, "password": PASSWORD, "name": f"{role} {email}", "role": role,
                "client_id": client_id}
        r = self.app.exams.post("/api/create-user", json=body, headers=(by or self.super_admin()).headers)
        assert r.status == 201, r.text
        d = r.json()["data"]
        tok = sign_in(email)
        return User(d["id"], email, client_id, role, bearer(tok), token=tok, name=d["name"])

    def client_admin(self, client_id: str, by: User | None = None) -> User:
        return self._user("client_admin", client_id, by)

    def student(self, client_id: str, by: User | None = None) -> User:
        return self._user("student", client_id, by)


@pytest.fixture
def exams_jwks(exams_app, tmp_path, monkeypatch):
    """Serve the emulator's JWKS to the service from a file:// URL; returns its path."""
    import requests

    from exams.identity import jwks
    from lambdakit import settings as lk_settings

    pool = os.environ["EXAMS_USER_POOL_ID"]
    doc = requests.get(f"https://cognito-idp.us-east-1.amazonaws.com/{pool}/.well-known/jwks.json", timeout=5).json()
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(doc))
    monkeypatch.setenv("EXAMS_JWKS_URL", path.as_uri())
    lk_settings.reset_settings()
    jwks.reset()
    yield path
    lk_settings.reset_settings()
    jwks.reset()


@pytest.fixture
def rotate_jwks(exams_jwks):
    """Add a new RS256 signing key with ``kid`` to the served key set (a provider's key rotation);
    returns its private key."""
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa

    def rotate(kid: str = "rotated-1"):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
        jwk.update(kid=kid, alg="RS256", use="sig")
        doc = json.loads(exams_jwks.read_text())
        doc["keys"].append(jwk)
        exams_jwks.write_text(json.dumps(doc))
        return key

    return rotate


@pytest.fixture
def exam_users(exams_app, exams_jwks) -> ExamUsers:
    return ExamUsers(exams_app)


@pytest.fixture
def moto_server(monkeypatch):
    """The local runtime's AWS emulator (moto's server behind ``local_runtime.emulator``: each
    request evaluated atomically, as in AWS) instead of the in-process mock; yields its URL."""
    import socket

    from lambdakit import aws, settings
    from local_runtime.emulator import EmulatorServer
    from local_runtime.testing import HARNESS

    # The suite keeps one in-process moto mock per worker; it would intercept every call
    # (and carry state from earlier tests). Stop it so this test really talks to the server.
    HARNESS.stop()
    from moto.core.base_backend import BackendDict

    BackendDict.reset()  # the server shares this process's moto backends: start from a fresh account
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    server = EmulatorServer(ip_address="127.0.0.1", port=port)
    server.start()
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
    aws.reset()
    settings.reset_settings()
    yield f"http://127.0.0.1:{port}"
    server.stop()
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    aws.reset()
    settings.reset_settings()
