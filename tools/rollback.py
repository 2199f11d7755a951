"""Roll every function of a deployed stack back to its previous version, in one command.

    make rollback                      # every live alias of the stack (samconfig.toml's stack_name)
    make rollback STACK=my-stack DRY=1 # print the plan, change nothing
    make rollback FN=SendingFunction   # only the functions whose logical id is FN

Each function is published as a numbered version behind the alias ``live`` (``AutoPublishAlias``
in every template, issue 33 item 4), and the APIs, queues and schedules invoke the alias. Rolling
back is therefore two steps, both immediate:

1. stop every CodeDeploy deployment of the stack still in progress, with its automatic
   rollback (traffic goes back to the version the alias had before);
2. point each ``live`` alias at the highest published version below the one it points to now
   (routing configuration cleared), so a deployment that already finished is undone too.

Nothing is rebuilt or redeployed. The stack still describes the newer version: the next
``sam deploy`` moves the aliases forward again (fix first; docs/operations.md#rolling-back).
Nested stacks are followed, so the root stack rolls back all three services.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.redrive import default_stack  # noqa: E402

ALIAS = "live"


@dataclass
class Step:
    logical_id: str
    function: str
    current: str
    previous: str | None


def _stack_resources(cfn: Any, stack: str) -> list[dict]:
    out: list[dict] = []
    for page in cfn.get_paginator("list_stack_resources").paginate(StackName=stack):
        for r in page["StackResourceSummaries"]:
            if r["ResourceType"] == "AWS::CloudFormation::Stack" and r.get("PhysicalResourceId"):
                out.extend(_stack_resources(cfn, r["PhysicalResourceId"]))
            else:
                out.append(r)
    return out


def functions_of(cfn: Any, stack: str, only: str | None = None) -> dict[str, str]:
    """``{logical id: function name}`` of every Lambda function of the stack and its nested stacks."""
    return {r["LogicalResourceId"]: r["PhysicalResourceId"] for r in _stack_resources(cfn, stack)
            if r["ResourceType"] == "AWS::Lambda::Function" and (only is None or r["LogicalResourceId"] == only)}


def previous_version(lam: Any, function: str, current: str) -> str | None:
    """The highest published version of ``function`` below ``current`` (None: nothing older)."""
    versions: list[int] = []
    for page in lam.get_paginator("list_versions_by_function").paginate(FunctionName=function):
        versions += [int(v["Version"]) for v in page["Versions"] if v["Version"].isdigit()]
    older = [v for v in versions if v < int(current)]
    return str(max(older)) if older else None


def plan(lam: Any, functions: dict[str, str]) -> list[Step]:
    steps = []
    for lid, name in sorted(functions.items()):
        try:
            alias = lam.get_alias(FunctionName=name, Name=ALIAS)
        except lam.exceptions.ResourceNotFoundException:
            continue
        current = alias["FunctionVersion"]
        steps.append(Step(lid, name, current, previous_version(lam, name, current)))
    return steps


def stop_deployments(codedeploy: Any, stack: str, dry: bool) -> list[str]:
    """Stop (with automatic rollback) the in-progress deployments of the stack's CodeDeploy applications."""
    stopped = []
    for app in codedeploy.list_applications().get("applications", []):
        if not app.startswith(stack):
            continue
        for status in ("InProgress", "Queued", "Ready"):
            ids = codedeploy.list_deployments(applicationName=app, includeOnlyStatuses=[status]).get("deployments", [])
            for dep in ids:
                if not dry:
                    codedeploy.stop_deployment(deploymentId=dep, autoRollbackEnabled=True)
                stopped.append(dep)
    return stopped


def apply(lam: Any, steps: list[Step]) -> None:
    for s in steps:
        if s.previous is not None:
            lam.update_alias(FunctionName=s.function, Name=ALIAS, FunctionVersion=s.previous, RoutingConfig={})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stack", default=None)
    ap.add_argument("--function", default=None, help="logical id of one function")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    import boto3

    stack = args.stack or default_stack()
    session = boto3.session.Session()
    cfn, lam = session.client("cloudformation"), session.client("lambda")
    stopped = stop_deployments(session.client("codedeploy"), stack, args.dry_run)
    for dep in stopped:
        print(f"{'would stop' if args.dry_run else 'stopped'} deployment {dep} (automatic rollback)")
    steps = plan(lam, functions_of(cfn, stack, args.function))
    if not steps:
        print(f"{stack}: no function with a '{ALIAS}' alias", file=sys.stderr)
        return 1
    for s in steps:
        target = s.previous or "(no older version: unchanged)"
        print(f"{s.logical_id}: {s.function}:{ALIAS} {s.current} -> {target}")
    if not args.dry_run:
        apply(lam, steps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
