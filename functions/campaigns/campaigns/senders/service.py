"""Sender identities: an account registers an address or a domain, the service creates the SES
identity, reports its verification status (DKIM records for domains), and only the account's
verified identities may be used as ``from_email`` (the way SES, Postmark and SendGrid tie
senders to an account).

All tenants share the platform's SES account, where an identity is one resource: so an identity
belongs to at most one account (the first to register it; 409 ``SENDER_TAKEN`` for the next), and
an identity SES already holds but no account registered (the platform's own) cannot be claimed
(409 ``SENDER_UNAVAILABLE``).

SES lets a verified domain send as every address at it and at its subdomains, so ownership is per
domain tree (issue 32 item 2), compared on IDNA-encoded, lower-cased labels: an address or domain
at or under a domain another account registered is 409 ``SENDER_TAKEN``, and so is a domain with
another account's identity (domain or address) at or under it. Addresses of different accounts at
one domain (two people at a mail provider) coexist. The checks are GetItems on the owner items of
the domain's ancestors plus one Query of the domain tree (``repository``), and the write is
conditional on the tree not having changed since.

Verification status is read from SES (``GetEmailIdentity``: ``VerifiedForSendingStatus`` or
``VerificationStatus`` SUCCESS) at registration and by ``GET /senders/{id}`` while it is not yet
verified, and stored; sends read the stored status only (no SES call on the send path). Locally,
moto reports every new identity verified at once (no DNS or mailbox to check), so registering is
enough; the dev seed registers ``example.com`` for the dev account.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, TypeVar

from lambdakit import clock, ids
from lambdakit.errors import Conflict, NotFound, ServiceUnavailable, ValidationFailed
from lambdakit.http import parse_model

from ..settings import settings
from . import repository as repo
from .views import Sender

if TYPE_CHECKING:
    from .models import SenderCreate

# Cold start: the read routes (and the send path) load the view only; registering loads the body.

NOT_VERIFIED = "SENDER_NOT_VERIFIED"
T = TypeVar("T")


def public(record: dict) -> dict:
    return Sender.model_validate(record).model_dump()


def _status(ses: dict | None) -> str:
    if not ses:
        return "failed"
    if ses.get("VerifiedForSendingStatus") or ses.get("VerificationStatus") == "SUCCESS":
        return "verified"
    return "failed" if ses.get("VerificationStatus") == "FAILED" else "pending"


def _dkim(identity: str, kind: str, ses: dict | None) -> dict | None:
    if kind != "domain":
        return None
    attrs = (ses or {}).get("DkimAttributes") or {}
    tokens = list(attrs.get("Tokens") or [])
    return {"status": attrs.get("Status"), "tokens": tokens,
            "records": [{"name": f"{t}._domainkey.{identity}", "type": "CNAME", "value": f"{t}.dkim.amazonses.com"}
                        for t in tokens]}


def _observed(record: dict, ses: dict | None) -> dict:
    status = _status(ses)
    now = clock.now_iso()
    out = {"status": status, "dkim": _dkim(record["identity"], record["type"], ses) or record.get("dkim"),
           "updated_at": now}
    if status == "verified" and not record.get("verified_at"):
        out["verified_at"] = now
    return out


def domain_of(identity: str) -> str:
    """The IDNA-encoded, lower-cased domain of an address or domain identity."""
    from .models import normalise_domain

    return normalise_domain(identity.rpartition("@")[2])


def _ancestors(domain: str) -> list[str]:
    """``domain`` and every parent with at least two labels: a.b.example.com → ..., example.com."""
    labels = domain.split(".")
    return [".".join(labels[i:]) for i in range(len(labels) - 1)]


def _taken(identity: str) -> Conflict:
    return Conflict("This sender is at or over a domain registered by another account", code="SENDER_TAKEN",
                    details={"identity": identity})


def _foreign_claim(account_id: str, domain: str, is_domain: bool) -> dict | None:
    """The item (owner or tree item, with its ``account_id``) of another account's domain covering
    ``domain``, or (for a domain) of another account's identity at or under it."""
    found = repo.owners(_ancestors(domain))
    foreign = next((o for o in found.values() if o.get("account_id") != account_id), None)
    if foreign:
        return foreign  # the domain's owner decides who sends from it and its subdomains
    # SES would let this domain send as the other account's identities
    return repo.foreign_at_or_under(domain, account_id) if is_domain else None


def _check_tree(account_id: str, identity: str, domain: str, is_domain: bool) -> None:
    """409 ``SENDER_TAKEN`` when another account's claim is related to ``identity``'s domain."""
    if _foreign_claim(account_id, domain, is_domain):
        raise _taken(identity)


def _at_tree_version(domain: str, attempt: Callable[[int], T]) -> T:
    """``attempt(version)`` with the tree version read first, again while it raises ``TreeChanged``
    (a related registration landed between its checks and its write); 503 after 4 tries."""
    for _ in range(4):
        try:
            return attempt(repo.tree_version(domain))
        except repo.TreeChanged:
            continue
    raise ServiceUnavailable("Sender registrations are busy; retry shortly", headers={"Retry-After": "1"})


def register(account_id: str, body: dict) -> dict:
    from .models import SenderCreate

    req: SenderCreate = parse_model(SenderCreate, body)
    identity = req.identity
    cap = settings().max_senders
    if len(repo.list_for(account_id, limit=cap + 1)) >= cap:
        raise Conflict(f"An account can have at most {cap} senders", code="LIMIT_EXCEEDED")
    domain = domain_of(identity)
    now = clock.now_iso()
    record = {"id": ids.sortable_id().lower(), "account_id": account_id, "identity": identity,
              "type": "email" if req.email else "domain", "status": "pending", "dkim": None, "created_at": now,
              "updated_at": now, "verified_at": None}
    def attempt(version: int) -> None:
        _check_tree(account_id, identity, domain, is_domain=not req.email)
        repo.put(record, domain, version)

    try:
        _at_tree_version(domain, attempt)
    except repo.IdentityTaken:
        owner = repo.owners([identity]).get(identity) or {}
        if owner.get("account_id") == account_id:
            raise Conflict("This sender is already registered", code="SENDER_EXISTS",
                           details={"identity": identity, "id": owner.get("sender_id")}) from None
        raise Conflict("This sender is registered by another account", code="SENDER_TAKEN",
                       details={"identity": identity}) from None
    try:
        created = repo.ses_create(identity, account_id)
    except repo.IdentityTaken:
        repo.delete(record, domain)
        raise Conflict("This sender cannot be registered", code="SENDER_UNAVAILABLE",
                       details={"identity": identity}) from None
    except Exception:
        repo.delete(record, domain)  # no half-written state: the claim goes with the failed SES call
        raise
    fields = _observed(record, {**created, **(repo.ses_get(identity) or {})})
    repo.set_status(record, fields)
    return public({**record, **fields})


def list_for(account_id: str) -> list[dict]:
    return [public(r) for r in sorted(repo.list_for(account_id), key=lambda r: r["created_at"])]


def _get(account_id: str, sender_id: str) -> dict:
    rec = repo.get(account_id, sender_id)
    if rec is None:
        raise NotFound("Sender not found")
    return rec


def get(account_id: str, sender_id: str) -> dict:
    """The sender; while not verified, its status is refreshed from SES first."""
    rec = _get(account_id, sender_id)
    if rec["status"] != "verified":
        fields = _observed(rec, repo.ses_get(rec["identity"]))
        if fields["status"] != rec["status"] or fields["dkim"] != rec.get("dkim"):
            repo.set_status(rec, fields)
            rec = {**rec, **fields}
    return public(rec)


def delete(account_id: str, sender_id: str) -> None:
    rec = _get(account_id, sender_id)
    repo.ses_delete(rec["identity"])
    repo.delete(rec, domain_of(rec["identity"]))


def ensure(account_id: str, identity: str) -> dict:
    """Register ``identity`` for ``account_id`` unless it already owns it (the dev seed)."""
    owner = repo.owners([identity]).get(identity)
    if owner and owner.get("account_id") == account_id:
        return get(account_id, owner["sender_id"])
    key = "email" if "@" in identity else "domain"
    return register(account_id, {key: identity})


# ---------------------------------------------------------------- the tree backfill (operator tool)
def backfill_tree(owner: dict, *, dry_run: bool = False) -> dict:
    """Give the identity of ``owner`` (an owner item, registered before the domain tree existed) its
    tree item, unless registration would now refuse it. ``{"outcome": ...}``: ``present`` (its tree
    item is there), ``written`` (``would_write`` when ``dry_run``), or ``conflict`` with
    ``other_account_id``/``other_sender_id`` (another account's claim is related to the domain, or
    holds the identity's tree item): reported, nothing written, for the operator to resolve."""
    identity = repo.owner_identity(owner)
    if identity is None:
        raise ValueError("not an owner item")
    domain, account_id = domain_of(identity), owner["account_id"]

    def conflict(other: dict) -> dict:
        return {"outcome": "conflict", "other_account_id": other.get("account_id"),
                "other_sender_id": other.get("sender_id")}

    def attempt(version: int) -> dict:
        held = repo.tree_entry(domain, identity)
        if held:
            return {"outcome": "present"} if held.get("account_id") == account_id else conflict(held)
        other = _foreign_claim(account_id, domain, is_domain="@" not in identity)
        if other:
            return conflict(other)
        if dry_run:
            return {"outcome": "would_write"}
        try:
            repo.claim_tree(owner, identity, domain, version)
        except repo.IdentityTaken:  # its tree item landed meanwhile: read it again
            raise repo.TreeChanged(domain) from None
        return {"outcome": "written"}

    return _at_tree_version(domain, attempt)


# ---------------------------------------------------------------- the send-side check
def _candidates(from_email: str) -> list[str]:
    addr = from_email.strip().lower()
    return [addr, addr.rpartition("@")[2]]


def verified_for(account_id: str, from_email: str) -> bool:
    """Whether ``from_email`` is (at) a verified identity of the account (one BatchGetItem)."""
    if not from_email or "@" not in from_email:
        return False
    found = repo.owners(_candidates(from_email))
    return any(o.get("account_id") == account_id and o.get("status") == "verified" for o in found.values())


def require_verified(account_id: str, from_email: str, field: str = "from_email") -> None:
    """422 ``SENDER_NOT_VERIFIED`` unless the account may send as ``from_email``."""
    if verified_for(account_id, from_email):
        return
    raise ValidationFailed(
        f"{from_email} is not a verified sender of this account: register it (or its domain) with "
        "POST /senders and complete verification", code=NOT_VERIFIED,
        fields={field: "Not a verified sender identity of this account"})

