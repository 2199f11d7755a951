"""Backfill the campaigns sender domain tree, for an operator: give every sender identity registered
before the tree existed (issue 32 item 2) its ``SENDERTREE#`` item, so the registration check "no
domain over another account's identity" covers it too.

    make backfill-senders DRY_RUN=1          # report what it would write; writes nothing
    make backfill-senders                    # write the missing tree items
    make backfill-senders STACK=<stack> | TABLE=<table name>

The table is found exactly as ``make account`` finds it (``tools.account.use_table``: ``TABLE``,
else the local runtime's when ``AWS_ENDPOINT_URL`` is set, else ``STACK``'s ``CampaignsTable``).

This offline tool Scans the table (paginated, filtered to the identities' owner items, consistent
reads): the request paths never Scan, and nothing else here is meant for one. Each owner item goes
through ``campaigns.senders.service.backfill_tree``, the registration code's own checks and write
(a conditional ``attribute_not_exists`` put of the tree item plus the tree's ``VERSION`` bump), so
a second run writes nothing and a registration racing it re-checks. An identity that another
account's claim is related to (a domain covering it, an identity under it, or its tree item held)
is a conflict: reported with both account ids, not written, for the operator to resolve.

Prints one JSON object: ``scanned`` (owner items), ``missing`` (without their tree item),
``written`` (``would_write`` under ``DRY_RUN``), ``conflicts`` and ``conflict_details`` (account
and sender ids and the domain; never an address's local part). Exit 0, or 1 when a conflict is
left to resolve.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "layers" / "shared", ROOT / "functions" / "campaigns"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))


def owner_items(page_size: int = 500) -> Iterator[dict]:
    """Every identity's owner item: a paginated, filtered Scan (offline only)."""
    from campaigns.senders import repository as repo
    from lambdakit.ddb import deser_item, from_ddb

    table = repo.table()
    pages = table.client.get_paginator("scan").paginate(
        TableName=table.name, ConsistentRead=True, FilterExpression="begins_with(pk, :p) AND sk = :s",
        ExpressionAttributeValues={":p": {"S": repo.OWNER_PREFIX}, ":s": {"S": repo.OWNER_SK}},
        PaginationConfig={"PageSize": page_size})
    for page in pages:
        for raw in page.get("Items", []):
            yield from_ddb(deser_item(raw))


def backfill(*, dry_run: bool = False) -> dict[str, Any]:
    """Run the backfill on the configured campaigns table; the report as a dict."""
    from campaigns.senders import repository as repo
    from campaigns.senders import service

    counts: dict[str, Any] = {"scanned": 0, "missing": 0, "written": 0, "conflicts": 0}
    if dry_run:
        counts["would_write"] = 0
    details: list[dict] = []
    for owner in owner_items():
        counts["scanned"] += 1
        out = service.backfill_tree(owner, dry_run=dry_run)
        if out["outcome"] == "present":
            continue
        counts["missing"] += 1
        if out["outcome"] == "conflict":
            counts["conflicts"] += 1
            identity = repo.owner_identity(owner) or ""
            details.append({"account_id": owner.get("account_id"), "sender_id": owner.get("sender_id"),
                            "domain": service.domain_of(identity),
                            "other_account_id": out["other_account_id"],
                            "other_sender_id": out["other_sender_id"]})
        else:
            counts[out["outcome"]] += 1
    return {**counts, "dry_run": dry_run, "conflict_details": details}


def main(argv: list[str] | None = None, session: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    ap.add_argument("--stack", default=None, help="deployed stack (default: samconfig.toml stack_name)")
    ap.add_argument("--table", default=None, help="table name (skips the stack lookup)")
    ap.add_argument("--region", default=None)
    args = ap.parse_args(argv)
    from tools.account import AccountToolError, use_table

    try:
        use_table(table=args.table, stack=args.stack, region=args.region, session=session)
        report = backfill(dry_run=args.dry_run)
    except AccountToolError as exc:
        print(f"backfill-senders: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, sort_keys=True))
    return 1 if report["conflicts"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
