"""Sender identities in DynamoDB and SES (the only module calling SES identity APIs).

- ``ACCT#{a}`` / ``SENDER#{id}``  the account's record (listing is one key query).
- ``SENDERIDENT#{identity}`` / ``OWNER``  the one account owning an identity (address or domain)
  in the platform's shared SES account: written with ``attribute_not_exists`` in the same
  transaction as the record, so two accounts cannot both hold one identity. A send looks up the
  owner items of its From address and of the address's domain in one BatchGetItem.
- ``SENDERTREE#{root}`` / ``{reversed domain}.|{identity}``  the domain tree (issue 32 item 2): one
  item per registered identity under the partition of its domain's last two labels, with the
  domain's labels reversed (``com.example.sub.``), so the identities at or under a domain are one
  ``begins_with`` Query. ``SENDERTREE#{root}`` / ``VERSION`` counts registrations under the root;
  each registration bumps it on condition that it has not moved since the checks read it, so two
  racing registrations of related domains cannot both win. ``claim_tree`` writes one identity's tree
  item the same way for an identity registered before the tree existed (``make backfill-senders``).
"""
from __future__ import annotations

from lambdakit import aws
from lambdakit.ddb import Table
from lambdakit.errors import ConditionFailed, Conflict, ServiceUnavailable, ValidationFailed

from ..settings import settings

TAG_ACCOUNT = "campaigns:account"
#: Key of an identity's owner item: ``OWNER_PREFIX + identity`` / ``OWNER_SK``.
OWNER_PREFIX, OWNER_SK = "SENDERIDENT#", "OWNER"


class IdentityTaken(Exception):
    """Another account (or, in SES, the platform itself) already holds the identity."""


def table() -> Table:
    return Table(settings().table_name)


def _owner_key(identity: str) -> tuple[str, str]:
    return f"{OWNER_PREFIX}{identity}", OWNER_SK


def owner_identity(item: dict) -> str | None:
    """The identity an owner item is for (``None`` for any other item)."""
    pk = str(item.get("pk", ""))
    return pk.removeprefix(OWNER_PREFIX) if pk.startswith(OWNER_PREFIX) and item.get("sk") == OWNER_SK else None


class TreeChanged(Exception):
    """Another registration under the same root landed between the checks and the write."""


def _tree_key(domain: str, identity: str = "") -> tuple[str, str]:
    labels = domain.split(".")
    return f"SENDERTREE#{'.'.join(labels[-2:])}", ".".join(reversed(labels)) + "." + (f"|{identity}" if identity else "")


def tree_version(domain: str) -> int:
    pk, _ = _tree_key(domain)
    item = table().get(pk, "VERSION", consistent=True)
    return int(item["v"]) if item else 0


def foreign_at_or_under(domain: str, account_id: str) -> dict | None:
    """An identity of another account at ``domain`` or under it (Query pages until the first one:
    the account's own items there are at most ``max_senders``)."""
    pk, prefix = _tree_key(domain)
    cursor = None
    while True:
        items, cursor = table().query(pk, sk_prefix=prefix, cursor=cursor, consistent=True, limit=100)
        for i in items:
            if i.get("account_id") != account_id:
                return i
        if not cursor:
            return None


def tree_entry(domain: str, identity: str) -> dict | None:
    """The tree item of ``identity`` (at ``domain``), if any."""
    return table().get(*_tree_key(domain, identity), consistent=True)


def _tree_ops(account_id: str, sender_id: str, identity: str, domain: str, version: int) -> list[dict]:
    """The tree item of one identity (new only) and the root's ``VERSION`` bump, conditional on the
    version the checks read: registration and the backfill claim the tree with these two ops."""
    tpk, tsk = _tree_key(domain, identity)
    return [
        {"put": {"pk": tpk, "sk": tsk, "account_id": account_id, "sender_id": sender_id, "identity": identity},
         "condition": "attribute_not_exists(pk)"},
        {"update": (tpk, "VERSION"), "set": {"v": version + 1},
         "condition": "attribute_not_exists(v) OR v = :seen" if version == 0 else "v = :seen",
         "values": {":seen": version}},
    ]


def _claim(ops: list[dict], identity: str, domain: str) -> None:
    """Run ``ops`` ending with ``_tree_ops``: ``TreeChanged`` when only the version moved, else
    ``IdentityTaken`` when a condition failed."""
    try:
        table().transact(ops)
    except ConditionFailed as exc:
        if exc.failed_ops == [len(ops) - 1]:
            raise TreeChanged(domain) from None
        raise IdentityTaken(identity) from None


def put(record: dict, domain: str, version: int) -> None:
    pk, sk = _owner_key(record["identity"])
    owner = {"pk": pk, "sk": sk, "account_id": record["account_id"], "sender_id": record["id"],
             "status": record["status"]}
    _claim([
        {"put": owner, "condition": "attribute_not_exists(pk)"},
        {"put": {"pk": f"ACCT#{record['account_id']}", "sk": f"SENDER#{record['id']}", **record},
         "condition": "attribute_not_exists(pk)"},
        *_tree_ops(record["account_id"], record["id"], record["identity"], domain, version),
    ], record["identity"], domain)


def claim_tree(owner: dict, identity: str, domain: str, version: int) -> None:
    """Write the tree item of an identity registered before the tree existed, from its owner item
    (the backfill): the same ops as ``put``, so racing registrations re-check."""
    _claim(_tree_ops(owner["account_id"], owner["sender_id"], identity, domain, version), identity, domain)


def get(account_id: str, sender_id: str) -> dict | None:
    item = table().get(f"ACCT#{account_id}", f"SENDER#{sender_id}")
    return {k: v for k, v in item.items() if k not in ("pk", "sk")} if item else None


def list_for(account_id: str, limit: int = 500) -> list[dict]:
    return [{k: v for k, v in i.items() if k not in ("pk", "sk")}
            for i in table().query_all(f"ACCT#{account_id}", sk_prefix="SENDER#", max_items=limit)]


def owners(identities: list[str]) -> dict[str, dict]:
    """Owner items of ``identities`` (one consistent BatchGetItem): identity → {account_id, status...}."""
    items = table().batch_get([_owner_key(i) for i in dict.fromkeys(identities)], consistent=True)
    return {str(i["pk"]).removeprefix("SENDERIDENT#"): i for i in items}


def set_status(record: dict, fields: dict) -> None:
    """Record and owner item change together (the owner item's status is what sends read)."""
    pk, sk = _owner_key(record["identity"])
    table().transact([
        {"update": (f"ACCT#{record['account_id']}", f"SENDER#{record['id']}"), "set": fields,
         "condition": "attribute_exists(pk)"},
        {"update": (pk, sk), "set": {"status": fields["status"]}, "condition": "account_id = :a",
         "values": {":a": record["account_id"]}},
    ])


def delete(record: dict, domain: str) -> None:
    pk, sk = _owner_key(record["identity"])
    table().transact([
        {"delete": (f"ACCT#{record['account_id']}", f"SENDER#{record['id']}"), "condition": "attribute_exists(pk)"},
        {"delete": (pk, sk), "condition": "account_id = :a", "values": {":a": record["account_id"]}},
        {"delete": _tree_key(domain, record["identity"])},
    ])


# ---------------------------------------------------------------- SES
def ses_create(identity: str, account_id: str) -> dict:
    """CreateEmailIdentity (SES emails a verification link to an address; a domain gets Easy
    DKIM tokens). Tagged with the owning account. SES refusals become the domain's errors."""
    from botocore.exceptions import ClientError

    ses = aws.client("sesv2")
    try:
        return ses.create_email_identity(EmailIdentity=identity, Tags=[{"Key": TAG_ACCOUNT, "Value": account_id}])
    except ses.exceptions.AlreadyExistsException:
        raise IdentityTaken(identity) from None
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code in ("TooManyRequestsException", "ThrottlingException"):
            raise ServiceUnavailable("SES is busy; retry shortly", headers={"Retry-After": "1"}) from None
        if code == "LimitExceededException":
            raise Conflict("The sending account cannot hold more identities", code="LIMIT_EXCEEDED") from None
        if code == "BadRequestException":
            raise ValidationFailed("SES refused this identity", fields={"identity": identity}) from None
        raise


def ses_get(identity: str) -> dict | None:
    ses = aws.client("sesv2")
    try:
        return ses.get_email_identity(EmailIdentity=identity)
    except ses.exceptions.NotFoundException:
        return None


def ses_delete(identity: str) -> None:
    ses = aws.client("sesv2")
    try:
        ses.delete_email_identity(EmailIdentity=identity)
    except ses.exceptions.NotFoundException:
        pass
