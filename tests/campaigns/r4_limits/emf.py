"""Reading the business metrics (CloudWatch EMF lines on stdout) a test run printed."""
from __future__ import annotations

import json


def emf(out: str) -> list[tuple[str, float, dict]]:
    """``(name, value, dimensions)`` of every metric data point in ``out``."""
    points: list[tuple[str, float, dict]] = []
    for line in out.splitlines():
        line = line.strip()
        if not line.startswith("{") or '"_aws"' not in line:
            continue
        doc = json.loads(line)
        for directive in doc["_aws"]["CloudWatchMetrics"]:
            dims = {k: doc[k] for group in directive.get("Dimensions", []) for k in group if k != "service"}
            for m in directive["Metrics"]:
                v = doc[m["Name"]]
                for x in v if isinstance(v, list) else [v]:
                    points.append((m["Name"], float(x), dims))
    return points


def total(points, name: str, **dims: str) -> float:
    return sum(v for n, v, d in points if n == name and all(d.get(k) == x for k, x in dims.items()))

