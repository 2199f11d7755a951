"""Identity-provider accounts (Cognito) and profile items.

Profile: pk=USER#<uid> sk=PROFILE, gsi1 CLIENT#<cid>#PROFILES / <created_at>#<uid> (tenant list),
gsi2 PROFILES / <created_at>#<uid> (all profiles).
"""
from __future__ import annotations

from lambdakit import aws
from lambdakit.conditions import Attr
from lambdakit.ddb import Table
from lambdakit.errors import ApiError, ConditionFailed, ValidationFailed
from lambdakit.pagination import PageRequest

from ..identity.repository import PROFILE_SK, profile_pk
from ..settings import settings
from ..store import fetch_page


def table() -> Table:
    return Table(settings().table_name)


def _idp():
    return aws.client("cognito-idp")


# ---------------------------------------------------------------- identity provider
def create_identity(email: str, name: str) -> str:
    """AdminCreateUser (no invitation message); returns the identity's user id (``sub``)."""
    idp = _idp()
    try:
        resp = idp.admin_create_user(
            UserPoolId=settings().user_pool_id, Username=email, MessageAction="SUPPRESS",
            UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"},
                            {"Name": "name", "Value": name}],
        )
    except idp.exceptions.UsernameExistsException:
        raise ApiError("A user with this email already exists", code="ALREADY_EXISTS", status=409,
                       details={"field": "email"}) from None
    except idp.exceptions.InvalidParameterException as exc:
        raise ValidationFailed("Invalid user attributes", fields={"email": str(exc.response["Error"]["Message"])}) from None
    user = resp["User"]
    attrs = {a["Name"]: a["Value"] for a in user.get("Attributes", [])}
    return attrs.get("sub") or user["Username"]


def set_password(username: str, password: str) -> None:
    idp = _idp()
    try:
        idp.admin_set_user_password(UserPoolId=settings().user_pool_id, Username=username, Password=password,
                                    Permanent=True)
    except idp.exceptions.InvalidPasswordException:
        raise ValidationFailed("Password does not meet the password policy",
                               fields={"password": "Does not meet the password policy"}) from None


def delete_identity(username: str) -> None:
    idp = _idp()
    try:
        idp.admin_delete_user(UserPoolId=settings().user_pool_id, Username=username)
    except idp.exceptions.UserNotFoundException:
        pass


# ---------------------------------------------------------------- profiles
def profile_item(p: dict) -> dict:
    key = f"{p['created_at']}#{p['id']}"
    item = {**p, "pk": profile_pk(p["id"]), "sk": PROFILE_SK, "gsi2pk": "PROFILES", "gsi2sk": key}
    if p.get("client_id"):
        item.update(gsi1pk=f"CLIENT#{p['client_id']}#PROFILES", gsi1sk=key)
    return item


def put_profile(p: dict, counter_ops: list[dict]) -> None:
    try:
        table().transact([{"put": profile_item(p), "condition": "attribute_not_exists(pk)"}, *counter_ops])
    except ConditionFailed:
        raise ApiError("A profile for this user already exists", code="ALREADY_EXISTS", status=409) from None


def get_profile(uid: str) -> dict | None:
    return table().get(profile_pk(uid), PROFILE_SK, consistent=True)


def replace_profile(old: dict, new: dict, counter_ops: list[dict]) -> None:
    """Write ``new`` if the stored profile is still ``old`` (optimistic, by updated_at)."""
    cond = "#u = :u" if old.get("updated_at") else "attribute_not_exists(#u)"
    values = {":u": old["updated_at"]} if old.get("updated_at") else None
    item = profile_item(new)
    try:
        table().transact([{"put": item, "condition": f"attribute_exists(pk) AND {cond}", "names": {"#u": "updated_at"},
                           **({"values": values} if values else {})}, *counter_ops])
    except ConditionFailed:
        raise ApiError("The profile was changed concurrently; retry", code="CONFLICT", status=409) from None


def list_profiles(client_id: str | None, req: PageRequest, role: str | None) -> list[dict]:
    flt = Attr("role").eq(role) if role else None
    if client_id:
        return fetch_page(table(), f"CLIENT#{client_id}#PROFILES", req, index="gsi1", forward=False, filter=flt)
    return fetch_page(table(), "PROFILES", req, index="gsi2", forward=False, filter=flt)


def identity_id(email: str) -> str:
    """The user id (``sub``) of an existing identity account."""
    resp = _idp().admin_get_user(UserPoolId=settings().user_pool_id, Username=email)
    attrs = {a["Name"]: a["Value"] for a in resp.get("UserAttributes", [])}
    return attrs.get("sub") or resp["Username"]
