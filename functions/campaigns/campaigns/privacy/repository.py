"""The per-person index and the erasure of the records it finds (data protection).

A record holding a person's data outside the contact item carries ``gsi1pk = erasure_pk(a, email)``
(a hash of the address): the per-recipient send records (``campaigns.sending.repository.claim``),
with their open/click markers. Sandbox outbox copies are found by recipient
(``ACCT#<a>#OUTBOX#TO#<email>`` on gsi1, ``campaigns.sending.outbox.put_outbox``; the pieces of a big
message's bytes are on the person index).
"""
from __future__ import annotations

from lambdakit.ddb import Table
from lambdakit.security import sha256_hex

from ..settings import settings


def table() -> Table:
    return Table(settings().table_name)


def erasure_pk(account_id: str, email: str) -> str:
    """The person index of an address (gsi1 of the records that hold the person's data)."""
    return f"ACCT#{account_id}#RE#{sha256_hex(email.strip().lower())[:32]}"


def erase_person(account_id: str, email: str) -> int:
    """Delete every recipient record and sandbox outbox copy of ``email`` in the account."""
    t = table()
    keys_: list[tuple[str, str]] = []
    for item in t.iter_query(erasure_pk(account_id, email), index="gsi1"):
        keys_.append((item["pk"], item["sk"]))
    for item in t.iter_query(f"ACCT#{account_id}#OUTBOX#TO#{email.strip().lower()}", index="gsi1"):
        keys_.append((item["pk"], item["sk"]))
    if keys_:
        t.batch_write(deletes=keys_)
    return len(keys_)
