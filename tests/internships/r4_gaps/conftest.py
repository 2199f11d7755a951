"""Fixtures of the round-4 internship gaps (issue #19 items 2-4, issue #18 internship metrics)."""
from __future__ import annotations

import pytest


@pytest.fixture
def gaps(internships_app, monkeypatch):
    """The internship service with a known cron secret and the clock at real time."""
    from lambdakit import clock
    from lambdakit import settings as ks

    monkeypatch.setenv("INTERNSHIPS_CRON_SECRET", "cron-test-secret")
    ks.reset_settings()
    clock.set_offset(0)
    yield internships_app
    clock.set_offset(0)
    ks.reset_settings()


@pytest.fixture
def metrics(monkeypatch):
    """Every business metric counted, as (name, value, dimensions) in call order."""
    from lambdakit import observability

    seen: list[tuple[str, float, dict]] = []
    real = observability.count

    def spy(name, value=1, **dims):
        seen.append((name, value, dims))
        return real(name, value, **dims)

    monkeypatch.setattr(observability, "count", spy)
    return seen
