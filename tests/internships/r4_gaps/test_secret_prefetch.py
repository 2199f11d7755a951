"""Issue #21 (cold first request): in a Lambda process, the first authenticated request starts the
signing key's read on a thread and creates the DynamoDB client during its round trip.

The key still comes from Secrets Manager (the same cached read); a request without a token, or with
one too long to be ours, reads nothing; a prefetch that failed leaves the request's own read to
fail or succeed as it would have; only the first request of the process starts one."""
from __future__ import annotations

import threading

import pytest

from bench.callcount import count_calls


@pytest.fixture
def lambda_process(gaps, monkeypatch):
    """Lambda process behaviour (``lambdakit.deferred.active``) with a fresh prefetch state."""
    from internships.auth import secrets_store
    from lambdakit import deferred

    monkeypatch.setattr(deferred, "active", lambda: True)
    monkeypatch.setattr(secrets_store, "_started", set())
    monkeypatch.setattr(secrets_store, "_pending", {})
    secrets_store.forget()
    yield secrets_store
    secrets_store.forget()


def _cold(secrets_store) -> None:
    """As in a fresh process: no key read yet (the test users' tokens were signed with it)."""
    secrets_store._started.clear()
    secrets_store.forget()


@pytest.fixture
def reads(monkeypatch):
    """Every ``lambdakit.secrets.secret_string`` call as the name of the thread that made it."""
    from lambdakit import secrets

    seen: list[str] = []
    real = secrets.secret_string

    def spy(arn, *a, **kw):
        seen.append(threading.current_thread().name)
        return real(arn, *a, **kw)

    monkeypatch.setattr(secrets, "secret_string", spy)
    return seen


def test_the_first_request_reads_the_key_on_a_thread_then_from_the_cache(lambda_process, intern_users, reads):
    from internships.settings import settings

    assert settings().jwt_secret_arn and not settings().jwt_secret  # the key is in Secrets Manager
    c = intern_users.student()
    api = intern_users.app.internships
    _cold(lambda_process)
    reads.clear()
    with count_calls() as cc:
        r = api.get("/api/auth/me", headers=c.headers)
    assert r.status == 200 and r.json()["user"]["id"] == c.id
    assert len(reads) == 2 and reads[0] == "secret-prefetch" and reads[1] != "secret-prefetch"
    assert cc.calls["secretsmanager.GetSecretValue"] == 1  # the request's read hit the prefetch's cache
    assert not lambda_process._pending
    n = len(reads)
    assert api.get("/api/auth/me", headers=c.headers).status == 200
    assert "secret-prefetch" not in reads[n:]  # once per process
    # a process whose first read was its own (a sign-in signs a token) starts none either
    _cold(lambda_process)
    intern_users.student()
    n = len(reads)
    assert api.get("/api/auth/me", headers=c.headers).status == 200
    assert "secret-prefetch" not in reads[n:]


def test_no_token_or_an_oversized_one_reads_no_key(lambda_process, intern_users, reads):
    api = intern_users.app.internships
    for headers, error in (({}, "Authentication required"),
                           ({"Authorization": "Bearer " + "a" * 5000}, "Invalid or expired token")):
        r = api.get("/api/auth/me", headers=headers)
        assert (r.status, r.json()) == (401, {"error": error})
    assert reads == []


def test_a_failed_prefetch_leaves_the_request_its_own_read(lambda_process, intern_users, monkeypatch):
    from lambdakit import secrets

    s = intern_users.student()
    api = intern_users.app.internships
    _cold(lambda_process)
    real, calls = secrets.secret_string, []

    def flaky(arn, *a, **kw):
        calls.append(threading.current_thread().name)
        if threading.current_thread().name == "secret-prefetch":
            raise RuntimeError("throttled")
        return real(arn, *a, **kw)

    monkeypatch.setattr(secrets, "secret_string", flaky)
    r = api.get("/api/auth/me", headers=s.headers)
    assert r.status == 200 and calls[0] == "secret-prefetch" and len(calls) == 2


def test_a_failing_secret_fails_the_request_as_without_the_prefetch(lambda_process, intern_users, monkeypatch):
    from lambdakit import secrets
    from lambdakit.errors import ServiceUnavailable

    s = intern_users.student()
    api = intern_users.app.internships
    _cold(lambda_process)

    def down(arn, *a, **kw):
        raise ServiceUnavailable("Secrets Manager is unavailable")

    monkeypatch.setattr(secrets, "secret_string", down)
    with_prefetch = api.get("/api/auth/me", headers=s.headers)
    monkeypatch.setattr(lambda_process, "_started", set())
    from lambdakit import deferred

    monkeypatch.setattr(deferred, "active", lambda: False)
    without = api.get("/api/auth/me", headers=s.headers)
    assert (with_prefetch.status, with_prefetch.json()) == (without.status, without.json())
    assert with_prefetch.status == 503


def test_the_prefetch_creates_its_client_before_its_thread_starts(lambda_process, intern_users, monkeypatch):
    """The Secrets Manager client is asked for on the request's thread, before the prefetch thread
    starts: the thread's first act is the request, whose round trip then overlaps the DynamoDB
    client's creation (on the thread, the client would queue behind it)."""
    from lambdakit import aws

    c = intern_users.student()
    api = intern_users.app.internships
    _cold(lambda_process)
    real, asked = aws.client, []

    def spy(name, *a, **kw):
        asked.append((name, threading.current_thread().name))
        return real(name, *a, **kw)

    monkeypatch.setattr(aws, "client", spy)
    r = api.get("/api/auth/me", headers=c.headers)
    assert r.status == 200
    sm = [who for name, who in asked if name == "secretsmanager"]
    assert sm[0] == threading.current_thread().name and "secret-prefetch" in sm
    first_ddb = next(i for i, (name, _) in enumerate(asked) if name == "dynamodb")
    assert asked.index(("secretsmanager", threading.current_thread().name)) < first_ddb
