"""Opt-in background data for the cost benchmark (``bench/bench_cost_e2e.py``).

With ``E2E_SEED_ROWS=N`` set, each e2e conftest calls ``maybe_seed(dev, service)`` once its
runtime is ready: N background rows per entity go into the partitions its scenarios read
(``bench/seeding.py``). Unset (the default), nothing happens.
"""
from __future__ import annotations

import json
import os
import sys
import time

ENV = "E2E_SEED_ROWS"


def maybe_seed(dev: dict, service: str) -> None:
    n = int(os.environ.get(ENV) or 0)
    if n <= 0:
        return
    from bench.seeding import seed_service

    t0 = time.monotonic()
    written = seed_service(service, dev, n)
    log = os.environ.get("LOCAL_COST_LOG")
    if log:  # the cost benchmark counts only what the scenarios do from here on
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"kind": "mark", "label": "seeded", "service": service}) + "\n")
    print(f"[costseed] {service}: {n} background rows per entity ({written} items) in "
          f"{time.monotonic() - t0:.1f}s", file=sys.stderr, flush=True)
