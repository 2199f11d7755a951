"""Campaigns accounts, for an operator: create one (with its postal address and first Admin key),
list them, disable one.

    make account NAME="Acme Ltd" PLAN=pro ADDRESS="1 Main St, Springfield"   # prints the key once
    make account LIST=1
    make account DISABLE=<account id>
    make account ... STACK=<stack> | TABLE=<table name>

The table is the deployed campaigns stack's ``CampaignsTable``, resolved like ``make redrive``
resolves queues: the root stack (``STACK``, default the ``stack_name`` of samconfig.toml) holds the
nested campaigns stack, whose ``CampaignsTable`` is looked up; a campaigns stack deployed on its own
is found when ``STACK`` names it. ``TABLE`` skips the lookup. Against the local runtime (``make
dev``; ``AWS_ENDPOINT_URL`` set, e.g. http://127.0.0.1:4566) the table is the runtime's
``campaigns-CampaignsTable`` unless ``TABLE`` says otherwise.

Everything is done by the campaigns domain code (``campaigns.apikeys.accounts``): the key is
created and hashed exactly as ``POST /api-keys`` creates keys. Tests call ``create_account``,
``list_accounts`` and ``disable_account`` of this module directly (the in-process emulator's table
is already configured there).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "layers" / "shared", ROOT / "functions" / "campaigns"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

LOCAL_TABLE = "campaigns-CampaignsTable"
TABLE_LID = "CampaignsTable"


class AccountToolError(Exception):
    pass


def resolve_table(*, cfn: Any, stack: str) -> str:
    """The physical name of the campaigns table of ``stack`` (root stack or campaigns stack)."""
    from tools.redrive import service_resource

    try:
        return service_resource(cfn, stack, "campaigns", TABLE_LID)
    except LookupError as exc:
        raise AccountToolError(str(exc)) from None


def _configure(table: str, stage: str) -> None:
    """Point the campaigns settings at ``table`` (before any campaigns module reads them)."""
    os.environ["CAMPAIGNS_TABLE_NAME"] = table
    os.environ.setdefault("CAMPAIGNS_STAGE", stage)
    from lambdakit.settings import reset_settings

    reset_settings()


def use_table(*, table: str | None, stack: str | None, region: str | None, session: Any = None) -> str:
    """Point the campaigns code at the table ``TABLE`` names, else the local runtime's (when
    ``AWS_ENDPOINT_URL`` is set and no ``STACK``), else ``STACK``'s (default: samconfig.toml's).
    Shared by the campaigns operator tools (``make account``, ``make backfill-senders``)."""
    local = bool(os.environ.get("AWS_ENDPOINT_URL"))
    if not table and local and not stack:
        table = LOCAL_TABLE
    if not table:
        if session is None:
            import boto3

            session = boto3.session.Session(region_name=region)
        from tools.redrive import default_stack

        table = resolve_table(cfn=session.client("cloudformation"), stack=stack or default_stack())
    if region:
        os.environ["AWS_REGION"] = os.environ["AWS_DEFAULT_REGION"] = region
    _configure(table, "local" if local else "prod")
    return table


# ---------------------------------------------------------------- the Python entry (tests use these)
def create_account(name: str, plan: str, address: str, *, account_id: str | None = None) -> dict:
    """``{"account": {...}, "api_key": "ck_...", "key": {...}}``: the secret is only here."""
    from campaigns.apikeys import accounts

    return accounts.create_account(name, plan, address, account_id=account_id)


def list_accounts() -> list[dict]:
    from campaigns.apikeys import accounts

    return accounts.list_accounts()


def disable_account(account_id: str) -> dict:
    from campaigns.apikeys import accounts

    return accounts.disable_account(account_id)


# ---------------------------------------------------------------- CLI
def main(argv: list[str] | None = None, session: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name")
    ap.add_argument("--plan", default="pro", help="standard | pro | enterprise (default pro)")
    ap.add_argument("--address", help="postal address (mail footers); \\n for line breaks")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--disable", metavar="ACCOUNT_ID")
    ap.add_argument("--stack", default=None, help="deployed stack (default: samconfig.toml stack_name)")
    ap.add_argument("--table", default=None, help="table name (skips the stack lookup)")
    ap.add_argument("--region", default=None)
    args = ap.parse_args(argv)
    if not (args.list or args.disable or (args.name and args.address)):
        ap.error("give NAME and ADDRESS (and PLAN), or LIST=1, or DISABLE=<id>")
    try:
        use_table(table=args.table, stack=args.stack, region=args.region, session=session)
        if args.list:
            for a in list_accounts():
                print(json.dumps(a, sort_keys=True))
            return 0
        if args.disable:
            a = disable_account(args.disable)
            print(f"disabled {a.get('id', args.disable)}: its keys are refused (403 ACCOUNT_DISABLED)")
            return 0
        out = create_account(args.name, args.plan, args.address.replace("\\n", "\n"))
    except AccountToolError as exc:
        print(f"account: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - the domain's refusals (validation, conflict) as one line
        msg = getattr(exc, "message", None) or str(exc)
        print(f"account: {type(exc).__name__}: {msg}", file=sys.stderr)
        return 1
    acct = out["account"]
    print(f"account {acct['id']} ({acct['name']}, plan {acct['plan']}) created")
    print(f"Admin key {out['key']['key_id']}: {out['api_key']}")
    print("The key is shown once: store it now (only its hash is kept).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
