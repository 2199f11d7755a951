"""Examination routes of the fault suite, as data (see driver.RouteCase).

``ctx.extra["tenant"]`` is the delivery slice's ``Tenant`` (a client on the enterprise plan, its
client admin and one student); ``ctx.extra["users"]`` the ``ExamUsers`` factory.
"""
from __future__ import annotations

import json

from tests.exams.delivery.delivery_helpers import mcq

from .driver import Ctx, RouteCase, tag


def _t(ctx: Ctx):
    return ctx.extra["tenant"]


def _data(r):
    return r.json().get("data") if r.status == 200 else {"status": r.status}


def _get(path, who="ca"):
    def read(ctx, v, body):
        return _data(ctx.client.get(path(v), headers=_hdr(ctx, who)))
    return read


def _hdr(ctx: Ctx, who: str) -> dict:
    t = _t(ctx)
    return {"ca": t.ca.headers, "st": t.students[0].headers, "sa": ctx.extra["users"].super_admin().headers}[who]


def _as(who):
    return lambda ctx, v: _hdr(ctx, who)


def _tagged(path: str):
    """The rows of a tenant-wide list that carry this run's tag (so runs do not see each other)."""
    def read(ctx, v, body):
        r = ctx.client.get(path, headers=_hdr(ctx, "ca"))
        rows = r.json().get("data") or []
        return sorted((x for x in rows if v["t"] in json.dumps(x)), key=lambda x: json.dumps(x, sort_keys=True))
    return read


def fresh(ctx: Ctx) -> dict:
    return {"t": tag()}


def fresh_cid(ctx: Ctx) -> dict:
    return {"t": tag(), "cid": _t(ctx).cid}


def fresh_student(ctx: Ctx) -> dict:
    s = ctx.extra["users"].student(_t(ctx).cid, by=_t(ctx).ca)
    return {"t": tag(), "sid": s.id, "email": s.email, "name": s.name}


def draft(ctx: Ctx) -> dict:
    t = tag()
    q = _t(ctx).question(**mcq(f"Q{t}"))
    d = _t(ctx).test([q["id"]], publish=False, test_name=f"E{t}")
    return {"t": t, "id": d["id"], "q": q["id"]}


def published(ctx: Ctx) -> dict:
    t = tag()
    q = _t(ctx).question(**mcq(f"Q{t}", correct="B"))
    d = _t(ctx).test([q["id"]], test_name=f"E{t}")
    return {"t": t, "id": d["id"], "q": q["id"], "student": _t(ctx).students[0].id}


def started(ctx: Ctx) -> dict:
    v = published(ctx)
    v["a"] = _t(ctx).start({"id": v["id"]})["id"]
    return v


def answered(ctx: Ctx) -> dict:
    v = started(ctx)
    r = ctx.client.post(f"/api/attempts/{v['a']}/answers", json={"question_id": v["q"], "student_answer": "B"},
                        headers=_hdr(ctx, "st"))
    assert r.status == 200, r.text
    return v


def _attempt(ctx, v, body):
    d = _data(ctx.client.get(f"/api/attempts/{v['a']}", headers=_hdr(ctx, "st")))
    ans = _data(ctx.client.get(f"/api/attempt-answers/{v['a']}", headers=_hdr(ctx, "st")))
    return {"attempt": d, "answers": ans}


def _started_attempt(ctx, v, body):
    aid = ((body or {}).get("data") or {}).get("id")
    r = ctx.client.get("/api/attempts", headers=_hdr(ctx, "st"))
    mine = [a for a in (r.json().get("data") or []) if a.get("test_id") == v["id"]]
    return {"n": len(mine), "status": [a.get("status") for a in mine], "has_id": bool(aid)}


def client_(ctx: Ctx) -> dict:
    t = tag()
    return {"t": t, "id": ctx.extra["users"].client(name=f"Co{t}")["id"]}


CASES = [
    RouteCase("exams POST /api/questions", "exams", "POST", lambda v: "/api/questions", fresh,
              lambda v: mcq(f"Q{v['t']}"), _tagged("/api/questions?limit=100")),
    RouteCase("exams POST /api/tests", "exams", "POST", lambda v: "/api/tests", fresh,
              lambda v: {"test_name": f"E{v['t']}", "timer": 30, "question_ids": []},
              _tagged("/api/tests?limit=100")),
    RouteCase("exams PUT /api/tests/{id}", "exams", "PUT", lambda v: f"/api/tests/{v['id']}", draft,
              lambda v: {"test_name": f"E{v['t']}x", "timer": 45}, _get(lambda v: f"/api/tests/{v['id']}")),
    RouteCase("exams POST /api/tests/{id}/publish", "exams", "POST", lambda v: f"/api/tests/{v['id']}/publish",
              draft, None, _get(lambda v: f"/api/tests/{v['id']}")),
    RouteCase("exams DELETE /api/tests/{id}", "exams", "DELETE", lambda v: f"/api/tests/{v['id']}", draft,
              None, _get(lambda v: f"/api/tests/{v['id']}")),
    RouteCase("exams POST /api/rpc/clone-test", "exams", "POST", lambda v: "/api/rpc/clone-test", published,
              lambda v: {"test_id": v["id"]}, _tagged("/api/tests?limit=100")),
    RouteCase("exams POST /api/attempts", "exams", "POST", lambda v: "/api/attempts", published,
              lambda v: {"test_id": v["id"], "student_id": v["student"]}, _started_attempt, _as("st")),
    RouteCase("exams POST /api/attempts/{id}/answers", "exams", "POST", lambda v: f"/api/attempts/{v['a']}/answers",
              started, lambda v: {"question_id": v["q"], "student_answer": "B"}, _attempt, _as("st")),
    RouteCase("exams POST /api/attempt-answers", "exams", "POST", lambda v: "/api/attempt-answers", started,
              lambda v: [{"attempt_id": v["a"], "question_id": v["q"], "selected_option": "B"}], _attempt, _as("st")),
    RouteCase("exams POST /api/attempts/{id}/submit", "exams", "POST", lambda v: f"/api/attempts/{v['a']}/submit",
              answered, None, _attempt, _as("st")),
    RouteCase("exams POST /api/rpc/submit-attempt", "exams", "POST", lambda v: "/api/rpc/submit-attempt", answered,
              lambda v: {"attempt_id": v["a"], "time_taken": 60}, _attempt, _as("st")),
    RouteCase("exams POST /api/proctoring/events", "exams", "POST", lambda v: "/api/proctoring/events", started,
              lambda v: {"attempt_id": v["a"], "test_id": v["id"], "event_type": "TAB_SWITCH"}, _attempt, _as("st")),
    RouteCase("exams POST /api/clients", "exams", "POST", lambda v: "/api/clients", fresh,
              lambda v: {"name": f"Co{v['t']}", "plan_id": "growth"}, None, _as("sa")),
    RouteCase("exams PUT /api/clients/{id}", "exams", "PUT", lambda v: f"/api/clients/{v['id']}", client_,
              lambda v: {"limits": {"max_students_per_exam": 7}}, _get(lambda v: f"/api/clients/{v['id']}", "sa"),
              _as("sa")),
    RouteCase("exams PUT /api/superadmin/subscriptions/{id}", "exams", "PUT",
              lambda v: f"/api/superadmin/subscriptions/{v['id']}", client_,
              lambda v: {"plan_id": "enterprise"}, _get(lambda v: f"/api/clients/{v['id']}", "sa"), _as("sa")),
    RouteCase("exams POST /api/packages/request", "exams", "POST", lambda v: "/api/packages/request", fresh,
              lambda v: {"package_type": "basic"}, None, _as("ca")),
    RouteCase("exams POST /api/subscription-requests", "exams", "POST", lambda v: "/api/subscription-requests",
              fresh, lambda v: {"plan_id": "growth"}, None, _as("ca")),
    RouteCase("exams PUT /api/profiles/{id}", "exams", "PUT", lambda v: f"/api/profiles/{v['sid']}", fresh_student,
              lambda v: {"name": f"Renamed {v['t']}"}, _tagged("/api/profiles?limit=100")),
    RouteCase("exams PUT /api/settings", "exams", "PUT", lambda v: "/api/settings", fresh,
              lambda v: {"maintenance_mode": False}, _get(lambda v: "/api/settings", "sa"), _as("sa")),
    RouteCase("exams POST /api/create-user", "exams", "POST", lambda v: "/api/create-user", fresh_cid,
              lambda v: {"email": f"u{v['t']}@exams.example.com", "password": "Passw0rd!x1", "name": f"U {v['t']}",
                         "role": "student", "client_id": v["cid"]}, None, _as("ca")),
]
