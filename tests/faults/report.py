"""Sum up ``.local/faults/results.jsonl`` (written by test_routes.py): prints one JSON line
``{"fault_cases": N, "violations": V, "routes": R}`` (``--table`` also prints the markdown table
of docs/quality.md: route × fault → outcome). Known violations (xfail) are counted apart."""
from __future__ import annotations

import json
import sys
from collections import defaultdict

from tests.faults.driver import FAULTS, RESULTS


def load() -> list[dict]:
    if not RESULTS.exists():
        return []
    return [json.loads(line) for line in RESULTS.read_text().splitlines() if line.strip()]


def outcome(rows: list[dict]) -> str:
    bad = [r for r in rows if r["violations"]]
    statuses = "/".join(str(s) for s in sorted({r["status"] for r in rows}))
    if not bad:
        return f"ok ({statuses})"
    tagname = "xfail" if all(r["xfail"] for r in bad) else "VIOLATION"
    return f"{tagname} at {','.join(str(r['at']) for r in bad)}: {bad[0]['violations'][0][:70]}"


def main() -> int:
    rows = load()
    real = [r for r in rows if r["violations"] and not r["xfail"]]
    # a fault kind the run never injected anywhere (a selector that matches nothing) fails the run
    never = sorted(set(FAULTS) - {r["fault"] for r in rows if r.get("fired")})
    if "--table" in sys.argv:
        by: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
        for r in rows:
            by[r["route"]][r["fault"]].append(r)
        print("| route or worker | fault | outcome (status of the faulted call) |\n|---|---|---|")
        for route in sorted(by):
            for fault, rs in sorted(by[route].items()):
                print(f"| {route} | {fault} | {outcome(rs).replace('|', '/')} |")
    print(json.dumps({"fault_cases": len(rows), "violations": len(real), "routes": len({r["route"] for r in rows}),
                      "known_violations_xfail": sum(1 for r in rows if r["violations"] and r["xfail"]),
                      "faults_never_injected": never}))
    return 1 if real or never else 0


if __name__ == "__main__":
    sys.exit(main())
