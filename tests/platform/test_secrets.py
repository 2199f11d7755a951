"""``lambdakit.secrets``: Powertools' SecretsProvider on the shared client (issue #21)."""
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


def test_reads_once_per_max_age_through_the_shared_client(sm):
    arn = sm.create_secret(Name="s1", SecretString="one")["ARN"]
    assert secrets.secret_string(arn) == "one"
    sm.put_secret_value(SecretId=arn, SecretString="two")
    assert secrets.secret_string(arn) == "one"  # cached
    assert secrets._get_provider().client is aws.client("secretsmanager")  # noqa: SLF001 - the cut client
    secrets.forget()
    assert secrets.secret_string(arn) == "two"


def test_json_and_binary_secrets(sm):
    arn = sm.create_secret(Name="s2", SecretString=json.dumps({"k": "v"}))["ARN"]
    assert secrets.secret_json(arn) == {"k": "v"}
    arn2 = sm.create_secret(Name="s3", SecretString="not json")["ARN"]
    assert secrets.secret_json(arn2) == {}
    arn3 = sm.create_secret(Name="s4", SecretBinary=b"raw")["ARN"]
    assert secrets.secret_string(arn3) == "raw"


def test_a_failed_read_raises_the_sdk_error_not_powertools_wrapper(sm):
    with pytest.raises(ClientError) as err:
        secrets.secret_string("arn:aws:secretsmanager:us-east-1:123456789012:secret:missing-AbCdEf")
    assert err.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_a_new_client_gets_a_new_provider(sm):
    arn = sm.create_secret(Name="s5", SecretString="x")["ARN"]
    secrets.secret_string(arn)
    first = secrets._get_provider()  # noqa: SLF001
    aws.reset()
    assert secrets._get_provider() is not first  # noqa: SLF001
