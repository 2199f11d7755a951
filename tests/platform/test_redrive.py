"""tools/redrive.py (``make redrive``): queue resolution against moto, the SQS request it sends.

moto resolves stacks, nested stacks and queues; it does not implement StartMessageMoveTask, so
the final call is checked with botocore's Stubber on a client of its own.
"""
from __future__ import annotations

import json
import sys

import boto3
import pytest
from botocore.stub import Stubber

from local_runtime.stack import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import redrive  # noqa: E402

REGION = "us-east-1"


@pytest.fixture
def deployed(aws_mock):
    """A root stack with a nested campaigns stack holding SendQueue -> SendDLQ and EventsDLQ."""
    s3 = boto3.client("s3", region_name=REGION)
    s3.create_bucket(Bucket="templates")
    child = {"Resources": {
        "SendDLQ": {"Type": "AWS::SQS::Queue", "Properties": {}},
        "EventsDLQ": {"Type": "AWS::SQS::Queue", "Properties": {}},
        "SendQueue": {"Type": "AWS::SQS::Queue", "Properties": {"RedrivePolicy": {
            "deadLetterTargetArn": {"Fn::GetAtt": ["SendDLQ", "Arn"]}, "maxReceiveCount": 5}}},
    }}
    s3.put_object(Bucket="templates", Key="campaigns.json", Body=json.dumps(child))
    root = {"Resources": {"CampaignsService": {"Type": "AWS::CloudFormation::Stack", "Properties": {
        "TemplateURL": "https://templates.s3.amazonaws.com/campaigns.json"}}}}
    cfn = boto3.client("cloudformation", region_name=REGION)
    cfn.create_stack(StackName="trio", TemplateBody=json.dumps(root))
    return boto3.client("sqs", region_name=REGION), cfn


def _arn(sqs, url):
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def test_service_logical_id_resolves_through_the_nested_stack(deployed):
    sqs, cfn = deployed
    p = redrive.plan("campaigns/SendDLQ", sqs=sqs, cfn=cfn, stack="trio", rate=20)
    assert "SendDLQ" in p.queue_url and p.queue_arn == _arn(sqs, p.queue_url)
    assert len(p.sources) == 1 and "SendQueue" in p.sources[0]
    assert p.request == {"SourceArn": p.queue_arn, "MaxNumberOfMessagesPerSecond": 20}


def test_name_url_and_arn_resolve_to_the_same_queue(deployed):
    sqs, cfn = deployed
    url = redrive.plan("campaigns/SendDLQ", sqs=sqs, cfn=cfn, stack="trio").queue_url
    name = url.rsplit("/", 1)[1]
    for ref in (name, url, _arn(sqs, url)):
        assert redrive.plan(ref, sqs=sqs, cfn=cfn, stack="trio").queue_url == url


def test_refusals(deployed):
    sqs, cfn = deployed
    with pytest.raises(redrive.RedriveError, match="work queue"):
        redrive.plan("campaigns/SendQueue", sqs=sqs, cfn=cfn, stack="trio")
    with pytest.raises(redrive.RedriveError, match="declares no queue"):
        redrive.plan("campaigns/NoSuchDLQ", sqs=sqs, cfn=cfn, stack="trio")
    with pytest.raises(redrive.RedriveError, match="unknown service"):
        redrive.plan("billing/SendDLQ", sqs=sqs, cfn=cfn, stack="trio")
    with pytest.raises(redrive.RedriveError, match="no queue named"):
        redrive.plan("missing-queue", sqs=sqs, cfn=cfn, stack="trio")
    with pytest.raises(redrive.RedriveError, match="neither a resource"):
        redrive.plan("campaigns/SendDLQ", sqs=sqs, cfn=cfn, stack="other-stack")
    # EventsDLQ: EventBridge dead-letters into it, no SQS queue does; a destination is required
    with pytest.raises(redrive.RedriveError, match="no queue dead-letters"):
        redrive.plan("campaigns/EventsDLQ", sqs=sqs, cfn=cfn, stack="trio")
    p = redrive.plan("campaigns/EventsDLQ", sqs=sqs, cfn=cfn, stack="trio", to="campaigns/SendDLQ")
    assert "SendDLQ" in p.request["DestinationArn"]
    with pytest.raises(redrive.RedriveError, match="RATE"):
        redrive.plan("campaigns/SendDLQ", sqs=sqs, cfn=cfn, stack="trio", rate=0)


def test_start_sends_start_message_move_task_with_the_plan(deployed):
    sqs, cfn = deployed
    p = redrive.plan("campaigns/SendDLQ", sqs=sqs, cfn=cfn, stack="trio")
    stub_client = boto3.client("sqs", region_name=REGION)
    with Stubber(stub_client) as stub:
        stub.add_response("start_message_move_task", {"TaskHandle": "task-1"}, {"SourceArn": p.queue_arn})
        assert redrive.start(p, stub_client) == "task-1"
        stub.assert_no_pending_responses()


def test_every_dead_letter_queue_of_the_templates_is_addressable():
    """What the runbook tells operators to type: service/LogicalId for each DLQ of each template."""
    from local_runtime.testing import services

    for name, svc in services().items():
        for dlq in svc.dead_letter_queues():
            assert redrive.template_queue(f"{name}/{dlq}") == (name, dlq, True)


def test_default_stack_comes_from_samconfig():
    assert redrive.default_stack() == "serverless-trio"


def test_command_line_dry_run_and_errors(deployed, capsys):
    session = boto3.session.Session(region_name=REGION)
    assert redrive.main(["campaigns/SendDLQ", "--stack", "trio", "--dry-run"], session=session) == 0
    out = capsys.readouterr().out
    assert "SendDLQ" in out and "'SourceArn': 'arn:aws:sqs:" in out and "started" not in out
    assert redrive.main(["campaigns/SendQueue", "--stack", "trio"], session=session) == 2
    assert "work queue" in capsys.readouterr().err
