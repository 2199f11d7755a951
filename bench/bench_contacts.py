"""Contacts benchmark (moto, in-process, through the real handlers).

Shows that ``GET /contacts`` page 1 costs the same DynamoDB calls and items read with a
small and a large account, that imports write with BatchWriteItem, and that a large file
imports through the asynchronous job with visible progress.

    python bench/bench_contacts.py            # 100 vs 100,000 contacts (the big one via the async job)
    python bench/bench_contacts.py --quick    # 100 vs 5,000

Prints a table, then one JSON line with the numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "layers" / "shared", ROOT / "functions" / "campaigns"):
    sys.path.insert(0, str(p))
for k, v in {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1",
             "AWS_REGION": "us-east-1", "POWERTOOLS_METRICS_NAMESPACE": "Bench", "LOG_LEVEL": "WARNING"}.items():
    os.environ.setdefault(k, v)
os.environ.pop("AWS_ENDPOINT_URL", None)


class Calls:
    """DynamoDB calls and items read, from a botocore after-call hook on the cached clients."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.items_read = 0
        self.items_written = 0

    def hook(self, http_response=None, parsed=None, model=None, **_):
        op = model.name
        self.calls[op] += 1
        parsed = parsed or {}
        if op == "GetItem":
            self.items_read += 1 if parsed.get("Item") else 0
        elif op == "Query":
            self.items_read += int(parsed.get("Count", 0))
        elif op == "BatchGetItem":
            self.items_read += sum(len(v) for v in (parsed.get("Responses") or {}).values())

    def before(self, params=None, **_):
        self.items_written += sum(len(v) for v in (params or {}).get("RequestItems", {}).values())


_current: list[Calls] = []


def _after(**kw) -> None:
    if _current:
        _current[-1].hook(**kw)


def _before(**kw) -> None:  # must return None: a value would replace the call's response
    if _current:
        _current[-1].before(**kw)


def _install() -> None:
    from lambdakit import aws

    for c in (aws.client("dynamodb"),):
        if getattr(c, "_bench_hooked", False):
            continue
        c.meta.events.register("after-call.dynamodb", _after)
        c.meta.events.register("before-parameter-build.dynamodb.BatchWriteItem", _before)
        c._bench_hooked = True


@contextmanager
def counting():
    _install()
    c = Calls()
    _current.append(c)
    try:
        yield c
    finally:
        _current.remove(c)


def _multipart(data: bytes, **fields: str) -> tuple[bytes, dict]:
    b = "----bench"
    parts = [f'--{b}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()]
    parts.append(f'--{b}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\n'
                 f'Content-Type: text/csv\r\n\r\n'.encode() + data + b"\r\n" + f"--{b}--\r\n".encode())
    return b"".join(parts), {"content-type": f"multipart/form-data; boundary={b}"}


def _csv(n: int, prefix: str, tags: str = "") -> bytes:
    if tags:
        return ("email,first_name,tags\n"
                + "\n".join(f"{prefix}{i}@example.com,N{i},{tags}" for i in range(n)) + "\n").encode()
    return ("email,first_name\n" + "\n".join(f"{prefix}{i}@example.com,N{i}" for i in range(n)) + "\n").encode()


def _sqs(body: str) -> dict:
    return {"Records": [{"messageId": "1", "receiptHandle": "r", "body": body, "attributes": {},
                         "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                         "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:q", "awsRegion": "us-east-1"}]}


def run(small: int, large: int, sync_rows: int) -> dict:
    import boto3
    from moto import mock_aws

    with mock_aws():
        from local_runtime import testing

        app = testing.start(only=["campaigns"])
        os.environ["CAMPAIGNS_IMPORT_ROWS_PER_INVOCATION"] = str(max(1000, large // 10))
        from lambdakit import settings as ls

        ls.reset_settings()
        from campaigns.auth import create_key

        c = app.campaigns
        k_small, _ = create_key("bench-small", "bench", role="admin")
        k_large, _ = create_key("bench-large", "bench", role="admin")
        hs, hl = {"Authorization": f"Bearer {k_small}"}, {"Authorization": f"Bearer {k_large}"}
        out: dict = {}

        # 1) in-request import: BatchWriteItem per row
        body, h = _multipart(_csv(small, "s"))
        with counting() as cc:
            t = time.perf_counter()
            r = c.post("/contacts/import", body=body, headers={**hs, **h})
            dt = time.perf_counter() - t
        assert r.status == 200 and r.json()["data"]["imported"] == small, r.text[:300]
        out["sync_import"] = {"rows": small, "seconds": round(dt, 2), "batch_write_calls": cc.calls["BatchWriteItem"],
                              "batch_get_calls": cc.calls["BatchGetItem"],
                              "items_written": cc.items_written,
                              "calls_per_25_rows": round(cc.calls["BatchWriteItem"] * 25 / small, 2),
                              "put_or_transact_calls": cc.calls["PutItem"] + cc.calls["TransactWriteItems"]}
        # 1b) in-request import with list_id and tags: memberships are separate items
        k_tags, _ = create_key("bench-tags", "bench", role="admin")
        ht = {"Authorization": f"Bearer {k_tags}"}
        lid = c.post("/lists", json={"name": "bench"}, headers=ht).json()["data"]["id"]
        body, h = _multipart(_csv(small, "m", tags="a;b"), list_id=lid, tags="bench")
        with counting() as cc:
            r = c.post("/contacts/import", body=body, headers={**ht, **h})
        assert r.status == 200 and r.json()["data"]["imported"] == small, r.text[:300]
        out["sync_import_list_tags"] = {"rows": small, "items_per_row": round(cc.items_written / small, 2),
                                        "batch_write_calls": cc.calls["BatchWriteItem"],
                                        "calls_per_25_rows": round(cc.calls["BatchWriteItem"] * 25 / small, 2),
                                        "batch_get_calls": cc.calls["BatchGetItem"]}
        if sync_rows:
            body, h = _multipart(_csv(sync_rows, "x"))
            t = time.perf_counter()
            r = c.post("/contacts/import", body=body, headers={**hl, **h})
            assert r.status == 200 and r.json()["data"]["imported"] == sync_rows, r.text[:300]
            out["sync_import_big"] = {"rows": sync_rows, "seconds": round(time.perf_counter() - t, 2)}

        # 2) asynchronous job for the large account, progress sampled between invocations
        job = c.post("/contacts/imports", json={}, headers=hl).json()["data"]
        bucket = app.envs["campaigns"].refs["ImportUploadsBucket"]
        key = job["upload"]["fields"]["key"]
        boto3.client("s3").put_object(Bucket=bucket, Key=key, Body=_csv(large, "l"))
        event = json.dumps({"Records": [{"eventName": "ObjectCreated:Post",
                                         "s3": {"bucket": {"name": bucket}, "object": {"key": key}}}]})
        queue = app.envs["campaigns"].refs["ImportQueue"]
        sqs = boto3.client("sqs")
        progress = []
        t = time.perf_counter()
        with counting() as cc:
            c.invoke_function("ImportWorkerFunction", _sqs(event))
            while True:
                st = c.get(f"/contacts/imports/{job['job_id']}", headers=hl).json()["data"]
                progress.append((st["processed"], st["total"], st["status"]))
                print(f"  async import: {st['status']:>9} {st['processed']:>7}/{st['total']} ({st['progress']}%)",
                      file=sys.stderr)
                if st["status"] != "running":
                    break
                msgs = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=1).get("Messages", [])
                if not msgs:
                    break
                sqs.delete_message(QueueUrl=queue, ReceiptHandle=msgs[0]["ReceiptHandle"])
                c.invoke_function("ImportWorkerFunction", _sqs(msgs[0]["Body"]))
        out["async_import"] = {"rows": large, "seconds": round(time.perf_counter() - t, 2), "status": st["status"],
                               "imported": st["imported"], "progress_samples": progress,
                               "batch_write_calls": cc.calls["BatchWriteItem"], "items_written": cc.items_written,
                               "calls_per_25_rows": round(cc.calls["BatchWriteItem"] * 25 / large, 2)}

        # 3) GET /contacts page 1, small vs large account
        pages = {}
        for name, hdr, n in (("small", hs, small), ("large", hl, large + sync_rows)):
            c.get("/contacts", headers=hdr)  # warm
            with counting() as cc:
                r = c.get("/contacts", headers=hdr)
            d = r.json()["data"]
            assert d["pagination"]["total"] == n and len(d["contacts"]) == 20, d["pagination"]
            pages[name] = {"contacts": n, "ddb_calls": sum(cc.calls.values()), "calls": dict(cc.calls),
                           "items_read": cc.items_read}
        out["get_contacts_page1"] = pages
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    small, large, sync_rows = (100, 5_000, 0) if a.quick else (100, 100_000, 10_000)
    res = run(small, large, sync_rows)
    p = res["get_contacts_page1"]
    print(f"{'measure':<42} {'small':>12} {'large':>12}")
    print(f"{'contacts':<42} {p['small']['contacts']:>12} {p['large']['contacts']:>12}")
    print(f"{'GET /contacts page 1: DynamoDB calls':<42} {p['small']['ddb_calls']:>12} {p['large']['ddb_calls']:>12}")
    print(f"{'GET /contacts page 1: items read':<42} {p['small']['items_read']:>12} {p['large']['items_read']:>12}")
    s, j = res["sync_import"], res["async_import"]
    print(f"{'import rows':<42} {s['rows']:>12} {j['rows']:>12}")
    print(f"{'BatchWriteItem calls':<42} {s['batch_write_calls']:>12} {j['batch_write_calls']:>12}")
    print(f"{'items written per row':<42} {s['items_written'] / s['rows']:>12.2f} {j['items_written'] / j['rows']:>12.2f}")
    print(f"{'BatchWriteItem calls per 25 rows':<42} {s['calls_per_25_rows']:>12} {j['calls_per_25_rows']:>12}")
    print(f"{'per-row Put/Transact calls (sync)':<42} {s['put_or_transact_calls']:>12} {'':>12}")
    lt = res["sync_import_list_tags"]
    print(f"{'import with list_id + 2 tags + 1 form tag:':<42}")
    print(f"{'  items written per row':<42} {lt['items_per_row']:>12}")
    print(f"{'  BatchWriteItem calls per 25 rows':<42} {lt['calls_per_25_rows']:>12}")
    if "sync_import_big" in res:
        print(f"{'10k-row import in one request (s)':<42} {res['sync_import_big']['seconds']:>12}")
    print(f"{'async job seconds / final status':<42} {j['seconds']:>12} {j['status']:>12}")
    same = p["small"]["ddb_calls"] == p["large"]["ddb_calls"] and p["small"]["items_read"] == p["large"]["items_read"]
    res["page1_constant"] = same
    print(json.dumps({"bench": "contacts", **res}))


if __name__ == "__main__":
    main()
