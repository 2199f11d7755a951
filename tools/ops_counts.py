"""Rewrite the counts block of docs/operations.md from the templates (issue 33 item 9).

    python tools/ops_counts.py          # rewrite the block between the markers
    python tools/ops_counts.py --check  # exit 1 if the block is not what the templates give

The block lists, per stack, the resources after the SAM transform (what CloudFormation counts
against its 500), the functions, routes, alarms by kind and the heartbeat alarms. The runbook's
numbers cannot drift: tests/platform/test_production.py fails while the block is stale.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from local_runtime.stack import load_all, load_root  # noqa: E402

DOC = ROOT / "docs" / "operations.md"
BEGIN = "<!-- counts:begin (python tools/ops_counts.py) -->"
END = "<!-- counts:end -->"
#: CloudWatch standard-resolution alarms, USD per alarm-month (us-east-1; metric-math alarms are
#: billed per metric they read).
ALARM_USD = 0.10


def translated_resources(path: Path) -> dict:
    from cfnlint.decode import decode
    from cfnlint.template.transforms._sam import Transform

    tpl, matches = decode(str(path))
    if matches:
        raise SystemExit(f"{path}: {matches}")
    t = Transform(str(path), tpl, "us-east-1")
    if t.transform_template():
        raise SystemExit(f"{path}: SAM transform failed")
    return t.template()["Resources"]


def _alarm_kind(lid: str) -> str:
    if lid == "TableThrottlesAlarm":
        return "API, queue, table, schedule and other"
    for suffix, kind in (("HeartbeatAlarm", "schedule heartbeats"), ("ErrorsAlarm", "function error rates"),
                         ("ThrottlesAlarm", "function throttles"), ("DLQMessagesAlarm", "dead-letter queues")):
        if lid.endswith(suffix):
            return kind
    return "API, queue, table, schedule and other"


def block() -> str:
    rows, total_alarms, kinds, metrics = [], 0, Counter(), 0
    services = load_all()
    for name, svc in services.items():
        res = translated_resources(svc.dir / "template.yaml")
        alarms = {k: v for k, v in svc.template["Resources"].items() if v["Type"] == "AWS::CloudWatch::Alarm"}
        total_alarms += len(alarms)
        kinds.update(_alarm_kind(k) for k in alarms)
        metrics += sum(max(1, sum("MetricStat" in m for m in a["Properties"].get("Metrics", []))) for a in alarms.values())
        rows.append(f"| {name} | {len(res)} | {len(svc.functions)} | {len(svc.routes)} | {len(alarms)} |")
    root = load_root()
    root_alarms = [k for k, v in root["Resources"].items() if v["Type"] == "AWS::CloudWatch::Alarm"]
    total_alarms += len(root_alarms)
    metrics += len(root_alarms)
    root_res = translated_resources(ROOT / "template.yaml")
    rows.append(f"| root | {len(root_res)} | 0 | 0 | {len(root_alarms)} |")
    lines = [BEGIN, "",
             "| stack | resources after the SAM transform (limit 500) | functions | routes | alarms |",
             "|---|---|---|---|---|", *rows, "",
             f"{total_alarms} alarms in all: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
             + f", {len(root_alarms)} on the alarm topic's failed deliveries. They read {metrics} metrics,"
             f" about {metrics * ALARM_USD:.0f} USD a month.", "", END]
    return "\n".join(lines)


def rewrite(text: str, new_block: str) -> str:
    a, b = text.index(BEGIN), text.index(END) + len(END)
    return text[:a] + new_block + text[b:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    text = DOC.read_text(encoding="utf-8")
    new = rewrite(text, block())
    if args.check:
        if new != text:
            print("docs/operations.md: counts block is stale; run python tools/ops_counts.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
