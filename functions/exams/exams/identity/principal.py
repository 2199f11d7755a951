"""The authenticated caller, as the domain layer sees it."""
from __future__ import annotations

from dataclasses import dataclass

SUPER_ADMIN = "super_admin"
CLIENT_ADMIN = "client_admin"
STUDENT = "student"
ROLES = (SUPER_ADMIN, CLIENT_ADMIN, STUDENT)


@dataclass(frozen=True)
class Principal:
    user_id: str
    role: str  # "super_admin" | "client_admin" | "student"
    client_id: str | None
    email: str
    name: str

    @property
    def is_super_admin(self) -> bool:
        return self.role == SUPER_ADMIN

    @property
    def is_client_admin(self) -> bool:
        return self.role == CLIENT_ADMIN

    @property
    def is_student(self) -> bool:
        return self.role == STUDENT


@dataclass(frozen=True)
class Identity:
    """A verified token: who the identity provider says the caller is (profile or not)."""

    user_id: str
    email: str | None
    auth_time: int | None
    issued_at: int | None
    claims: dict
