"""Credentials' data access: the signing keys (Secrets Manager), each certificate's status-list
index and the status lists' revoked entries (DynamoDB).

Keys: the secret ``CredentialSigningSecret`` holds a generated random string (CloudFormation's
``GenerateSecretString``; locally the runtime generates it from the template), or a JSON object
``{"keys": ["<current>", "<previous>", ...]}`` during a rotation. Each string is turned into an
Ed25519 seed by SHA-256 (domain-separated): the first signs, all are published in the JWK set, so
credentials signed before a rotation keep verifying.

Status lists: ``COUNTERS`` / ``credentials#status_index`` hands out indexes (ADD: gaps after a lost
race are harmless); a certificate's index is stored on it (``status_index``, set once, conditioned on
its revocation state as read). A revoked certificate with an index has the entry
``STATUSLIST#<list>`` / ``IDX#<index:09d>``, put and deleted in the revoke/un-revoke transaction
(``entry_op``); a list is rendered from a Query of its partition (keys only), never a Scan.
"""
from __future__ import annotations

import hashlib
import json

from lambdakit import secrets as secrets_store
from lambdakit.errors import ConditionFailed

from ..settings import settings
from ..store import clean, table

SEED_CONTEXT = b"internships/ob3-credential-signing/ed25519/v1\x00"
#: bits in one list: the Bitstring Status List minimum (16 KB), for group privacy
LIST_SIZE = 131_072


def signing_seeds() -> list[bytes]:
    """The Ed25519 seeds, the signing one first (empty when no secret is configured)."""
    s = settings()
    raw = s.credential_secret or (secrets_store.secret_string(s.credential_secret_arn)
                                  if s.credential_secret_arn else "")
    values: list[str] = [raw] if raw else []
    if raw.lstrip().startswith("{"):
        try:
            obj = json.loads(raw)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and isinstance(obj.get("keys"), list):
            values = [v for v in obj["keys"] if isinstance(v, str) and v]
    return [hashlib.sha256(SEED_CONTEXT + v.encode()).digest() for v in values]


def certificate(cert_id: str) -> dict | None:
    if not cert_id or len(cert_id) > 40:
        return None
    return clean(table().get(f"CERT#{cert_id}", "CERT", consistent=True))


def next_index() -> int:
    out = table().update("COUNTERS", "credentials#status_index", add={"count": 1})
    return int(out["count"]) - 1


def entry_key(index: int) -> tuple[str, str]:
    return f"STATUSLIST#{index // LIST_SIZE + 1}", f"IDX#{index:09d}"


def entry_op(index: int, revoked: bool, cert_id: str) -> dict:
    """The transaction op that marks (or clears) ``index`` in its status list."""
    if revoked:
        pk, sk = entry_key(index)
        return {"put": {"pk": pk, "sk": sk, "certificate_id": cert_id}}
    return {"delete": entry_key(index)}


def assign_index(cert: dict, index: int) -> bool:
    """Store ``index`` on the certificate (and its entry when it is revoked), once: False when the
    certificate got an index or changed revocation state meanwhile (the caller reads it again)."""
    revoked = bool(cert.get("revoked"))
    ops: list[dict] = [{"update": (f"CERT#{cert['certificate_id']}", "CERT"), "set": {"status_index": index},
                        "condition": "attribute_exists(pk) AND attribute_not_exists(status_index) AND "
                                     + ("revoked = :t" if revoked else "(attribute_not_exists(revoked) OR revoked = :f)"),
                        "values": {":t": True} if revoked else {":f": False}}]
    if revoked:
        ops.append(entry_op(index, True, cert["certificate_id"]))
    try:
        table().transact(ops)
    except ConditionFailed:
        return False
    return True


def revoked_indexes(list_id: int) -> list[int]:
    """Indexes (within the list) of the revoked entries of status list ``list_id``."""
    base = (list_id - 1) * LIST_SIZE
    out = []
    for item in table().iter_query(f"STATUSLIST#{list_id}", columns=["sk"], consistent=True):
        out.append(int(item["sk"][4:]) - base)
    return out


def is_revoked(list_id: int, index: int) -> bool:
    """Whether entry ``index`` of list ``list_id`` is set (one consistent GetItem)."""
    if list_id < 1 or not 0 <= index < LIST_SIZE:
        return False
    return table().get(*entry_key((list_id - 1) * LIST_SIZE + index), consistent=True) is not None
