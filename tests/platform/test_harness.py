"""The fast fixtures: one moto per process, yet every test starts from a clean account."""
from __future__ import annotations

import os
import time

import boto3


def _state(app):
    env = app.envs["exams"]
    ddb = boto3.client("dynamodb")
    sqs = boto3.client("sqs")
    s3 = boto3.client("s3")
    idp = boto3.client("cognito-idp")
    table = env.refs["ExamsTable"]
    queue = env.refs["AnalyticsQueue"]
    bucket = env.refs["EvidenceBucket"]
    pool = env.refs["UserPool"]
    return ddb, sqs, s3, idp, table, queue, bucket, pool


def test_a_dirty_everything(app):
    from lambdakit import clock

    ddb, sqs, s3, idp, table, queue, bucket, pool = _state(app)
    ddb.put_item(TableName=table, Item={"pk": {"S": "X"}, "sk": {"S": "Y"}})
    sqs.send_message(QueueUrl=queue, MessageBody="leak")
    s3.put_object(Bucket=bucket, Key="leak.txt", Body=b"x")
    idp.admin_create_user(UserPoolId=pool, Username="leak@example.com")
    idp.create_group(UserPoolId=pool, GroupName="leakers")
    boto3.client("dynamodb").create_table(
        TableName="stray", KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    boto3.client("ses").verify_email_identity(EmailAddress="someone@leak.test")
    clock.set_offset(3600)
    os.environ["EXAMS_TABLE_NAME"] = "wrong"


def test_b_nothing_leaked(app):
    from lambdakit import clock

    ddb, sqs, s3, idp, table, queue, bucket, pool = _state(app)
    assert ddb.scan(TableName=table)["Count"] == 0
    assert "stray" not in ddb.list_tables()["TableNames"]
    attrs = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["All"])["Attributes"]
    assert attrs["ApproximateNumberOfMessages"] == "0"
    assert "RedrivePolicy" in attrs  # the template's redrive policy is back
    assert s3.list_objects_v2(Bucket=bucket).get("KeyCount", 0) == 0
    assert idp.list_users(UserPoolId=pool)["Users"] == []
    assert [g["GroupName"] for g in idp.list_groups(UserPoolId=pool)["Groups"]] == []
    assert "someone@leak.test" not in boto3.client("ses").list_identities()["Identities"]
    assert abs(clock.now_ts() - time.time()) < 5
    assert os.environ["EXAMS_TABLE_NAME"] == table


def test_secrets_keep_their_value_between_tests(internships_app):
    sm = boto3.client("secretsmanager")
    env = internships_app.envs["internships"]
    value = sm.get_secret_value(SecretId=env.refs["JwtSecret"])["SecretString"]
    assert value == env.secret_values["JwtSecret"] and len(value) == 64 and value.isalnum()
    payment = sm.get_secret_value(SecretId=env.refs["PaymentSecret"])["SecretString"]
    import json

    doc = json.loads(payment)
    assert doc["key_id"] == "rzp_test_local" and len(doc["key_secret"]) == 32


def test_secrets_same_value_again(internships_app):
    from local_runtime.provision import _SECRET_VALUES

    sm = boto3.client("secretsmanager")
    env = internships_app.envs["internships"]
    assert sm.get_secret_value(SecretId=env.refs["JwtSecret"])["SecretString"] == \
        _SECRET_VALUES[("internships", "JwtSecret")]


def test_aws_mock_is_an_empty_account(aws_mock):
    assert boto3.client("dynamodb").list_tables()["TableNames"] == []
    assert boto3.client("cognito-idp").list_user_pools(MaxResults=10)["UserPools"] == []


def test_fixture_is_faster_than_fresh_provisioning(_moto_harness):
    """Reset-and-reprovision must beat what every test used to pay (a new account, new pools,
    new clients). Compared in the same run, so a loaded machine slows both sides."""
    from local_runtime import testing
    from local_runtime.provision import Clients

    _moto_harness.app()  # warm
    t0 = time.perf_counter()
    for _ in range(3):
        _moto_harness.app()
    fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(3):
        _moto_harness.fresh_account()
        testing.start(clients=Clients())
    fresh = time.perf_counter() - t0
    _moto_harness.fresh_account()
    assert fast < fresh * 0.8, (fast, fresh)


def test_ses_sender_domains_verified_for_sesv2(campaigns_app):
    ses = boto3.client("sesv2")
    r = ses.send_email(FromEmailAddress="news@example.com", Destination={"ToAddresses": ["a@b.test"]},
                       Content={"Simple": {"Subject": {"Data": "hi"}, "Body": {"Text": {"Data": "body"}}}})
    assert r["MessageId"]


def test_a_request_over_lambdas_6mb_sync_payload_is_refused_before_the_function(campaigns_app):
    """API Gateway's HTTP API takes 10 MB, but Lambda's synchronous invocation takes at most
    6 MB of event: the local runtime answers 413 without running the function, as AWS does."""
    body = b"x" * 4_800_000  # binary: base64 in the event makes it ~6.4 MB
    r = campaigns_app.campaigns.post("/contacts/import", body=body,
                                     headers={"content-type": "application/octet-stream"})
    assert r.status == 413
    assert b"Request Entity Too Large" in r.body
