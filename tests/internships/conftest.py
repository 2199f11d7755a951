"""Fixtures shared by every internship test (owned by the JOURNEY slice).

* ``intern_users`` — create signed-in users through the real account code:
  ``intern_users.student(**profile)`` and ``intern_users.staff(role)`` (admin, super_admin,
  project_admin, reviewer) return ``User(id, email, password, role, headers)`` where ``headers``
  carry a real ``Authorization: Bearer`` access token.
* ``intern_seed`` — runs ``internships.devseed.seed()`` (super admin, cron secret, payment keys)
  and returns its result.

scrypt runs at a low cost in tests (``INTERNSHIPS_SCRYPT_N``); production keeps 2**17.
"""
from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field

import pytest

os.environ["INTERNSHIPS_SCRYPT_N"] = "1024"

_seq = itertools.count(1)


@dataclass
class User:
    id: str
    email: str
    password: str
    role: str
    headers: dict = field(default_factory=dict)
    name: str = ""


class UserFactory:
    password = "Passw0rd!x"

    def __init__(self, app) -> None:
        self.app = app

    def _make(self, role: str, **profile) -> User:
        from internships.accounts import service

        n = next(_seq)
        email = profile.pop("email", None) or f"{role.replace('_', '-')}{n}@example.com"
        name = profile.pop("name", None) or f"{role.title()} {n}"
        phone = profile.pop("phone", "+91 98765 43210")
        password = profile.pop("password", self.password)
        user = service.create_user(email=email, password=password, name=name, role=role, phone=phone, **profile)
        tok = service.issue_tokens(user)
        return User(user["id"], user["email"], password, role, {"Authorization": f"Bearer {tok.access_token}"},
                    name)

    def student(self, **profile) -> User:
        return self._make("student", **profile)

    def staff(self, role: str = "admin", **profile) -> User:
        assert role in ("admin", "super_admin", "project_admin", "reviewer"), role
        return self._make(role, **profile)


@pytest.fixture
def intern_users(internships_app) -> UserFactory:
    return UserFactory(internships_app)


@pytest.fixture
def intern_seed(internships_app) -> dict:
    from internships import devseed

    return devseed.seed()


