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
