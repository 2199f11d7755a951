"""The local AWS emulator (``local_runtime.emulator``) under parallel clients.

A long fuzz run (2 workers) found moto's server failing under concurrency: a transaction
deep-copies the whole table while other threads write it (``RuntimeError: dictionary changed
size during iteration`` → HTTP 500), a cancelled transaction's rollback puts back that stale
copy (other threads' writes lost), and a slow transaction retried by botocore after its read
timeout was applied twice. The emulator serialises requests, makes ``TransactWriteItems``
idempotent by ``ClientRequestToken`` (as DynamoDB does), and rolls back only touched items.

The server runs in a subprocess (its own moto backends, untouched by this process's in-process
mock); clients talk to it over HTTP with an explicit endpoint, which moto's mock lets through.
Against plain ``moto.server.ThreadedMotoServer`` (``EMULATOR_MODE=raw``) the hammer test fails
on every run measured: 5xx responses and lost counter updates.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from tests.platform.runtime_proc import free_port

ROOT = Path(__file__).resolve().parents[2]
SERVE = """
import os, sys, time
port = int(sys.argv[1])
if os.environ.get("EMULATOR_MODE") == "raw":
    from moto.server import ThreadedMotoServer as S
    s = S(ip_address="127.0.0.1", port=port, verbose=False)
else:
    from local_runtime.emulator import EmulatorServer as S
    s = S("127.0.0.1", port)
s.start()
print("ready", flush=True)
sys.stdin.read()
"""
TABLE = "hammer"


@pytest.fixture(scope="module")
def endpoint():
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", SERVE, str(port)], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
    yield f"http://127.0.0.1:{port}"
    assert proc.stdin is not None
    proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def client(endpoint: str, name: str = "dynamodb", *, attempts: int = 1, read_timeout: int = 60):
    return boto3.client(name, region_name="us-east-1", endpoint_url=endpoint, aws_access_key_id="local",
                        aws_secret_access_key="local",
                        config=Config(retries={"max_attempts": attempts, "mode": "standard"},
                                      read_timeout=read_timeout, max_pool_connections=32))


def make_table(ddb, name: str, items: int = 0) -> None:
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "S"}])
    table = boto3.resource("dynamodb", region_name="us-east-1", endpoint_url=ddb.meta.endpoint_url,
                           aws_access_key_id="local", aws_secret_access_key="local").Table(name)
    with table.batch_writer() as bw:
        for i in range(items):
            bw.put_item(Item={"pk": f"FILL#{i % 50}", "sk": f"{i:06d}", "payload": "x" * 64, "n": i,
                              "nested": {"a": ["b", "c"], "d": {"e": i}}})


def put_and_count(pk: str, *, fail: bool = False, table: str = TABLE) -> list[dict]:
    ops: list[dict] = [
        {"Put": {"TableName": table, "Item": {"pk": {"S": pk}, "sk": {"S": "ITEM"}},
                 "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Update": {"TableName": table, "Key": {"pk": {"S": "COUNTER"}, "sk": {"S": "TOTAL"}},
                    "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}},
    ]
    if fail:  # a check that never holds: the transaction is cancelled and must undo nothing of others
        ops.append({"ConditionCheck": {"TableName": table, "Key": {"pk": {"S": "NOPE"}, "sk": {"S": "NOPE"}},
                                       "ConditionExpression": "attribute_exists(pk)"}})
    return ops


def test_parallel_transactions_never_5xx_and_lose_nothing(endpoint):
    """8 threads × 25 transactions (every fifth one cancelled) plus plain puts, on a table of
    3,000 items: each call answers 200 or a clean cancellation, and the counter and items
    equal the committed transactions exactly."""
    ddb = client(endpoint)
    make_table(ddb, TABLE, items=3000)
    outcomes: list[tuple[str, str]] = []
    lock = threading.Lock()

    def worker(w: int) -> None:
        for i in range(25):
            pk = f"T#{w}#{i}"
            try:
                ddb.transact_write_items(TransactItems=put_and_count(pk, fail=i % 5 == 4))
                result = "ok"
            except ClientError as exc:
                code = exc.response["Error"]["Code"]
                status = exc.response["ResponseMetadata"]["HTTPStatusCode"]
                result = "cancelled" if code == "TransactionCanceledException" else f"{status} {code}"
            ddb.put_item(TableName=TABLE, Item={"pk": {"S": f"P#{w}"}, "sk": {"S": f"{i:03d}"}})
            with lock:
                outcomes.append((pk, result))

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(worker, range(8)))

    bad = [o for o in outcomes if o[1] not in ("ok", "cancelled")]
    assert bad == []
    committed = {pk for pk, r in outcomes if r == "ok"}
    assert len(committed) == 8 * 20 and sum(r == "cancelled" for _, r in outcomes) == 8 * 5
    counter = ddb.get_item(TableName=TABLE, Key={"pk": {"S": "COUNTER"}, "sk": {"S": "TOTAL"}},
                           ConsistentRead=True)["Item"]
    assert int(counter["n"]["N"]) == len(committed)  # no update lost to a stale rollback
    for pk, r in outcomes:
        got = ddb.get_item(TableName=TABLE, Key={"pk": {"S": pk}, "sk": {"S": "ITEM"}}).get("Item")
        assert (got is not None) == (r == "ok"), pk
    puts = ddb.query(TableName=TABLE, KeyConditionExpression="pk = :p", Select="COUNT",
                     ExpressionAttributeValues={":p": {"S": "P#3"}})
    assert puts["Count"] == 25


def test_transaction_retried_with_its_client_token_is_applied_once(endpoint):
    """What botocore does after a read timeout: the same call, same ``ClientRequestToken``."""
    ddb = client(endpoint)
    make_table(ddb, "idem")
    token = str(uuid.uuid4())

    def ops(pk: str) -> list[dict]:
        return put_and_count(pk, table="idem")

    for _ in range(3):
        ddb.transact_write_items(TransactItems=ops("ONCE"), ClientRequestToken=token)
    counter = ddb.get_item(TableName="idem", Key={"pk": {"S": "COUNTER"}, "sk": {"S": "TOTAL"}})["Item"]
    assert counter["n"] == {"N": "1"}
    with pytest.raises(ClientError) as err:
        ddb.transact_write_items(TransactItems=ops("OTHER"), ClientRequestToken=token)
    assert err.value.response["Error"]["Code"] == "IdempotentParameterMismatchException"
    assert "Item" not in ddb.get_item(TableName="idem", Key={"pk": {"S": "OTHER"}, "sk": {"S": "ITEM"}})
    # a new token is a new transaction (and here its put condition fails: the item exists)
    with pytest.raises(ClientError) as err:
        ddb.transact_write_items(TransactItems=ops("ONCE"), ClientRequestToken=str(uuid.uuid4()))
    assert err.value.response["CancellationReasons"][0]["Code"] == "ConditionalCheckFailed"


def test_cancelled_transaction_restores_exactly_the_items_it_touched(endpoint):
    ddb = client(endpoint)
    make_table(ddb, "rollback", items=200)

    def key(pk: str, sk: str = "S") -> dict:
        return {"pk": {"S": pk}, "sk": {"S": sk}}

    ddb.put_item(TableName="rollback", Item={**key("A"), "v": {"N": "1"}})
    ddb.put_item(TableName="rollback", Item={**key("C"), "v": {"N": "3"}})
    with pytest.raises(ClientError) as err:
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": "rollback", "Item": {**key("NEW", "X"), "v": {"N": "9"}}}},
            {"Update": {"TableName": "rollback", "Key": key("A"), "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": {"N": "2"}}}},
            {"Delete": {"TableName": "rollback", "Key": key("C")}},
            {"ConditionCheck": {"TableName": "rollback", "Key": key("FILL#1", "000001"),
                                "ConditionExpression": "n = :x", "ExpressionAttributeValues": {":x": {"N": "-1"}}}},
        ])
    assert [r["Code"] for r in err.value.response["CancellationReasons"]] == ["None", "None", "None",
                                                                              "ConditionalCheckFailed"]
    assert "Item" not in ddb.get_item(TableName="rollback", Key=key("NEW", "X"))
    assert ddb.query(TableName="rollback", KeyConditionExpression="pk = :p", Select="COUNT",
                     ExpressionAttributeValues={":p": {"S": "NEW"}})["Count"] == 0
    assert ddb.get_item(TableName="rollback", Key=key("A"))["Item"]["v"] == {"N": "1"}
    assert ddb.get_item(TableName="rollback", Key=key("C"))["Item"]["v"] == {"N": "3"}
    assert ddb.describe_table(TableName="rollback")["Table"]["ItemCount"] == 202


def test_a_long_poll_receive_does_not_hold_the_emulator(endpoint):
    """SQS long polls run outside the lock: other calls (and the send that ends the poll) go on."""
    sqs, ddb = client(endpoint, "sqs"), client(endpoint)
    make_table(ddb, "poll")
    url = sqs.create_queue(QueueName="poll")["QueueUrl"]
    got: dict = {}
    poller = threading.Thread(target=lambda: got.update(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5)))
    poller.start()
    time.sleep(0.5)
    t0 = time.monotonic()
    ddb.put_item(TableName="poll", Item={"pk": {"S": "a"}, "sk": {"S": "b"}})
    sqs.send_message(QueueUrl=url, MessageBody="wake")
    assert time.monotonic() - t0 < 2
    poller.join(10)
    assert [m["Body"] for m in got.get("Messages", [])] == ["wake"]
