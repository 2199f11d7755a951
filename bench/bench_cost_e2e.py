"""Cost per request for every route the end-to-end tests exercise, at two data sizes.

For each size (100 and 2,000 background rows per entity; ``--quick``: 100 and 1,000 rows and only
the internships admin suite) every e2e suite (``tests/e2e/*``) runs as usual — its own ``python -m local_runtime``
— with two opt-in variables:

* ``LOCAL_COST_LOG=<file>``: the runtime appends one JSON line per invocation with the route
  key, status, AWS calls by ``service.Operation`` and DynamoDB items read/scanned, counted with
  the botocore hook of ``local_runtime/callcount.py`` on the request's thread
  (``local_runtime/costlog.py``);
* ``E2E_SEED_ROWS=<N>``: once its runtime is up, the suite's conftest seeds N background rows
  per entity into the partitions its scenarios read (``bench/seeding.py``: campaigns: contacts
  of the dev key's account; exams: student profiles and questions of another client, which the
  super admin's lists see; internships: student accounts). Lines logged before the seeding
  finished are dropped.

Then, per route (``service`` + template route key): requests seen, and max / median of AWS
calls (data-plane: configuration reads from the Parameters cache, ``secretsmanager``/``ssm``, are
listed but not counted — when a cache refreshes depends on the clock) and DynamoDB items read at
both sizes. **grows** (the rule): the scenarios are the same
at both sizes, so each route gets the same request shapes at both; a route grows if, at the
large size, its max calls, max items read or max items scanned exceed those at the small size.
Queue batches and schedule ticks are listed under their function's logical id, for information
only (a batch's cost follows how many messages it holds, which timing decides, not data size).

Coverage: every route seen in any run must be tabulated at both sizes ("routes exercised by
e2e: N, tabulated: N"); a scenario that failed at one size shows up there, and in ``failed``.

    python bench/bench_cost_e2e.py                  # 100 and 2,000 rows, every e2e scenario
    python bench/bench_cost_e2e.py --quick          # 100 and 1,000 rows, internships admin (CI)
    python bench/bench_cost_e2e.py --sizes 100,20000 --suites campaigns,exams
    python bench/bench_cost_e2e.py --sizes 100,100000 --tabulate /tmp/bench-cost-e2e-xyz   # logs of a run

Why not 100,000 rows here: the emulator cannot hold them behind a live runtime. moto's
TransactWriteItems deep-copies the whole table once per item of the transaction (to roll back),
so with 200,000 items in the campaigns table one ``POST /api-keys`` took 51 s and hit the
client's read timeout (500); at 20,000 items ``POST /contacts`` did too (10 s timeout of the
product's clients); moto's GSI queries also iterate every item of the table, and its server
threads raise "dictionary changed size during iteration" when a write lands mid-query. The
counts do not depend on the emulator's speed, and 2,000 rows is 20x the small size and far
above the page sizes the scenarios ask for (<= 200), so a route that reads "everything" shows up; ``bench_cost``
measures 21 routes in-process at 100,000 rows. ``--sizes 100,10000`` may pass on an idle machine
(untested; here, at load 13 on 2 cores, it hit the timeouts above).

Prints the table and a JSON last line; the per-request lines stay in a temporary directory it names.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITES = {"campaigns": "tests/e2e/campaigns", "exams": "tests/e2e/exams",
          "internships_admin": "tests/e2e/internships_admin", "internships_public": "tests/e2e/internships_public"}
#: --quick (CI only checks that the bench still works; `make bench QUICK=1` must stay under 3 minutes
#: in all): the two internships admin scenarios (12 routes, ~40 s) at 100 and 1,000 rows. ``--suites``
#: picks others in quick mode (the campaigns audience scenario: 24 routes, ~70 s).
QUICK = {"internships_admin": "tests/e2e/internships_admin"}
QUICK_MORE = {"campaigns": "tests/e2e/campaigns/test_campaigns_e2e.py::test_audience_routes_through_the_front",
              "exams": "tests/e2e/exams/test_exams_e2e.py::test_issue6_tenancy_maintenance_and_audit"}
SEEDED = "seeded"  # the marker line tests/e2e/costseed.py appends once the background rows are in


def run_suite(target: str, size: int, log: Path, timeout: float) -> tuple[bool, float, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "CAMPAIGNS_", "EXAMS_", "INTERNSHIPS_"))}
    env.update({"LOCAL_COST_LOG": str(log), "E2E_SEED_ROWS": str(size), "PYTHONUNBUFFERED": "1"})
    t0 = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:randomly", target], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=timeout)
        out, ok = p.stdout + p.stderr, p.returncode == 0
    except subprocess.TimeoutExpired as exc:
        out, ok = f"timeout after {timeout:.0f}s\n{exc.stdout or ''}", False
    return ok, time.monotonic() - t0, out


def read_log(log: Path) -> list[dict]:
    if not log.exists():
        return []
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.strip()]
    marks = [i for i, x in enumerate(lines) if x.get("kind") == "mark" and x.get("label") == SEEDED]
    return [x for x in lines[(marks[-1] + 1 if marks else 0):] if x.get("kind") != "mark"]


#: Configuration reads (secrets, parameters) come from a TTL cache (``lambdakit.secrets``): whether
#: a request refetches depends on the clock, not on data, so they are listed under ``ops`` but
#: not counted in ``calls`` (the issue's figure: DynamoDB/SQS/S3 and other data-plane calls).
CONFIG_SERVICES = ("secretsmanager.", "ssm.")


def data_calls(e: dict) -> int:
    return sum(v for k, v in e["calls"].items() if not k.startswith(CONFIG_SERVICES))


def summarise(entries: list[dict]) -> dict:
    def stat(key: str) -> tuple[int, float]:
        vals = [data_calls(e) if key == "calls" else int(e[key]) for e in entries]
        return max(vals), statistics.median(vals)

    calls, items, scanned = stat("calls"), stat("items_read"), stat("items_scanned")
    ops: dict[str, int] = {}
    for e in entries:
        for k, v in e["calls"].items():
            ops[k] = max(ops.get(k, 0), v)
    return {"n": len(entries), "calls_max": calls[0], "calls_med": calls[1], "items_max": items[0],
            "items_med": items[1], "scanned_max": scanned[0], "ddb_max": max(int(e["ddb"]) for e in entries),
            "statuses": sorted({str(e["status"]) for e in entries}), "ops_max": dict(sorted(ops.items()))}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sizes", default=None, help="comma-separated row counts (default 100,2000; quick 100,1000)")
    ap.add_argument("--suites", default=None, help=f"comma-separated, of {', '.join(SUITES)}")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per suite run")
    ap.add_argument("--tabulate", default=None, help="only tabulate the <size>-<suite>.ndjson logs of this directory")
    args = ap.parse_args()
    sizes = [int(x) for x in (args.sizes or ("100,1000" if args.quick else "100,2000")).split(",")]
    targets = dict(QUICK if args.quick else SUITES)
    if args.suites:
        pick = {**SUITES, **QUICK, **QUICK_MORE} if args.quick else SUITES
        targets = {k: pick[k] for k in args.suites.split(",")}
    tmp = Path(args.tabulate or tempfile.mkdtemp(prefix="bench-cost-e2e-"))
    per_size: dict[int, dict[tuple[str, str, str], list[dict]]] = {size: {} for size in sizes}
    failed, seconds = [], {}
    for name, target in targets.items():  # suite by suite: each finished suite has both sizes
        for size in sizes:
            log = tmp / f"{size}-{name}.ndjson"
            if not args.tabulate:
                ok, took, out = run_suite(target, size, log, args.timeout)
                seconds[f"{name}@{size}"] = round(took, 1)
                seeded = [x for x in out.splitlines() if x.startswith("[costseed]")]
                summary = [x.strip("= ") for x in out.splitlines() if re.search(r"\d+ (passed|failed|error)", x)]
                print(f"# {name} at {size} rows: {'passed' if ok else 'FAILED'} in {took:.0f}s"
                      f" ({summary[-1] if summary else 'no summary'})"
                      f"{' — ' + seeded[0][11:] if seeded else ''}", flush=True)
                if not ok:
                    failed.append(f"{name}@{size}")
                    print("\n".join("#   " + x for x in out.strip().splitlines()[-25:]), flush=True)
            for e in read_log(log):
                per_size[size].setdefault((e["kind"], e["service"], e["route"]), []).append(e)
    small, large = sizes[0], sizes[-1]
    keys = sorted(set(per_size[small]) | set(per_size[large]), key=lambda k: (k[0] != "http", k[1], k[2], k[0]))
    http = [k for k in keys if k[0] == "http"]
    tabulated = [k for k in http if k in per_size[small] and k in per_size[large]]
    hdr = f"{small}/{large}"
    print(f"{'service':<12} {'route':<52} {'reqs':>9} {'calls max':>11} {'calls med':>11} {'items read max':>15} "
          f"{'items med':>13} {'scanned max':>13}  grows")
    print(f"{'':<12} {'':<52} {hdr:>9} {hdr:>11} {hdr:>11} {hdr:>15} {hdr:>13} {hdr:>13}")
    table, grows = [], []
    for k in keys:
        kind, svc, route = k
        a, b = per_size[small].get(k), per_size[large].get(k)
        if not a or not b:
            if kind == "http":
                print(f"{svc:<12} {route[:52]:<52}  only at {small if a else large} rows")
            continue
        sa, sb = summarise(a), summarise(b)
        g = None
        if kind == "http":
            g = (sb["calls_max"] > sa["calls_max"] or sb["items_max"] > sa["items_max"]
                 or sb["scanned_max"] > sa["scanned_max"])
            if g:
                grows.append(f"{svc} {route}")
        label = route if kind == "http" else f"[{kind}] {route}"

        def pair(key: str, sa=sa, sb=sb) -> str:
            return f"{sa[key]:g}/{sb[key]:g}"

        print(f"{svc:<12} {label[:52]:<52} {pair('n'):>9} {pair('calls_max'):>11} {pair('calls_med'):>11} "
              f"{pair('items_max'):>15} {pair('items_med'):>13} {pair('scanned_max'):>13}  "
              f"{'n/a' if g is None else 'GROWS' if g else 'no'}")
        table.append({"kind": kind, "service": svc, "route": route, "requests": [sa["n"], sb["n"]],
                      "calls_max": [sa["calls_max"], sb["calls_max"]], "calls_median": [sa["calls_med"], sb["calls_med"]],
                      "items_read_max": [sa["items_max"], sb["items_max"]],
                      "items_read_median": [sa["items_med"], sb["items_med"]],
                      "items_scanned_max": [sa["scanned_max"], sb["scanned_max"]], "statuses": sb["statuses"],
                      "ops_max_large": sb["ops_max"], "grows": g})
    print(f"routes exercised by e2e: {len(http)}, tabulated: {len(tabulated)}")
    if grows:
        print("growing: " + "; ".join(grows))
    print(f"per-request lines: {tmp}/<size>-<suite>.ndjson")
    print(json.dumps({"bench": "cost_e2e", "sizes": sizes, "routes_exercised": len(http),
                      "routes_tabulated": len(tabulated), "growing": len(grows),
                      "ok": not grows and not failed and len(http) == len(tabulated), "failed": failed,
                      "grows": grows, "seconds": seconds, "table": table}))


if __name__ == "__main__":
    main()
