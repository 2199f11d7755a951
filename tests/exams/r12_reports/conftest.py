"""Fixtures of the round-12 report tests: the delivery slice's tenant."""
from __future__ import annotations

from tests.exams.delivery.conftest import tenant  # noqa: F401 - the fixture, re-exported
