"""Fixtures of the round-12 security tests (two tenants, as in round 4)."""
from tests.exams.r4_security.conftest import two_tenants  # noqa: F401 - the fixture, by name
