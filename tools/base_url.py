"""Write each service's public base URL into its SSM parameter from the deployed stack's outputs
(issue 33: deploy once; links in mail resolve from the first send, no second deploy).

    make base-url                      # the stack of samconfig.toml (STACK=... for another)
    make base-url DRY=1                # print what would be written
    make base-url URL=https://mail.example.com   # a URL of your own (a CDN in front of the API)

The root stack's outputs pair ``<Service>ApiUrl`` with ``<Service>BaseUrlParameter``; a service
deployed on its own (``sam deploy -t functions/<service>/template.yaml``) has ``HttpApiUrl`` and
``PublicBaseUrlParameterName``. The functions read the parameter at run time (cached for a minute,
``lambdakit.baseurl``): sends are refused with 503 ``BASE_URL_NOT_SET`` and the health route says
why until it holds an absolute http(s) URL. A stage deployed with ``CustomDomainName`` or
``PublicBaseUrl`` does not need this.
"""
from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "layers" / "shared"))

from lambdakit.baseurl import usable  # noqa: E402

#: (API URL output, parameter name output) of a service deployed on its own; the root stack's are
#: ``<Service>ApiUrl`` and ``<Service>BaseUrlParameter``.
SERVICE_STACK = ("HttpApiUrl", "PublicBaseUrlParameterName")


class BaseUrlError(Exception):
    pass


def default_stack(samconfig: Path = ROOT / "samconfig.toml") -> str:
    cfg = tomllib.loads(samconfig.read_text(encoding="utf-8"))
    return str(cfg["default"]["global"]["parameters"]["stack_name"])


def plan(outputs: dict[str, str], url: str | None = None) -> list[tuple[str, str]]:
    """``[(parameter name, base URL)]`` from a stack's outputs; ``url`` replaces the API URL."""
    out: list[tuple[str, str]] = []
    if SERVICE_STACK[1] in outputs:
        out.append((outputs[SERVICE_STACK[1]], url or outputs.get(SERVICE_STACK[0], "")))
    for key, name in sorted(outputs.items()):
        if key.endswith("BaseUrlParameter"):
            service = key[: -len("BaseUrlParameter")]
            out.append((name, url or outputs.get(f"{service}ApiUrl", "")))
    if not out:
        raise BaseUrlError("the stack has no base URL parameter output (deployed before issue 33? deploy again)")
    for name, value in out:
        if not usable(value):
            raise BaseUrlError(f"{value!r} for {name} is not an absolute http(s) URL")
    return [(name, value.rstrip("/")) for name, value in out]


def stack_outputs(cfn: Any, stack: str) -> dict[str, str]:
    stacks = cfn.describe_stacks(StackName=stack)["Stacks"]
    return {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}


def apply(ssm: Any, writes: list[tuple[str, str]]) -> None:
    for name, value in writes:
        ssm.put_parameter(Name=name, Value=value, Type="String", Overwrite=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stack", default=None, help="stack name (default: samconfig.toml's stack_name)")
    ap.add_argument("--url", default=None, help="base URL to write instead of the stack's API URL")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    import boto3

    stack = args.stack or default_stack()
    try:
        writes = plan(stack_outputs(boto3.client("cloudformation"), stack), args.url)
    except BaseUrlError as exc:
        print(f"make base-url: {stack}: {exc}", file=sys.stderr)
        return 1
    for name, value in writes:
        print(f"{'would write' if args.dry_run else 'writing'} {name} = {value}")
    if not args.dry_run:
        apply(boto3.client("ssm"), writes)
        print("done: the functions pick it up within a minute (GET /health shows status healthy)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
