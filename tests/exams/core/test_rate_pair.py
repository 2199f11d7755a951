"""Issue 21: a strict route's two rate limits (global + strict) counted in ONE UpdateItem on the
global window's item, each limit still decided on its own exactly as two ``hit`` calls decide it
(same 429, same X-RateLimit-* headers); limits that cannot share an item keep two calls."""
from __future__ import annotations

import time

import pytest

from lambdakit import clock, ratelimit
from lambdakit import settings as lk_settings


@pytest.fixture(autouse=True)
def _reset():
    ratelimit.forget()
    yield
    ratelimit.forget()
    clock.set_offset(0)
    lk_settings.reset_settings()


def _limits(monkeypatch, strict: str, glob: str) -> None:
    monkeypatch.setenv("EXAMS_STRICT_RATE_LIMIT", strict)
    monkeypatch.setenv("EXAMS_GLOBAL_RATE_LIMIT", glob)
    lk_settings.reset_settings()


@pytest.fixture
def updates():
    from lambdakit import aws

    calls: list[str] = []

    def rec(params, **_):
        calls.append(params["Key"]["pk"]["S"])

    ddb = aws.client("dynamodb")
    ddb.meta.events.register("before-parameter-build.dynamodb.UpdateItem", rec, unique_id="rate-pair")
    yield calls
    ddb.meta.events.unregister("before-parameter-build.dynamodb.UpdateItem", unique_id="rate-pair")


def _move_to(ts: float) -> None:
    clock.set_offset(ts - time.time())


def _at_window_start(seconds: int = 900) -> float:
    """Move the clock to 5 s into the next global window (a test never straddles a window
    boundary); returns that window's start."""
    start = (int(time.time() // seconds) + 1) * seconds
    _move_to(start + 5)
    return start


def test_a_strict_request_counts_both_limits_in_one_update(exams_app, exam_users, monkeypatch, updates):
    _limits(monkeypatch, "3/minute", "6/15minutes")
    sa = exam_users.super_admin()
    _at_window_start()
    api = exams_app.exams
    updates.clear()
    rems = []
    for _ in range(4):
        r = api.post("/api/create-user", json={"email": "bad"}, headers=sa.headers)
        rems.append((r.status, r.headers["x-ratelimit-limit"], r.headers["x-ratelimit-remaining"]))
    assert [u for u in updates if u.startswith("RL#")] == [f"RL#global:user:{sa.id}"] * 4
    # the smaller remaining is shown (strict), then strict's refusal
    assert rems == [(400, "3", "2"), (400, "3", "1"), (400, "3", "0"), (429, "3", "0")]
    assert r.json()["details"]["window"] == 60 and int(r.headers["retry-after"]) > 0
    # the global limit counted all four: two more admitted, then the global refusal
    for _ in range(2):
        assert api.get("/api/settings", headers=sa.headers).status == 200
    r = api.get("/api/settings", headers=sa.headers)
    assert r.status == 429 and r.json()["details"]["window"] == 900 and r.headers["x-ratelimit-limit"] == "6"


def test_global_exhausted_by_other_routes_refuses_a_strict_route_with_the_global_limit(
        exams_app, exam_users, monkeypatch):
    _limits(monkeypatch, "5/minute", "3/15minutes")
    sa = exam_users.super_admin()
    start = _at_window_start()
    api = exams_app.exams
    for _ in range(3):
        r = api.get("/api/settings", headers=sa.headers)
        assert r.status == 200
    assert r.headers["x-ratelimit-remaining"] == "0"
    r = api.post("/api/create-user", json={"email": "bad"}, headers=sa.headers)
    assert r.status == 429 and r.json()["details"] == {"retry_after": int(r.headers["retry-after"]), "limit": 3,
                                                       "window": 900}
    # the next strict window (same global window) is still refused by the global limit, not strict's
    _move_to(start + 65)
    r = api.post("/api/create-user", json={"email": "bad"}, headers=sa.headers)
    assert r.status == 429 and r.json()["details"]["window"] == 900


def test_the_strict_limit_resets_with_its_window_inside_the_global_one(exams_app, exam_users, monkeypatch):
    _limits(monkeypatch, "2/minute", "10/15minutes")
    sa = exam_users.super_admin()
    start = _at_window_start()
    api = exams_app.exams
    st = [api.post("/api/create-user", json={"email": "bad"}, headers=sa.headers).status for _ in range(3)]
    assert st == [400, 400, 429]
    _move_to(start + 61)
    ratelimit.forget()  # a new process too: the stored counts decide
    st = [api.post("/api/create-user", json={"email": "bad"}, headers=sa.headers).status for _ in range(3)]
    assert st == [400, 400, 429]
    r = api.get("/api/settings", headers=sa.headers)  # global: 6 counted (2 strict refusals included)
    assert r.status == 200 and r.headers["x-ratelimit-remaining"] == "3"


def test_limits_that_cannot_share_an_item_keep_two_updates(exams_app, exam_users, monkeypatch, updates):
    _limits(monkeypatch, "2/7minutes", "50/15minutes")  # 420 s does not divide 900 s
    sa = exam_users.super_admin()
    _at_window_start()
    updates.clear()
    st = [exams_app.exams.post("/api/create-user", json={"email": "bad"}, headers=sa.headers).status
          for _ in range(3)]
    assert st == [400, 400, 429]
    rl = [u for u in updates if u.startswith("RL#")]
    assert rl == [f"RL#global:user:{sa.id}", f"RL#strict:user:{sa.id}"] * 3


def test_pairing_rules():
    from lambdakit.ratelimit import can_pair

    assert can_pair((1000, 900), (100, 60))
    assert not can_pair((1000, 900), (100, 420))
    assert not can_pair((100_000, 900), (100, 60))  # a sharded global limit
