"""Admin CSV export benchmark (moto, in-process, through the real AdminInsightsFunction handler).

Seeds N enrollments in the documented data model (BatchWriteItem), then runs
``POST /api/admin/export {"entity": "enrollments"}``: rows stream from the ``ENROLLS`` index
to an S3 multipart upload and the response carries a presigned URL. The file is read back,
every row counted and every formula-looking cell checked to be neutralised.

    python bench/bench_admin_export.py            # 50,000 enrollments (issue 11 "Done when")
    python bench/bench_admin_export.py --quick    # 5,000
    python bench/bench_admin_export.py --rows 20000 --profile   # cProfile top functions of the export

Prints a table, then one JSON line with the numbers.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "layers" / "shared", ROOT / "functions" / "internships"):
    sys.path.insert(0, str(p))
for k, v in {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1",
             "AWS_REGION": "us-east-1", "POWERTOOLS_METRICS_NAMESPACE": "Bench", "LOG_LEVEL": "WARNING",
             "INTERNSHIPS_SCRYPT_N": "1024"}.items():
    os.environ.setdefault(k, v)
os.environ.pop("AWS_ENDPOINT_URL", None)

EVIL_EVERY = 1000  # one formula-injection name per 1000 rows (+ row 77)


def _enrollment_item(i: int, user: dict, dom: dict) -> dict:
    created = f"2025-02-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d}Z"
    e = {"id": f"bulk{i:06d}", "user_id": user["id"], "domain_id": dom["id"], "domain_name": dom["name"],
         "student_name": '=HYPERLINK("http://x")' if i % EVIL_EVERY == 0 or i == 77 else f"Student {i}",
         "student_email": f"s{i}@example.com", "duration": 1, "price": 1000, "amount": 1000, "discount": 0,
         "status": "active", "payment_status": "paid", "created_at": created, "updated_at": created}
    key = f"{created}#{e['id']}"
    return {"pk": f"ENROLL#{e['id']}", "sk": "ENROLL", "gsi1pk": f"USER#{user['id']}#ENROLLS", "gsi1sk": key,
            "gsi2pk": "ENROLLS", "gsi2sk": key, "gsi3pk": "ENROLLS#active", "gsi3sk": key, **e}


def run(rows: int, profile: bool = False) -> dict:
    from moto import mock_aws

    with mock_aws():
        from local_runtime import testing

        app = testing.start(only=["internships"])
        from internships.accounts import service as accounts
        from internships.settings import settings
        from lambdakit import aws
        from lambdakit.ddb import Table

        sa = accounts.create_user(email="bench-sa@example.com", password="Bench-Passw0rd", name="Bench",
                                  role="super_admin")
        headers = {"Authorization": f"Bearer {accounts.issue_tokens(sa).access_token}"}
        t = Table(settings().table_name)
        dom = {"id": "dombench", "name": "Bench Domain"}
        t0 = time.perf_counter()
        t.batch_write(_enrollment_item(i, sa, dom) for i in range(rows))
        seed_s = time.perf_counter() - t0

        calls: Counter[str] = Counter()

        def hook(model=None, **_):
            calls[f"{model.service_model.service_name}.{model.name}"] += 1

        for c in (aws.client("dynamodb"), aws.client("s3")):
            c.meta.events.register("after-call.*", hook)
        prof = None
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        t0, c0 = time.perf_counter(), time.process_time()
        # "auto" streams to S3 beyond 2,000 rows; "s3" keeps small --rows runs on the same path
        r = app.internships.post("/api/admin/export", headers=headers,
                                 json={"entity": "enrollments", "delivery": "auto" if rows > 2000 else "s3"})
        export_s, export_cpu = time.perf_counter() - t0, time.process_time() - c0
        if prof:
            import pstats

            prof.disable()
            pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(30)
        body = r.json()
        assert r.status == 200 and body["mode"] == "s3" and body["rows"] == rows, r.text[:300]
        key = body["url"].split(".amazonaws.com/", 1)[1].split("?", 1)[0]
        data = aws.client("s3").get_object(Bucket=settings().files_bucket, Key=key)["Body"].read()
        table = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
        col = table[0].index("student_name")
        evil = sum(1 for x in table[1:] if x[col].startswith("'="))
        raw = sum(1 for x in table[1:] for cell in x if cell[:1] in ("=", "+", "-", "@"))
        expected_evil = len({i for i in range(rows) if i % EVIL_EVERY == 0} | ({77} if rows > 77 else set()))
        assert len(table) == rows + 1 and evil == expected_evil and raw == 0, (len(table), evil, raw)
        return {"rows": rows, "seed_seconds": round(seed_s, 1), "export_seconds": round(export_s, 2),
                "export_cpu_seconds": round(export_cpu, 2),
                "rows_per_second": round(rows / export_s), "bytes": len(data), "neutralised_cells": evil,
                "unsafe_cells": raw, "calls": dict(sorted(calls.items()))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="5,000 rows instead of 50,000")
    ap.add_argument("--rows", type=int, default=None)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    rows = args.rows or (5_000 if args.quick else 50_000)
    res = run(rows, args.profile)
    print(f"{'rows':>8} {'seed s':>8} {'export s':>9} {'cpu s':>7} {'rows/s':>8} {'MB':>6}  calls")
    print(f"{res['rows']:>8} {res['seed_seconds']:>8} {res['export_seconds']:>9} {res['export_cpu_seconds']:>7} "
          f"{res['rows_per_second']:>8} "
          f"{res['bytes'] / 1e6:>6.1f}  {res['calls']}")
    print(json.dumps({"bench": "admin_export", **res}))


if __name__ == "__main__":
    main()
