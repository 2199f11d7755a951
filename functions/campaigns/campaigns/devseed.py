"""Bootstrap data for ``make dev``: the Admin key written to ``.local/dev.json``.

The local runtime calls ``seed(previous)`` after provisioning, with the ``campaigns``
section of the previous dev.json (or ``None``), and stores the returned dict under
``campaigns``: ``{"api_key": "ck_...", "account_id": "acct-dev", "key_id": ...}``. A key
that still authenticates is kept, so restarts do not rotate it.

The dev account also owns the sender domain ``example.com`` (``DEV_SENDER``): the default From
address (``CAMPAIGNS_DEFAULT_FROM_EMAIL``, no-reply@example.com) and the addresses the examples and
tests use, and a sample postal address (``DEV_POSTAL_ADDRESS``, printed in marketing footers). It is registered through the senders service like any account's, and the emulator
(moto) reports a new SES identity verified at once.
"""
from __future__ import annotations

from lambdakit.security import sha256_hex

from .account import repository as account
from .apikeys import repository as repo
from .apikeys.service import create_key
from .senders import service as senders

DEV_ACCOUNT = "acct-dev"
DEV_SENDER = "example.com"
#: the dev account's postal address (``postal_address`` of its account record; the marketing footer)
DEV_POSTAL_ADDRESS = "Example Mail Ltd\n1 Sample Street\nLondon EC1A 1AA\nUnited Kingdom"


def seed(previous: dict | None = None) -> dict:
    senders.ensure(DEV_ACCOUNT, DEV_SENDER)
    if not account.get(DEV_ACCOUNT)["postal_address"]:
        account.set_postal_address(DEV_ACCOUNT, DEV_POSTAL_ADDRESS)
    prev_key = (previous or {}).get("api_key")
    if prev_key:
        rec = repo.get_by_hash(sha256_hex(prev_key))
        if rec is not None:
            return {"api_key": prev_key, "account_id": rec["account_id"], "key_id": rec["key_id"]}
    secret, record = create_key(DEV_ACCOUNT, "dev bootstrap (Admin)", role="admin", plan="pro")
    return {"api_key": secret, "account_id": DEV_ACCOUNT, "key_id": record["key_id"]}
