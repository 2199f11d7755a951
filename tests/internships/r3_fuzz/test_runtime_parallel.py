"""The fuzz scenario end to end: the real local runtime (``python -m local_runtime`` in a
subprocess, its emulator behind ``local_runtime.emulator``) under parallel clients.

Contact messages and role resets from 8 threads at once: every answer is a 2xx (the emulator
evaluates one request at a time and never applies a resent transaction twice), and the counters
the transactions maintain equal the number of successful requests (nothing lost, nothing doubled).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import boto3
import pytest
import requests

from fuzz.run import RATE_LIMIT_ENV
from tests.platform.runtime_proc import RuntimeProcess


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    rt = RuntimeProcess(tmp_path_factory.mktemp("r3-parallel"), services=("campaigns", "exams", "internships"),
                        extra_env=dict(RATE_LIMIT_ENV))
    try:
        yield rt, rt.wait_ready(timeout=90)
    finally:
        rt.stop()


def test_parallel_contacts_and_role_resets_all_succeed_once(runtime):
    rt, dev = runtime
    base = dev["internships"]["base_url"]
    sa = dev["internships"]["super_admin"]
    login = requests.post(base + "/api/auth/login", json={"email": sa["email"], "password": sa["password"]}, timeout=30)
    admin = {"Authorization": f"Bearer {login.json()['token']}"}

    def call(i: int) -> tuple[int, str]:
        if i % 4 == 3:
            r = requests.put(base + "/api/admin/roles/reviewer", json={"reset": True}, headers=admin, timeout=60)
        else:
            r = requests.post(base + "/api/contact", timeout=60, json={
                "name": f"Sender {i}", "email": f"sender{i}@example.com", "subject": "Parallel",
                "message": f"Parallel message number {i}"})
        return r.status_code, r.text[:200]

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(call, range(48)))
    assert [r for r in results if r[0] != 200] == []

    ddb = boto3.client("dynamodb", endpoint_url=dev["aws"]["endpoint_url"], region_name="us-east-1",
                       aws_access_key_id="local", aws_secret_access_key="local")
    [name] = [t for t in ddb.list_tables()["TableNames"] if "internships" in t.lower()]

    def counter(pk: str, attr: str) -> int:
        item = ddb.get_item(TableName=name, Key={"pk": {"S": pk}, "sk": {"S": "TOTAL"}}, ConsistentRead=True)
        return int(item.get("Item", {}).get(attr, {}).get("N", "0"))

    assert counter("COUNTER#CONTACTS", "all") == 36
    assert counter("COUNTER#ACTLOG", "all") == 12
