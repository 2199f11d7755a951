"""Issue #17 item 7: guests cannot exhaust a test's capacity (docs/exams-delivery.md, "Guests").

Identity = hash(test, guest token, IP, User-Agent); one open attempt and ``attempts_allowed`` per
identity; start rates per share code and per share code per IP; a candidate slot is taken by the
first saved answer, atomically under the capacity; the owner sees the guests."""
from __future__ import annotations

import pytest

from tests.exams.delivery.delivery_helpers import Tenant, mcq
from tests.quality.test_concurrency import _outcomes

UA = {"user-agent": "Mozilla/5.0 (exam kiosk)"}


def _start(api, test, name="Guest", *, token=None, ip="198.51.100.7", ua=UA):
    headers = dict(ua)
    if token:
        headers["x-guest-token"] = token
    return api.post("/api/attempts", json={"share_code": test["share_code"], "guest_name": name}, headers=headers,
                    source_ip=ip)


def _answer(api, test, g):
    return api.post(f"/api/attempts/{g['id']}/answers", json={"question_id": test["question_ids"][0],
                                                              "student_answer": "A"},
                    headers={"x-attempt-token": g["attempt_token"]})


def _submit(api, g):
    return api.post(f"/api/attempts/{g['id']}/submit", headers={"x-attempt-token": g["attempt_token"]})


@pytest.fixture
def small(exams_app, exam_users) -> Tenant:
    """A tenant whose tests admit 2 candidates."""
    client = exam_users.client(name="Small", plan_id="growth")
    r = exams_app.exams.put(f"/api/clients/{client['id']}", json={"limits": {"max_students_per_exam": 2}},
                            headers=exam_users.super_admin().headers)
    assert r.status == 200, r.text
    return Tenant(exams_app, exam_users, client, exam_users.client_admin(client["id"]), [])


def _guest_test(ten: Tenant, **kw) -> dict:
    return ten.test([ten.question(**mcq("Q"))["id"]], allow_guests=True, **kw)


def test_one_open_attempt_and_attempts_allowed_per_guest_identity(small):
    api = small.app.exams
    t = _guest_test(small, attempts_allowed=2)
    r = _start(api, t, "Ann")
    assert r.status == 201, r.text
    g1 = r.json()["data"]
    tok = g1["guest_token"]
    assert tok and g1["attempt_token"] and g1["attempt_token"] != tok
    assert any(c.startswith(f"exam_guest={tok};") and "HttpOnly" in c and "Secure" in c for c in r.cookies)
    # the same guest (token, IP, browser) cannot open a second attempt while one is in progress
    r = _start(api, t, "Ann", token=tok)
    assert (r.status, r.json()["error"]) == (409, "GUEST_ATTEMPT_IN_PROGRESS"), r.text
    assert r.json()["details"]["attempt_id"] == g1["id"]
    r = api.post("/api/attempts", json={"share_code": t["share_code"], "guest_name": "Ann"},
                 headers={**UA, "cookie": f"exam_guest={tok}"}, source_ip="198.51.100.7")
    assert r.status == 409  # the cookie is the same identity
    assert _submit(api, g1).status == 200
    r = _start(api, t, "Ann", token=tok)
    assert r.status == 201, r.text
    g2 = r.json()["data"]
    assert g2["attempt_number"] == 2 and g2["guest_token"] == tok
    assert _submit(api, g2).status == 200
    r = _start(api, t, "Ann", token=tok)  # attempts_allowed = 2 holds for guests too
    assert (r.status, r.json()["error"]) == (400, "ATTEMPT_LIMIT_EXCEEDED"), r.text
    # another machine (other IP) with the same token is another identity
    assert _start(api, t, "Ann", token=tok, ip="203.0.113.9").status == 201
    r = _start(api, t, "Ann", token="bad token!")
    assert (r.status, r.json()["error"]) == (400, "VALIDATION_ERROR")


def test_unanswered_guest_attempts_take_no_candidate_slot(small):
    api = small.app.exams
    t = _guest_test(small)
    idle = [_start(api, t, f"Idle {i}", ip=f"192.0.2.{i}").json()["data"] for i in range(5)]  # > capacity 2
    assert all(g["status"] == "in_progress" for g in idle)
    cur = api.get(f"/api/tests/{t['id']}", headers=small.ca.headers).json()["data"]
    assert cur["candidate_count"] == 0
    real = [_start(api, t, f"Real {i}", ip=f"192.0.2.{50 + i}").json()["data"] for i in range(2)]
    for g in real:
        assert _answer(api, t, g).status == 200
        assert _answer(api, t, g).status == 200  # a second save takes no second slot
    assert api.get(f"/api/tests/{t['id']}", headers=small.ca.headers).json()["data"]["candidate_count"] == 2
    r = _answer(api, t, idle[0])
    assert (r.status, r.json()["error"]) == (403, "CANDIDATE_CAPACITY_REACHED"), r.text
    r = _start(api, t, "Late", ip="192.0.2.99")
    assert (r.status, r.json()["error"]) == (403, "CANDIDATE_CAPACITY_REACHED")
    # a guest holding a slot keeps it for a later attempt of the same identity
    assert _submit(api, real[0]).status == 200
    r = _start(api, t, "Real 0", token=real[0]["guest_token"], ip="192.0.2.50")
    assert r.status == 201, r.text
    assert _answer(api, t, r.json()["data"]).status == 200
    assert api.get(f"/api/tests/{t['id']}", headers=small.ca.headers).json()["data"]["candidate_count"] == 2


def test_guest_start_rates_per_ip_and_per_share_code(small, monkeypatch):
    import math
    import time

    from lambdakit import clock
    from lambdakit import settings as lk_settings

    monkeypatch.setenv("EXAMS_GUEST_START_IP_RATE", "3/hour")
    monkeypatch.setenv("EXAMS_GUEST_START_RATE", "5/hour")
    lk_settings.reset_settings()
    # start at the beginning of an hour window, so a slow run never crosses a window boundary
    now = time.time()
    clock.set_offset(math.ceil(now / 3600) * 3600 + 1 - now)
    try:
        api = small.app.exams
        t = _guest_test(small)
        for i in range(3):  # fresh identities (no token) from one IP
            assert _start(api, t, f"G{i}", ip="198.51.100.1").status == 201
        r = _start(api, t, "G3", ip="198.51.100.1")
        assert (r.status, r.json()["error"]) == (429, "RATE_LIMITED"), r.text
        assert r.json()["details"]["scope"] == "share_code_ip" and int(r.headers["retry-after"]) >= 1
        assert _start(api, t, "H0", ip="198.51.100.2").status == 201
        assert _start(api, t, "H1", ip="198.51.100.3").status == 201
        r = _start(api, t, "H2", ip="198.51.100.4")  # the share code's 5 per hour are used up
        assert (r.status, r.json()["details"]["scope"]) == (429, "share_code"), r.text
        other = _guest_test(small)  # another share code has its own budget
        assert _start(api, other, "O", ip="198.51.100.4").status == 201
    finally:
        clock.set_offset(0)
        monkeypatch.delenv("EXAMS_GUEST_START_IP_RATE")
        monkeypatch.delenv("EXAMS_GUEST_START_RATE")
        lk_settings.reset_settings()


def test_owner_sees_the_guests(small, exam_users):
    api = small.app.exams
    t = _guest_test(small)
    a = _start(api, t, "Ann", ip="192.0.2.1").json()["data"]
    _start(api, t, "Bob", ip="192.0.2.2")
    assert _answer(api, t, a).status == 200
    r = api.get(f"/api/tests/{t['id']}/guests", headers=small.ca.headers)
    assert r.status == 200, r.text
    body = r.json()
    assert body["pagination"]["total"] == 2
    rows = {g["guest_name"]: g for g in body["data"]}
    assert set(rows) == {"Ann", "Bob"}
    assert rows["Ann"]["counts_as_candidate"] is True and rows["Bob"]["counts_as_candidate"] is False
    assert rows["Ann"]["attempts"] == 1 and rows["Ann"]["last_attempt_id"] == a["id"]
    assert "198.51" not in r.text and "192.0.2" not in r.text  # no raw IP
    r = api.get(f"/api/tests/{t['id']}/guests", headers=exam_users.super_admin().headers)
    assert r.status == 200 and r.json()["pagination"]["total"] == 2
    st = exam_users.student(small.cid)
    r = api.get(f"/api/tests/{t['id']}/guests", headers=st.headers)
    assert r.status == 403
    r = api.get(f"/api/tests/{t['id']}/guests")
    assert (r.status, r.json()["error"]) == (401, "MISSING_AUTH_TOKEN")


# ------------------------------------------------------------------ concurrency (domain layer, threads)
def test_parallel_starts_of_one_guest_open_one_attempt(small, atomic_ddb):
    from exams.attempts import start
    from exams.attempts.guests import GuestClient

    api = small.app.exams
    t = _guest_test(small)
    tok = _start(api, t, "Setup", ip="192.0.2.200").json()["data"]["guest_token"]  # another IP: own identity
    client = GuestClient(tok, "192.0.2.10", UA["user-agent"])
    out = _outcomes(lambda i: start.start(None, {"share_code": t["share_code"], "guest_name": "Racer"}, client), 12)
    ok = [o for o in out if o[0] == "ok"]
    assert len(ok) == 1, out
    assert all(o == (409, "GUEST_ATTEMPT_IN_PROGRESS") for o in out if o[0] != "ok"), out
    rows = api.get(f"/api/tests/{t['id']}/guests", headers=small.ca.headers).json()["data"]
    racer = [g for g in rows if g["guest_name"] == "Racer"]
    assert len(racer) == 1 and racer[0]["attempts"] == 1


def test_parallel_first_answers_never_exceed_capacity(small, atomic_ddb):
    from exams.attempts import answers as service
    from exams.attempts import start as starting
    from exams.attempts.guests import GuestClient

    api = small.app.exams
    t = _guest_test(small)
    qid = t["question_ids"][0]
    gs = [starting.start(None, {"share_code": t["share_code"], "guest_name": f"G{i}"},
                         GuestClient(None, f"192.0.2.{i}", "ua")) for i in range(10)]
    out = _outcomes(lambda i: service.save_answers(None, gs[i]["id"], gs[i]["attempt_token"],
                                                   [{"question_id": qid, "answer": "A"}]), 10)
    assert len([o for o in out if o[0] == "ok"]) == 2, out
    assert all(o == (403, "CANDIDATE_CAPACITY_REACHED") for o in out if o[0] != "ok"), out
    assert api.get(f"/api/tests/{t['id']}", headers=small.ca.headers).json()["data"]["candidate_count"] == 2
    rows = api.get(f"/api/tests/{t['id']}/guests", headers=small.ca.headers).json()["data"]
    assert sum(g["counts_as_candidate"] for g in rows) == 2
