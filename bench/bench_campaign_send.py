"""Benchmark: one campaign to N recipients (default 10,000) through the local pipeline.

Everything runs in-process against moto: the real dispatcher (start + fan-out steps), the real
send worker on SQS batches of 10 messages x 100 recipients, SES v2 (the emulator) as provider.
AWS calls are counted with a botocore ``before-call`` hook on the service's boto3 session.

Prints a human summary, then one final JSON line:
``{"recipients", "seconds", "recipients_per_second", "aws_calls_per_1000", "calls_by_operation_per_1000",
   "cost_per_million_usd": {...}, "overhead_vs_ses_pct"}``

    python bench/bench_campaign_send.py            # 10,000 recipients
    python bench/bench_campaign_send.py --quick    # 1,000 recipients
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "layers" / "shared", ROOT / "functions" / "campaigns"):
    sys.path.insert(0, str(p))
for k, v in {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1",
             "AWS_REGION": "us-east-1", "POWERTOOLS_METRICS_NAMESPACE": "Bench", "LOG_LEVEL": "WARNING"}.items():
    os.environ.setdefault(k, v)
os.environ.pop("AWS_ENDPOINT_URL", None)

ACCOUNT = "acct-bench"

# ---- AWS prices, us-east-1 (on-demand, 2025)
SES_PER_MILLION = 100.0                      # $0.10 per 1,000 emails
DDB_WRU = 0.625 / 1e6                        # per write request unit
DDB_RRU = 0.125 / 1e6                        # per read request unit
SQS_REQ = 0.40 / 1e6                         # per request (64 KB chunks; our messages are < 64 KB)
LAMBDA_GB_S = 0.0000133334                   # arm64
LAMBDA_REQ = 0.20 / 1e6
LAMBDA_MEMORY_GB = 0.5
#: Assumed in-Lambda time per AWS call in a deployed region (moto's in-process timings are not AWS's).
SECONDS_PER_AWS_CALL = 0.008
SES_SECONDS_PER_SEND = 0.030


def seed(n: int) -> tuple[str, str]:
    """A list of ``n`` active contacts, written with the audience slice's key layout in bulk
    (the contacts API would take minutes in the emulator; sending reads exactly these items)."""
    from campaigns.common import keys
    from campaigns.settings import settings
    from lambdakit import clock, ids
    from lambdakit.ddb import Table

    t = Table(settings().table_name)
    lid = ids.sortable_id().lower()
    now = clock.now_iso()
    items = [{"pk": keys.list_key(ACCOUNT, lid)[0], "sk": keys.list_key(ACCOUNT, lid)[1], "id": lid,
              "account_id": ACCOUNT, "name": "bench", "contact_count": n, "active": n, "unsubscribed": 0,
              "bounced": 0, "created_at": now, "updated_at": now}]
    for i in range(n):
        cid = ids.sortable_id().lower() + f"{i:05d}"
        pk, sk = keys.contact_key(ACCOUNT, cid)
        items.append({"pk": pk, "sk": sk, "id": cid, "account_id": ACCOUNT, "email": f"user{i}@example.org",
                      "first_name": f"User{i}", "last_name": "", "status": "active", "lists": [lid],
                      "custom_fields": {"plan": "pro"}, "tags": [], "created_at": now, "updated_at": now, "version": 1})
        items.append({"pk": keys.list_members_pk(ACCOUNT, lid), "sk": f"C#{cid}", "contact_id": cid,
                      "status": "active"})
    t.batch_write(puts=items)
    from campaigns.campaign import service
    from campaigns.campaign.models import CampaignCreate
    from campaigns.senders import service as senders

    senders.ensure(ACCOUNT, "example.com")  # the account's verified sender domain (issue #17)

    body = CampaignCreate.model_validate({
        "name": "bench", "subject": "Hello {{first_name}}",
        "content": "<html><body><p>Hi {{first_name}}, your {{plan}} plan.</p>"
                   "<a href='https://example.com/a'>A</a> <a href='https://example.com/b'>B</a></body></html>",
        "audience": {"type": "list", "list_id": lid},
        "tracking": {"utm_params": {"source": "bench", "medium": "email"}},
        "settings": {"from_email": "news@example.com", "from_name": "Bench", "provider": {"provider": "ses"}}})
    return lid, service.create(ACCOUNT, body)["id"]


def drain(app, sqs, url: str) -> int:
    n = 0
    while True:
        msgs = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=120).get("Messages", [])
        if not msgs:
            return n
        event = {"Records": [{"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
                              "attributes": {}, "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                              "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:send", "awsRegion": "us-east-1"}
                             for m in msgs]}
        resp = app.campaigns.invoke_function("SendWorkerFunction", event) or {}
        failed = {f["itemIdentifier"] for f in resp.get("batchItemFailures", [])}
        for m in msgs:
            if m["MessageId"] not in failed:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
            else:  # redelivered at once (on AWS: after the visibility timeout)
                sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=0)
        n += 1


def peak_rss_mb() -> float:
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # KiB on Linux


def cost_model(per_1000: Counter, invocations_per_1000: float) -> dict:
    m = 1000.0  # per 1M recipients = per-1000 figures x 1000
    wru = rru = 0.0
    for op, c in per_1000.items():
        svc, _, name = op.partition(".")
        if svc != "dynamodb":
            continue
        if name in ("PutItem", "UpdateItem", "DeleteItem"):
            wru += c * 2  # item + the gsi1 copy of recipient records (upper bound)
        elif name == "TransactWriteItems":
            wru += c * 5 * 2  # ~5 items per batch completion, transactional writes cost 2x
        elif name == "BatchWriteItem":
            wru += c * 25
        elif name == "GetItem":
            rru += c * 1  # strongly consistent
        elif name == "BatchGetItem":
            rru += c * 100 * 0.5
        elif name == "Query":
            rru += c * 2
    sqs_req = sum(c for op, c in per_1000.items() if op.startswith("sqs."))
    calls = sum(per_1000.values())
    ses = per_1000.get("sesv2.SendEmail", 0)
    gb_s = (calls * SECONDS_PER_AWS_CALL + ses * SES_SECONDS_PER_SEND) * LAMBDA_MEMORY_GB
    out = {
        "dynamodb": round((wru * DDB_WRU + rru * DDB_RRU) * m, 4),
        "sqs": round((sqs_req + invocations_per_1000 * 2) * SQS_REQ * m, 4),  # + receive/delete by the poller
        "lambda": round((gb_s * LAMBDA_GB_S + invocations_per_1000 * LAMBDA_REQ) * m, 4),
    }
    out["total_overhead"] = round(sum(out.values()), 4)
    out["ses"] = SES_PER_MILLION
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="1,000 recipients")
    ap.add_argument("--recipients", type=int, default=None)
    args = ap.parse_args()
    n = args.recipients or (1000 if args.quick else 10_000)

    from local_runtime.emulator import install_item_level_transactions
    from local_runtime.testing import HARNESS

    # moto deep-copies the whole table per item of every TransactWriteItems (one per batch here):
    # O(n²) time and memory at 10,000 recipients. Item-level snapshots instead (correct in this
    # single-threaded process; see local_runtime/emulator.py).
    install_item_level_transactions()
    app = HARNESS.app(only=["campaigns"])
    import boto3

    from lambdakit import aws

    os.environ["CAMPAIGNS_ACCOUNT_SEND_RATE_PER_SECOND"] = "100000"
    os.environ["CAMPAIGNS_SES_MAX_SEND_RATE"] = "100000"
    from lambdakit.settings import reset_settings

    reset_settings()
    t0 = time.time()
    lid, cid = seed(n)
    seed_s = time.time() - t0

    calls: Counter = Counter()

    def count(event_name: str, **kw) -> None:
        _, svc, op = event_name.split(".", 2)
        calls[f"{svc}.{op}"] += 1

    aws.reset()  # clients made from now on carry the counting hook
    aws.register_hook("before-call.*.*", count)
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = os.environ["CAMPAIGNS_SEND_QUEUE_URL"]

    from campaigns.campaign import service
    from campaigns.campaign.models import SendRequest

    start = time.time()
    service.request_send(ACCOUNT, cid, SendRequest(confirm=True))
    invocations = drain(app, sqs, url)
    seconds = time.time() - start
    item = service.get_owned(ACCOUNT, cid, consistent=True)
    assert item["status"] == "sent", item["status"]
    assert int(item["st_sent"]) == n, item["st_sent"]
    total = sum(calls.values())
    per_1000 = Counter({k: round(v * 1000 / n, 2) for k, v in calls.items()})
    cost = cost_model(per_1000, invocations * 1000 / n)
    result = {"recipients": n, "seconds": round(seconds, 2), "recipients_per_second": round(n / seconds, 1),
              "seed_seconds": round(seed_s, 2), "worker_invocations": invocations,
              "aws_calls_per_1000": round(total * 1000 / n, 1),
              "calls_by_operation_per_1000": dict(sorted(per_1000.items(), key=lambda kv: -kv[1])),
              "cost_per_million_usd": cost,
              "overhead_vs_ses_pct": round(cost["total_overhead"] * 100 / SES_PER_MILLION, 2),
              "peak_rss_mb": peak_rss_mb()}
    print(f"{n} recipients sent in {seconds:.1f}s ({result['recipients_per_second']}/s, in-process emulator)")
    print(f"AWS calls per 1,000 recipients: {result['aws_calls_per_1000']}")
    for op, c in result["calls_by_operation_per_1000"].items():
        print(f"  {op:40s} {c}")
    print(f"Cost per 1M emails on AWS: overhead ${cost['total_overhead']} (DynamoDB ${cost['dynamodb']}, "
          f"SQS ${cost['sqs']}, Lambda ${cost['lambda']}) vs SES ${SES_PER_MILLION} → "
          f"{result['overhead_vs_ses_pct']}% (target ≤ 10%)")
    print(f"Peak RSS of the bench process: {result['peak_rss_mb']} MB")
    print(json.dumps(result))
    HARNESS.stop()


if __name__ == "__main__":
    main()
