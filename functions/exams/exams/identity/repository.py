"""Profile reads for authentication (profiles are written by ``exams.users``)."""
from __future__ import annotations

from lambdakit.ddb import Table

from ..settings import settings

PROFILE_SK = "PROFILE"


def profile_pk(user_id: str) -> str:
    return f"USER#{user_id}"


def table() -> Table:
    return Table(settings().table_name)


def get_profile(user_id: str, *, consistent: bool = False) -> dict | None:
    return table().get(profile_pk(user_id), PROFILE_SK, consistent=consistent)


def profile_key(user_id: str) -> tuple[str, str]:
    return profile_pk(user_id), PROFILE_SK


def get_profile_with(user_id: str, others: list[tuple[str, str]], *, consistent: bool = False
                     ) -> tuple[dict | None, dict[tuple[str, str], dict]]:
    """The profile and the items ``others`` (``(pk, sk)`` keys) in one BatchGetItem, eventually
    consistent like ``get_profile`` (unless ``consistent``): ``(profile or None, {key: item found})``."""
    key = profile_key(user_id)
    found = table().get_many([key, *others], consistent=consistent)
    return found.pop(key, None), found
