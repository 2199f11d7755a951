"""``make bench [QUICK=1]``: run every ``bench/bench_*.py`` and print one table.

Each benchmark is a script run in its own interpreter (``python bench/bench_x.py
[--quick]``); its output is shown as it runs and its last line must be JSON (the
machine-readable result). The table lists each benchmark, its status, duration and the
headline fields of that JSON; ``bench/results.json`` gets all of them. Exit status 1 if
a benchmark crashed or printed no JSON (a missed target is reported, not fatal; a
benchmark can fail the run on purpose by exiting non-zero).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def headline(result: dict) -> str:
    keys = [k for k, v in result.items() if k != "bench" and isinstance(v, (int, float, str, bool)) and v is not None]
    return ", ".join(f"{k}={result[k]}" for k in keys[:6])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes (CI: finishes in < 3 min)")
    ap.add_argument("--dir", default=str(HERE), help=argparse.SUPPRESS)
    ap.add_argument("names", nargs="*", help="only these benchmarks (e.g. coldstart)")
    args = ap.parse_args()
    bench_dir = Path(args.dir)
    scripts = sorted(bench_dir.glob("bench_*.py"))
    if args.names:
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in args.names]
    rows, results, failed = [], {}, False
    for script in scripts:
        name = script.stem.removeprefix("bench_")
        print(f"== {name}", flush=True)
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, str(script), *(["--quick"] if args.quick else [])], cwd=ROOT,
                                stdout=subprocess.PIPE, text=True)
        last = ""
        assert proc.stdout is not None
        for line in proc.stdout:
            print("   " + line, end="", flush=True)
            if line.strip():
                last = line.strip()
        code = proc.wait()
        took = time.monotonic() - t0
        try:
            result = json.loads(last)
            ok = code == 0 and isinstance(result, dict)
        except ValueError:
            result, ok = {}, False
        failed |= not ok
        results[name] = result
        rows.append((name, "ok" if ok else f"FAILED (exit {code})", took, headline(result) if result else ""))
    print()
    print(f"{'benchmark':<20} {'status':<16} {'seconds':>8}  result")
    for name, status, took, head in rows:
        print(f"{name:<20} {status:<16} {took:8.1f}  {head}")
    (bench_dir / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    summary: dict = {"bench": "all", "ok": not failed, "count": len(rows)}
    if "coldrequest" in results:  # issue #21: the cold first request's worst ratio to the floor
        summary["cold_request_worst_ratio"] = results["coldrequest"].get("cold_request_worst_ratio")
        summary["cold_request_worst_ratio_vs_binding_floor"] = results["coldrequest"].get(
            "cold_request_worst_ratio_vs_binding_floor")
    if "surge" in results:  # issue #21: the busiest item's writes/s at full scale
        summary["surge_max_item_writes_per_s"] = results["surge"].get("surge_max_item_writes_per_s")
    print(json.dumps(summary))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
