"""Move the messages of a dead-letter queue back to where they came from (SQS redrive).

    make redrive QUEUE=campaigns/SendDLQ                  # the DLQ of a service, by logical id
    make redrive QUEUE=campaigns/SendDLQ DRY=1            # resolve and print, move nothing
    make redrive QUEUE=<queue name | URL | ARN> [TO=<destination queue>] [RATE=10]
    make redrive QUEUE=campaigns/SendDLQ STATUS=1         # the queue's recent move tasks

``<service>/<LogicalId>`` is looked up in the deployed stack: the root stack (``STACK``, default
the ``stack_name`` of samconfig.toml) holds one nested stack per service, whose resource
``<LogicalId>`` is the queue; a service deployed on its own (``sam deploy -t
functions/<service>/template.yaml``) is found too when ``STACK`` names that stack. The
logical id must be a dead-letter queue of the service's template.

The move is SQS's own redrive (``StartMessageMoveTask``): without a destination SQS returns
each message to the queue it was dead-lettered from, at most ``RATE`` messages per second
(default: SQS picks). A queue that no SQS queue dead-letters into (``EventsDLQ``: EventBridge
put the failed events there) has nowhere to go back to: the tool refuses unless ``TO`` names
a destination, and docs/operations.md says how to replay those events instead.
"""
from __future__ import annotations

import argparse
import functools
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from local_runtime.stack import load_all, load_root  # noqa: E402


class RedriveError(Exception):
    """A queue reference that cannot be resolved or redriven (the message says why)."""


@dataclass
class Plan:
    queue_url: str
    queue_arn: str
    sources: list[str]
    request: dict[str, Any] = field(default_factory=dict)


def default_stack(samconfig: Path = ROOT / "samconfig.toml") -> str:
    cfg = tomllib.loads(samconfig.read_text(encoding="utf-8"))
    return str(cfg["default"]["global"]["parameters"]["stack_name"])


def _service_stack_ids(root_template: Path = ROOT / "template.yaml") -> dict[str, str]:
    """``{service folder: logical id of its nested stack in the root template}``."""
    out = {}
    for lid, res in load_root(root_template).get("Resources", {}).items():
        if res.get("Type") == "AWS::Serverless::Application":
            out[Path(res["Properties"]["Location"]).parent.name] = lid
    return out


def _physical_id(cfn: Any, stack: str, logical_id: str) -> str | None:
    try:
        return cfn.describe_stack_resource(StackName=stack, LogicalResourceId=logical_id)[
            "StackResourceDetail"]["PhysicalResourceId"]
    except cfn.exceptions.ClientError as exc:
        if exc.response.get("Error", {}).get("Code") == "ValidationError":
            return None
        raise


def service_resource(cfn: Any, stack: str, service: str, logical_id: str,
                     root_template: Path = ROOT / "template.yaml") -> str:
    """The physical id of a service template's resource ``logical_id`` in ``stack``: the service's
    own stack (deployed on its own) or the root stack's nested one. ``LookupError`` names what is
    missing (also used by tools/account.py)."""
    found = _physical_id(cfn, stack, logical_id)  # a service stack deployed on its own
    if found is not None:
        return found
    nested_lid = _service_stack_ids(root_template)[service]
    nested = _physical_id(cfn, stack, nested_lid)
    if nested is None:
        raise LookupError(f"stack {stack!r} has neither a resource {logical_id!r} nor a nested stack {nested_lid!r}")
    found = _physical_id(cfn, nested, logical_id)
    if found is None:
        raise LookupError(f"nested stack {nested} has no resource {logical_id!r} (deployed an older template?)")
    return found


@functools.lru_cache(maxsize=4)
def _services(root_template: Path) -> dict[str, Any]:
    return load_all(root_template)


def template_queue(ref: str, root_template: Path = ROOT / "template.yaml") -> tuple[str, str, bool]:
    """``service/LogicalId`` → ``(service, logical id, is a dead-letter queue)``; checks the template."""
    service, _, lid = ref.partition("/")
    services = _services(root_template)
    if service not in services:
        raise RedriveError(f"unknown service {service!r} (one of: {', '.join(sorted(services))})")
    svc = services[service]
    queues = svc.resources_of("AWS::SQS::Queue")
    if lid not in queues:
        raise RedriveError(f"{service} declares no queue {lid!r} (queues: {', '.join(sorted(queues))})")
    return service, lid, lid in svc.dead_letter_queues()


def resolve_url(ref: str, *, sqs: Any, cfn: Any, stack: str, root_template: Path = ROOT / "template.yaml") -> str:
    """A queue URL for ``ref``: ``service/LogicalId``, a queue URL, an ARN or a queue name."""
    if ref.startswith(("https://", "http://")):
        return ref
    if ref.startswith("arn:"):
        parts = ref.split(":")
        if len(parts) != 6 or parts[2] != "sqs":
            raise RedriveError(f"not an SQS queue ARN: {ref!r}")
        return str(sqs.get_queue_url(QueueName=parts[5], QueueOwnerAWSAccountId=parts[4])["QueueUrl"])
    if "/" in ref:
        service, lid, _ = template_queue(ref, root_template)
        try:
            return service_resource(cfn, stack, service, lid, root_template)
        except LookupError as exc:
            raise RedriveError(str(exc)) from None
    try:
        return str(sqs.get_queue_url(QueueName=ref)["QueueUrl"])
    except sqs.exceptions.QueueDoesNotExist:
        raise RedriveError(f"no queue named {ref!r}") from None


def plan(ref: str, *, sqs: Any, cfn: Any, stack: str, to: str | None = None, rate: int | None = None,
         root_template: Path = ROOT / "template.yaml") -> Plan:
    """Resolve ``ref`` (and ``to``) and build the ``StartMessageMoveTask`` request; calls nothing that writes."""
    if "/" in ref and not ref.startswith(("https://", "http://", "arn:")):
        _, lid, is_dlq = template_queue(ref, root_template)
        if not is_dlq:
            raise RedriveError(f"{ref} is a work queue, not a dead-letter queue: nothing to redrive")
    url = resolve_url(ref, sqs=sqs, cfn=cfn, stack=stack, root_template=root_template)
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sources = list(sqs.list_dead_letter_source_queues(QueueUrl=url).get("queueUrls") or [])
    request: dict[str, Any] = {"SourceArn": arn}
    if to:
        dest_url = resolve_url(to, sqs=sqs, cfn=cfn, stack=stack, root_template=root_template)
        request["DestinationArn"] = sqs.get_queue_attributes(QueueUrl=dest_url, AttributeNames=["QueueArn"])[
            "Attributes"]["QueueArn"]
    elif not sources:
        raise RedriveError(f"no queue dead-letters into {url}: give a destination (TO=...) or replay the "
                           "messages as docs/operations.md#redriving-a-dead-letter-queue says")
    if rate is not None:
        if not 1 <= rate <= 500:
            raise RedriveError("RATE must be between 1 and 500 messages per second")
        request["MaxNumberOfMessagesPerSecond"] = rate
    return Plan(url, arn, sources, request)


def start(p: Plan, sqs: Any) -> str:
    return str(sqs.start_message_move_task(**p.request)["TaskHandle"])


def status(p: Plan, sqs: Any) -> list[dict]:
    return list(sqs.list_message_move_tasks(SourceArn=p.queue_arn, MaxResults=10).get("Results") or [])


def main(argv: list[str] | None = None, session: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("queue", help="service/LogicalId (e.g. campaigns/SendDLQ), queue name, URL or ARN")
    ap.add_argument("--stack", default=None, help="deployed stack (default: samconfig.toml stack_name)")
    ap.add_argument("--to", default=None, help="destination queue (default: the queues it was dead-lettered from)")
    ap.add_argument("--rate", type=int, default=None, help="messages per second (1-500)")
    ap.add_argument("--region", default=None)
    ap.add_argument("--dry-run", action="store_true", help="resolve and print the request; move nothing")
    ap.add_argument("--status", action="store_true", help="print the queue's recent move tasks")
    args = ap.parse_args(argv)
    if session is None:
        import boto3

        session = boto3.session.Session(region_name=args.region)
    sqs, cfn = session.client("sqs"), session.client("cloudformation")
    try:
        if args.status:
            p = _status_plan(args, sqs, cfn)
        else:
            p = plan(args.queue, sqs=sqs, cfn=cfn, stack=args.stack or default_stack(), to=args.to, rate=args.rate)
    except RedriveError as exc:
        print(f"redrive: {exc}", file=sys.stderr)
        return 2
    if args.status:
        for t in status(p, sqs):
            print(t)
        return 0
    print(f"queue {p.queue_url}\nsources {', '.join(p.sources) or '-'}\nrequest {p.request}")
    if args.dry_run:
        return 0
    print(f"started: task handle {start(p, sqs)} (make redrive QUEUE={args.queue} STATUS=1 shows progress)")
    return 0


def _status_plan(args: argparse.Namespace, sqs: Any, cfn: Any) -> Plan:
    url = resolve_url(args.queue, sqs=sqs, cfn=cfn, stack=args.stack or default_stack())
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return Plan(url, arn, [])


if __name__ == "__main__":
    raise SystemExit(main())
