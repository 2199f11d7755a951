"""``lambdakit.secrets``: GetSecretValue on the shared client behind a per-process TTL cache
(issue #21: Powertools Parameters imported boto3 on every cold request that read a secret)."""
from __future__ import annotations

import json

import boto3
import pytest
from botocore.exceptions import ClientError

from lambdakit import aws, secrets


@pytest.fixture
def sm(aws_mock):
    aws.reset()
    secrets.forget()
    client = boto3.client("secretsmanager", region_name="us-east-1")
    yield client
    secrets.forget()


def _reads(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = aws.client("secretsmanager").get_secret_value

    def counted(**kw):
        seen.append(kw["SecretId"])
        return real(**kw)

    monkeypatch.setattr(aws.client("secretsmanager"), "get_secret_value", counted)
    return seen


def test_reads_once_per_max_age_through_the_shared_client(sm, monkeypatch):
    arn = sm.create_secret(Name="s1", SecretString="one")["ARN"]
    seen = _reads(monkeypatch)
    assert secrets.secret_string(arn) == "one"
    sm.put_secret_value(SecretId=arn, SecretString="two")
    assert secrets.secret_string(arn) == "one"  # cached
    assert seen == [arn]
    assert secrets._cache[arn][0] is aws.client("secretsmanager")  # noqa: SLF001 - the cut client
    secrets.forget()
    assert secrets.secret_string(arn) == "two"
    assert seen == [arn, arn]


def test_max_age_expires_the_value(sm, monkeypatch):
    arn = sm.create_secret(Name="s6", SecretString="one")["ARN"]
    clock = [1000.0]
    monkeypatch.setattr(secrets.time, "monotonic", lambda: clock[0])
    assert secrets.secret_string(arn, max_age=60) == "one"
    sm.put_secret_value(SecretId=arn, SecretString="two")
    clock[0] += 59
    assert secrets.secret_string(arn, max_age=60) == "one"
    clock[0] += 2
    assert secrets.secret_string(arn, max_age=60) == "two"
    assert secrets.secret_string(arn, max_age=0) == "two"  # max_age 0: every call reads
    sm.put_secret_value(SecretId=arn, SecretString="three")
    assert secrets.secret_string(arn, max_age=0) == "three"


def test_json_and_binary_secrets(sm):
    arn = sm.create_secret(Name="s2", SecretString=json.dumps({"k": "v"}))["ARN"]
    assert secrets.secret_json(arn) == {"k": "v"}
    arn2 = sm.create_secret(Name="s3", SecretString="not json")["ARN"]
    assert secrets.secret_json(arn2) == {}
    arn3 = sm.create_secret(Name="s4", SecretBinary=b"raw")["ARN"]
    assert secrets.secret_string(arn3) == "raw"
    arn4 = sm.create_secret(Name="s7", SecretString="[1, 2]")["ARN"]
    assert secrets.secret_json(arn4) == {}


def test_a_failed_read_raises_the_sdk_error_and_caches_nothing(sm):
    missing = "arn:aws:secretsmanager:us-east-1:123456789012:secret:missing-AbCdEf"
    with pytest.raises(ClientError) as err:
        secrets.secret_string(missing)
    assert err.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert missing not in secrets._cache  # noqa: SLF001


def test_a_new_client_reads_afresh(sm, monkeypatch):
    arn = sm.create_secret(Name="s5", SecretString="x")["ARN"]
    secrets.secret_string(arn)
    aws.reset()  # tests switching endpoints: the old client's values are not served
    seen = _reads(monkeypatch)
    assert secrets.secret_string(arn) == "x"
    assert seen == [arn]
