"""Cost per request: AWS calls (DynamoDB, SQS, S3...) and DynamoDB items read per request for
the main routes of every service, at two data sizes, to show that nothing grows with data.

In-process moto, through the real handlers (``local_runtime.testing``), counted with the
botocore after-call hook of ``bench/callcount.py``. For each service one real object is
created through the API (a contact, a question, a student), then cloned N times straight into
the service's table with BatchWriteItem (every item that carries the object's id is copied
with a fresh id), so the large size costs seconds, not an hour of API calls. Each route is
then called once at the small size and once at the large size.

    python bench/bench_cost.py            # 100 and 100,000 rows per service
    python bench/bench_cost.py --quick    # 100 and 1,000 rows

Prints one table (route, calls and items read at both sizes, "grows" flag) and a JSON line.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "layers" / "shared", ROOT / "functions" / "campaigns", ROOT / "functions" / "exams",
          ROOT / "functions" / "internships"):
    sys.path.insert(0, str(p))
for k, v in {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1",
             "AWS_REGION": "us-east-1", "POWERTOOLS_METRICS_NAMESPACE": "Bench", "LOG_LEVEL": "WARNING",
             "INTERNSHIPS_SCRYPT_N": "1024", "POWERTOOLS_DEV": "false"}.items():
    os.environ.setdefault(k, v)
os.environ.pop("AWS_ENDPOINT_URL", None)

from bench.callcount import count_calls  # noqa: E402  (hook before any client exists)


def _table(env, lid: str = "Table"):
    import boto3

    name = env.refs.get(lid) or next(env.refs[x] for x in env.service.resources_of("AWS::DynamoDB::Table"))
    return boto3.resource("dynamodb", region_name="us-east-1").Table(name)


def clone(env, object_id: str, n: int) -> int:
    """Copy every item of the service table that mentions ``object_id`` ``n`` times with new ids."""
    from bench.seeding import clone_items

    return clone_items(_table(env), [object_id], n)


def measure(api, method: str, path: str, **kw) -> dict:
    with count_calls() as cc:
        r = api.request(method, path, **kw)
    return {"status": r.status, "calls": cc.total(), "ddb": cc.total("dynamodb"), "items": cc.items_read,
            "detail": dict(cc.calls)}


# ---------------------------------------------------------------- per service
def campaigns(app, sizes: list[int]) -> list[dict]:
    from campaigns.auth import create_key

    key, _ = create_key("acct-bench", "bench", role="admin", plan="enterprise")
    h = {"Authorization": f"Bearer {key}"}
    c = app.campaigns
    lid = c.post("/lists", json={"name": "bench"}, headers=h).json()["data"]["id"]
    first = c.post("/contacts", json={"email": "seed@example.com", "first_name": "Seed", "lists": [lid]},
                   headers=h).json()["data"]["id"]
    routes = [("GET", "/contacts", {"query": {"limit": 50}}), ("GET", f"/contacts/{first}", {}),
              ("GET", "/lists", {}), ("GET", f"/lists/{lid}", {}), ("GET", "/api", {}),
              ("GET", "/campaigns", {})]
    rows: list[dict] = []
    have = 1
    for size in sizes:
        clone(app.envs["campaigns"], first, size - have)
        have = size
        for m, p, kw in routes:
            rows.append({"service": "campaigns", "route": f"{m} {p.replace(first, '{id}').replace(lid, '{id}')}",
                         "size": size, **measure(c, m, p, headers=h, **kw)})
        n = len(rows)
        rows.append({"service": "campaigns", "route": "POST /contacts", "size": size,
                     **measure(c, "POST", "/contacts", json={"email": f"new{n}@example.com"}, headers=h)})
    return rows


def exams(app, sizes: list[int]) -> list[dict]:
    import requests

    from exams.identity import jwks
    from lambdakit import settings as lk_settings
    from tests.exams.conftest import ExamUsers
    from tests.exams.delivery.delivery_helpers import mcq

    pool = os.environ["EXAMS_USER_POOL_ID"]
    doc = requests.get(f"https://cognito-idp.us-east-1.amazonaws.com/{pool}/.well-known/jwks.json", timeout=5).json()
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench-jwks-{os.getpid()}.json"
    path.write_text(json.dumps(doc))
    os.environ["EXAMS_JWKS_URL"] = path.as_uri()
    lk_settings.reset_settings()
    jwks.reset()
    users = ExamUsers(app)
    client = users.client(name="Bench", plan_id="enterprise")
    ca = users.client_admin(client["id"])
    st = users.student(client["id"])
    e = app.exams
    q = e.post("/api/questions", json=mcq("Seed"), headers=ca.headers).json()["data"]
    t = e.post("/api/tests", json={"test_name": "Bench", "timer": 30, "question_ids": [q["id"]]},
               headers=ca.headers).json()["data"]
    e.post(f"/api/tests/{t['id']}/publish", headers=ca.headers)
    rows: list[dict] = []
    have = 1
    for size in sizes:
        clone(app.envs["exams"], q["id"], size - have)
        have = size
        for m, p, who in [("GET", "/api/questions", ca), ("GET", "/api/tests", ca), ("GET", f"/api/tests/{t['id']}", ca),
                          ("GET", "/api/profiles", ca), ("GET", "/api/tests", st), ("GET", "/api/attempts", st)]:
            rows.append({"service": "exams", "route": f"{m} {p.replace(t['id'], '{testId}')} ({who.role})",
                         "size": size, **measure(e, m, p, headers=who.headers)})
        rows.append({"service": "exams", "route": "POST /api/questions (client_admin)", "size": size,
                     **measure(e, "POST", "/api/questions", json=mcq(f"Q{size}"), headers=ca.headers)})
        fresh = users.student(client["id"])  # GET /api/attempts above stays at the same student's data
        rows.append({"service": "exams", "route": "POST /api/attempts (student)", "size": size,
                     **measure(e, "POST", "/api/attempts", json={"test_id": t["id"], "student_id": fresh.id},
                               headers=fresh.headers)})
    return rows


def internships(app, sizes: list[int]) -> list[dict]:
    from internships import devseed
    from tests.internships.conftest import UserFactory
    from tests.internships.journey.helpers import make_domain

    devseed.seed()
    users = UserFactory(app)
    admin = users.staff("super_admin")
    st = users.student()
    i = app.internships
    dom = make_domain(i, admin)
    rows: list[dict] = []
    have = 1
    for size in sizes:
        clone(app.envs["internships"], st.id, size - have)
        have = size
        for m, p, h in [("GET", "/api/admin/users", admin.headers), ("GET", "/api/profile", st.headers),
                        ("GET", "/api/domains", {}), ("GET", f"/api/domains/{dom['slug']}", {}),
                        ("GET", "/api/enrollments/my-enrollments", st.headers),
                        ("GET", "/api/admin/analytics", admin.headers)]:
            rows.append({"service": "internships", "route": f"{m} {p.replace(dom['slug'], '{slug}')}", "size": size,
                         **measure(i, m, p, headers=h)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sizes", default=None, help="comma-separated row counts (default 100,100000; quick 100,2000)")
    args = ap.parse_args()
    sizes = [int(x) for x in (args.sizes or ("100,1000" if args.quick else "100,100000")).split(",")]
    from local_runtime.testing import HARNESS

    rows: list[dict] = []
    seconds = {}
    for name, fn in (("campaigns", campaigns), ("exams", exams), ("internships", internships)):
        t0 = time.monotonic()
        app = HARNESS.app(only=[name])
        rows += fn(app, sizes)
        seconds[name] = round(time.monotonic() - t0, 1)
    HARNESS.stop()
    small, large = sizes[0], sizes[-1]
    by = {(r["service"], r["route"], r["size"]): r for r in rows}
    keys = list(dict.fromkeys((r["service"], r["route"]) for r in rows))
    print(f"{'service':<12} {'route':<44} {'status':>6} {'calls':>11} {'ddb':>9} {'items read':>12}  grows")
    print(f"{'':<12} {'':<44} {'':>6} {f'{small}/{large}':>11} {f'{small}/{large}':>9} {f'{small}/{large}':>12}")
    table, grows = [], []
    for svc, route in keys:
        a, b = by.get((svc, route, small)), by.get((svc, route, large))
        if not a or not b:
            continue
        g = b["calls"] > a["calls"] or b["items"] > max(a["items"], 100)
        if g:
            grows.append(f"{svc} {route}")
        print(f"{svc:<12} {route[:44]:<44} {b['status']:>6} {a['calls']:>5}/{b['calls']:<5} {a['ddb']:>4}/{b['ddb']:<4} "
              f"{a['items']:>6}/{b['items']:<5}  {'GROWS' if g else 'no'}")
        table.append({"service": svc, "route": route, "status": b["status"], "calls": [a["calls"], b["calls"]],
                      "items_read": [a["items"], b["items"]], "detail_large": b["detail"]})
    print(json.dumps({"bench": "cost", "sizes": sizes, "routes": len(table), "growing": len(grows), "ok": not grows,
                      "grows": grows, "seconds": seconds, "table": table}))


if __name__ == "__main__":
    main()
