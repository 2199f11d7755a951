"""Account settings: read, update, and what the sending pipeline prints from them."""
from __future__ import annotations

from . import repository as repo

#: shown on an account (and on every campaign's detail) while the postal address is empty
NO_POSTAL_ADDRESS = ("postal_address_missing: the account has no postal address; marketing mail is sent with "
                     "an unsubscribe link but without the postal address CAN-SPAM requires (PUT /account)")


def view(account_id: str) -> dict:
    acct = repo.get(account_id)
    return {**acct, "compliance_warnings": warnings(acct)}


def warnings(acct: dict) -> list[str]:
    return [] if acct.get("postal_address") else [NO_POSTAL_ADDRESS]


def update(account_id: str, body: dict) -> dict:
    from lambdakit.http import parse_model

    from .models import AccountUpdate

    upd = parse_model(AccountUpdate, body)
    acct = repo.set_postal_address(account_id, upd.postal_address)
    return {**acct, "compliance_warnings": warnings(acct)}


def postal_address(account_id: str) -> str:
    return repo.get(account_id)["postal_address"]
