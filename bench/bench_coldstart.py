"""Cold start: import cost of every function's handler module vs. the floor.

Floor = ``import boto3`` + ``from aws_lambda_powertools.event_handler import
APIGatewayHttpResolver`` (what any Python HTTP Lambda of ours pays). Each function's
handler module and the floor are imported in fresh interpreters with
``python -X importtime``, interleaved (floor, fn, floor, fn...) in one run; the
module import time is the sum of ``self`` times of everything imported beyond a bare
interpreter's startup. The ratio is the function's minimum over the repeats divided by the
minimum floor of the whole run: on a shared machine noise only ever adds time, so minimums
are the best estimate of the intrinsic cost (the median of the side-by-side pairs' ratios
is printed too). Target: ratio <= 1.25.
Functions whose module does not exist yet are reported as missing.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from local_runtime.stack import load_all  # noqa: E402

TARGET = 1.25
FLOOR = "import boto3\nfrom aws_lambda_powertools.event_handler import APIGatewayHttpResolver"


def importtime(code: str, paths: list[str], env: dict[str, str]) -> tuple[float, dict[str, float], str | None]:
    """(total ms beyond startup, {module: self ms}, error)"""
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                       env={**env, "PYTHONPATH": os.pathsep.join(paths)}, cwd=ROOT)
    mods: dict[str, float] = {}
    for line in r.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _cum, name = (p.strip() for p in line[len("import time:"):].split("|"))
        mods[name] = mods.get(name, 0) + int(self_us) / 1000
    err = None if r.returncode == 0 else (r.stderr.strip().splitlines() or ["?"])[-1]
    return sum(mods.values()), mods, err


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int)
    ap.add_argument("--only", action="append", help="logical id(s)")
    ap.add_argument("--top", type=int, default=0, help="print the N costliest modules of each function")
    args = ap.parse_args()
    repeat = args.repeat or (1 if args.quick else 5)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    for svc_prefix in ("CAMPAIGNS", "EXAMS", "INTERNSHIPS"):
        env.setdefault(f"{svc_prefix}_STAGE", "local")  # a function gets it from the template (no default)
    layer = str(ROOT / "layers" / "shared")
    _, startup, _ = importtime("pass", [], env)
    baseline = set(startup)

    def cost(code: str, paths: list[str]) -> tuple[float, dict[str, float], str | None]:
        _, mods, err = importtime(code, paths, env)
        extra = {m: t for m, t in mods.items() if m not in baseline}
        return sum(extra.values()), extra, err

    rows = []
    floors: list[float] = []
    missing: list[str] = []
    for svc in load_all().values():
        for lid, fn in sorted(svc.functions.items()):
            if args.only and lid not in args.only:
                continue
            module = fn.handler.rpartition(".")[0]
            paths = [layer, str(fn.code_dir)]
            probe = subprocess.run([sys.executable, "-c", f"import importlib.util as u; "
                                    f"raise SystemExit(0 if u.find_spec({module!r}) else 3)"],
                                   env={**env, "PYTHONPATH": os.pathsep.join(paths)}, cwd=ROOT, capture_output=True)
            if probe.returncode != 0:
                missing.append(f"{svc.name}.{lid}")
                rows.append((svc.name, lid, None, None, None, "missing"))
                continue
            times, fl = [], []
            err = None
            mods: dict[str, float] = {}
            for _ in range(repeat):
                fl.append(cost(FLOOR, [layer])[0])
                t, mods, err = cost(f"import {module}", paths)
                times.append(t)
            floors.extend(fl)
            ratio = min(times) / min(fl)  # provisional; against the run's floor below
            med = statistics.median(times) / statistics.median(fl)
            rows.append((svc.name, lid, min(times), ratio, med, err or ""))
            if args.top:
                for m, t in sorted(mods.items(), key=lambda kv: -kv[1])[:args.top]:
                    print(f"    {lid:<28} {t:8.1f} ms  {m}")
    floor = min(floors) if floors else None
    if floor:  # every function against the same (least disturbed) floor measurement
        rows = [(s, lid, ms, (ms / floor if ms is not None else None), med, note)
                for s, lid, ms, _, med, note in rows]
    print(f"{'service':<12} {'function':<28} {'import ms':>10} {'ratio':>6} {'median':>7}  note")
    for s, lid, ms, ratio, med, note in rows:
        if ms is None:
            print(f"{s:<12} {lid:<28} {'-':>10} {'-':>6} {'-':>7}  {note}")
        else:
            flag = "" if ratio <= TARGET else "  OVER TARGET"
            print(f"{s:<12} {lid:<28} {ms:10.1f} {ratio:6.2f} {med:7.2f}  {note}{flag}")
    measured = [r for r in rows if r[2] is not None]
    worst = max((r[3] for r in measured), default=None)
    print(json.dumps({"bench": "coldstart", "floor_ms": round(floor, 1) if floor else None, "target": TARGET,
                      "max_ratio": round(worst, 3) if worst else None,
                      "ok": all(r[3] <= TARGET and not r[5] for r in measured),
                      "ratios": {f"{s}.{lid}": round(r, 3) for s, lid, _, r, _, _ in measured},
                      "errors": {f"{s}.{lid}": n for s, lid, _, _, _, n in measured if n},
                      "missing": missing, "repeat": repeat}))


if __name__ == "__main__":
    main()
