"""Campaigns accounts an operator creates (issue 32, "Accounts an operator can create").

There is no public sign-up route: an operator runs ``make account`` (``tools/account.py``), which
calls these functions against the deployed table. An account is a record (``name``, ``plan``,
``postal_address`` - the mail footer's sender address, CAN-SPAM - and ``status``) plus its first
Admin key, created with ``service.create_key`` exactly like every other key (only the SHA-256 of the
secret is stored; the secret is returned once).

Disabling an account flips its record (no new key can be written: ``repository.put_key`` checks the
record in the same transaction) and then stamps every key's authentication item, which
``service.authenticate`` refuses with 403 ``ACCOUNT_DISABLED``.
"""
from __future__ import annotations

from lambdakit import clock, ids
from lambdakit.errors import ConditionFailed, Conflict, NotFound, ValidationFailed

from . import repository as repo
from .service import create_key

PLANS = ("standard", "pro", "enterprise")


def _clean(value: str, field: str, max_len: int, *, multiline: bool = False) -> str:
    v = (value or "").strip()
    allowed = "\n" if multiline else ""
    if not v or len(v) > max_len or any((ord(c) < 32 and c not in allowed) or ord(c) == 127 for c in v):
        raise ValidationFailed(f"{field} must be 1-{max_len} printable characters", fields={field: "Invalid"})
    return v


def create_account(name: str, plan: str, postal_address: str, *, account_id: str | None = None,
                   key_name: str = "first Admin key") -> dict:
    """Create the account and its first Admin key: ``{account, api_key, key}`` (the secret once)."""
    if plan not in PLANS:
        raise ValidationFailed(f"plan must be one of {', '.join(PLANS)}", fields={"plan": "Unknown plan"})
    aid = account_id or f"acct-{ids.sortable_id().lower()}"
    account = {"id": aid, "name": _clean(name, "name", 200),
               "plan": plan, "postal_address": _clean(postal_address, "postal_address", 500, multiline=True),
               "status": "active", "created_at": clock.now_iso(), "disabled_at": None}
    try:
        repo.put_account(account)
    except ConditionFailed:
        raise Conflict(f"Account {aid} already exists", code="ACCOUNT_EXISTS") from None
    secret, key = create_key(aid, key_name, role="admin", plan=plan, created_by="operator")
    return {"account": account, "api_key": secret, "key": key}


def list_accounts() -> list[dict]:
    return sorted(repo.list_accounts(), key=lambda a: a.get("created_at") or "")


def disable_account(account_id: str) -> dict:
    """Disable the account and refuse its keys from now on; returns the record. Idempotent."""
    if repo.get_account(account_id) is None:
        raise NotFound(f"Account {account_id} not found")
    repo.set_account_disabled(account_id, clock.now_iso())
    for rec in repo.iter_all_keys(account_id):  # every key written before the flip, however many
        if rec.get("secret_hash"):
            repo.mark_key_account_disabled(rec["secret_hash"])
    return repo.get_account(account_id) or {}
