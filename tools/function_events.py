"""Write one sample event per function to events/functions/<service>.<LogicalId>.json.

HTTP functions: an API Gateway HTTP API payload-2.0 event for one representative route (a
GET without path parameters where the function has one), built by the local runtime exactly
as the deployed API would. Queue workers: an SQS event with one message the worker
understands. Schedules: the event the template's schedule sends. ``--check`` exits 1 when a
function has no sample (used by the tests). Existing files are kept (hand edits survive);
``--force`` rewrites them.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from local_runtime.invoke import build_http_event  # noqa: E402
from local_runtime.schedule import schedules_of  # noqa: E402
from local_runtime.stack import load_all  # noqa: E402

OUT = ROOT / "events" / "functions"
#: One message body per queue worker (what the producers put on the queue).
SQS_BODIES = {
    ("campaigns", "SendWorkerFunction"): {"type": "fanout", "campaign_id": "cmp0sample", "seq": 0},
    ("campaigns", "FeedbackWorkerFunction"): {
        "detail-type": "Email Delivered", "source": "aws.ses",
        "detail": {"eventType": "Delivery", "mail": {
            "messageId": "0100019abcdef-sample", "destination": ["someone@example.com"],
            "tags": {"account": ["acc0sample"], "send": ["snd0sample"], "rkey": ["r0sample"]}}}},
    ("campaigns", "ImportWorkerFunction"): {"Records": [{
        "eventVersion": "2.1", "eventSource": "aws:s3", "eventName": "ObjectCreated:Put",
        "s3": {"bucket": {"name": "campaigns-files"}, "object": {"key": "imports%2Facc0sample%2Fjob0sample.csv",
                                                                 "size": 42}}}]},
    ("campaigns", "WebhookWorkerFunction"): {"account_id": "acc0sample", "webhook_id": "whk0sample",
                                             "delivery_id": "dlv0sample"},
    ("exams", "AnalyticsWorkerFunction"): {"type": "attempt_graded", "attempt_id": "att0sample"},
    # TasksQueue (issue 33 item 6): a task id to resume (an unknown one is a "missing" no-op)
    ("internships", "CronFunction"): {"taskId": "tsk0sample"},
    ("internships", "EmailWorkerFunction"): {"emailId": "eml0sample"},
}
PREFERRED_ROUTE = {  # where the first GET is not the most representative read
}


def sqs_event(service: str, lid: str, queue: str, body: dict) -> dict:
    raw = json.dumps(body)
    mid = hashlib.md5(f"{service}.{lid}".encode()).hexdigest()  # noqa: S324 - a stable sample id
    msg_id = f"{mid[:8]}-{mid[8:12]}-{mid[12:16]}-{mid[16:20]}-{mid[20:32]}"
    return {"Records": [{
        "messageId": msg_id, "receiptHandle": f"AQEB{mid}", "body": raw,
        "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1741608000000",
                       "SenderId": "AIDAIENQZJOLO23YVJ4VO", "ApproximateFirstReceiveTimestamp": "1741608000100"},
        "messageAttributes": {}, "md5OfBody": hashlib.md5(raw.encode()).hexdigest(),  # noqa: S324
        "eventSource": "aws:sqs", "eventSourceARN": f"arn:aws:sqs:us-east-1:123456789012:{service}-{queue}",
        "awsRegion": "us-east-1"}]}


def event_of(svc, lid: str, fn) -> dict:
    kinds = {e.get("Type") for e in fn.events.values()}
    if "SQS" in kinds:
        queue = next(e["Properties"]["Queue"]["Fn::GetAtt"][0] for e in fn.events.values() if e.get("Type") == "SQS")
        return sqs_event(svc.name, lid, queue, SQS_BODIES[(svc.name, lid)])
    routes = [r for r in svc.canonical_routes if r.function == lid]  # not an /api/v1 alias twin
    if routes:
        pick = PREFERRED_ROUTE.get((svc.name, lid))
        route = next((r for r in routes if r.route_key == pick), None) or next(
            (r for r in routes if r.method == "GET" and not r.params), None) or next(
            (r for r in routes if r.method == "GET"), routes[0])
        params = {p: f"{p.lower()}-sample" for p in route.params}
        path = route.path
        for p, v in params.items():
            path = path.replace("{" + p + "}", v).replace("{" + p + "+}", v)
        ev = build_http_event(route, params, route.method, path, "", {
            "accept": "application/json", "host": "abc123.execute-api.us-east-1.amazonaws.com",
            "user-agent": "curl/8.5.0", "x-forwarded-for": "203.0.113.10"}, None, source_ip="203.0.113.10",
            api_id="abc123")
        ev["requestContext"]["requestId"] = hashlib.md5(f"{svc.name}.{lid}".encode()).hexdigest()[:16]  # noqa: S324
        ev["requestContext"]["time"], ev["requestContext"]["timeEpoch"] = "10/Mar/2025:12:00:00 +0000", 1741608000000
        return ev
    sched = schedules_of(fn)
    return sched[0].event()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    missing = []
    for svc in load_all().values():
        for lid, fn in sorted(svc.functions.items()):
            path = OUT / f"{svc.name}.{lid}.json"
            if args.check:
                if not path.exists():
                    missing.append(path.name)
                continue
            if path.exists() and not args.force:
                continue
            path.write_text(json.dumps(event_of(svc, lid, fn), indent=2) + "\n")
    if missing:
        print("missing samples:", ", ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
