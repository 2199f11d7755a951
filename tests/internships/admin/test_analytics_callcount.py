"""Issue 11: the analytics endpoints answer from counters or the cache, never by reading the data.

DynamoDB calls (counted with bench/callcount.py's botocore hook) and items read are measured for
each analytics route with a small data set and again after adding hundreds of users, enrollments,
milestones and certificates: the calls are identical and the items read do not grow (engagement's
average completion time reads one bounded sample of at most 200 completed enrollments)."""
from __future__ import annotations

from bench.callcount import count_calls
from lambdakit import clock

ROUTES = [("/api/admin/analytics", {"type": "platform"}), ("/api/admin/analytics", {"type": "domains"}),
          ("/api/admin/analytics/engagement", None), ("/api/admin/analytics/conversion", None)]


def _grow(seed, user, dom, n: int, start: int) -> None:
    """n enrollments (a third completed), 3 milestones each, a certificate per completed one, n users."""
    from tests.internships.admin.conftest import Seed

    items = []
    for i in range(start, start + n):
        status = "completed" if i % 3 == 0 else "active"
        created = f"2025-03-01T00:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        e = {"id": f"cc{i:06d}", "user_id": user.id, "student_name": f"S{i}", "student_email": f"s{i}@example.com",
             "domain_id": dom["id"], "domain_name": dom["name"], "duration": 1, "amount": 1000, "status": status,
             "payment_status": "paid", "created_at": created, "activated_at": created,
             "completed_at": "2025-04-01T00:00:00.000Z" if status == "completed" else None}
        items.append(Seed.enrollment_item(e))
        for k in range(1, 4):
            items.append({"pk": f"ENROLL#{e['id']}", "sk": f"MS#{k:02d}", "gsi1pk": "MILESTONES#reviewed",
                          "gsi1sk": f"{created}#{e['id']}-{k}", "id": f"{e['id']}-{k:02d}", "enrollment_id": e["id"],
                          "order": k, "status": "reviewed"})
        items.append({"pk": f"USER#u{i}", "sk": "PROFILE", "gsi1pk": "USERS", "gsi1sk": f"{created}#u{i}",
                      "gsi2pk": "ROLE#student", "gsi2sk": f"{created}#u{i}", "id": f"u{i}", "role": "student",
                      "email": f"u{i}@example.com"})
    seed.t.batch_write(items)
    completed = sum(1 for i in range(start, start + n) if i % 3 == 0)
    for name, by in (("enrollments", n), ("enrollments#status#completed", completed),
                     ("enrollments#status#active", n - completed), (f"enrollments#domain#{dom['id']}", n),
                     ("milestones#reviewed", 3 * n), ("users", n), ("users#role#student", n)):
        seed.counter(name, by)


_shift = [0]


def _ddb(calls) -> dict:
    """DynamoDB calls only (a secret cache refresh after the clock moves is not data access)."""
    return {k: v for k, v in calls.items() if k.startswith("dynamodb.")}


def _measure(api, headers) -> dict:
    out = {}
    for path, q in ROUTES:
        key = path + (f"?type={q['type']}" if q else "")
        _shift[0] += 61  # past the 60 s cache: a MISS recomputes from counters
        clock.set_offset(_shift[0])
        with count_calls() as miss:
            r = api.get(path, headers=headers, query=q)
        assert r.status == 200, r.text
        with count_calls() as hit:
            r2 = api.get(path, headers=headers, query=q)
        assert r2.status == 200
        out[key] = {"miss": (_ddb(miss.calls), miss.items_read), "hit": (_ddb(hit.calls), hit.items_read),
                    "x-cache": (r.headers.get("x-cache"), r2.headers.get("x-cache")), "body": r.json()}
    return out


def test_analytics_calls_do_not_grow_with_data(api, sa, seed, intern_users):
    st = intern_users.student()
    dom = seed.domain("Cloud")
    _grow(seed, st, dom, 6, 0)
    _measure(api, sa.headers)  # warm-up: the cache items exist from now on, as in steady state
    small = _measure(api, sa.headers)
    _grow(seed, st, dom, 300, 10_000)
    large = _measure(api, sa.headers)
    for key in small:
        s, big = small[key], large[key]
        # same DynamoDB operations, same number of calls, whatever the data size
        assert s["miss"][0] == big["miss"][0], (key, s["miss"], big["miss"])
        assert s["hit"][0] == big["hit"][0], (key, s["hit"], big["hit"])
        assert sum(big["miss"][0].values()) <= 16 and "dynamodb.Scan" not in big["miss"][0], (key, big["miss"])
        if key.endswith("engagement"):
            # one bounded sample of completed enrollments for the average completion time
            assert big["miss"][1] <= s["miss"][1] + 200, (key, s["miss"], big["miss"])
        else:
            assert big["miss"][1] == s["miss"][1], (key, s["miss"][1], big["miss"][1])
    # the analytics route serves the second call from the shared 60 s cache with one read
    for key in ("/api/admin/analytics?type=platform", "/api/admin/analytics?type=domains"):
        assert large[key]["x-cache"] == ("MISS", "HIT")
        assert sum(large[key]["hit"][0].values()) < sum(large[key]["miss"][0].values())
    # and the figures do reflect the growth (counters, not a stale constant)
    eng = {t["key"]: t["value"] for t in large["/api/admin/analytics/engagement"]["body"]["tiles"]}
    assert eng["activeEnrollments"] == small_active(small) + 200
    assert large["/api/admin/analytics?type=platform"]["body"]["data"]["milestones"]["reviewed"] == 3 * 306


def small_active(small: dict) -> int:
    return {t["key"]: t["value"] for t in small["/api/admin/analytics/engagement"]["body"]["tiles"]}[
        "activeEnrollments"]
