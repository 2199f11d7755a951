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
    """Every business metric recorded (``lambdakit.observability.count`` without dimensions ends in
    Powertools ``Metrics.add_metric``), as (name, value, {}) in call order; nothing is flushed."""
    from aws_lambda_powertools import Metrics

    seen: list[tuple[str, float, dict]] = []

    def spy(self, name, unit, value, *args, **kwargs):
        seen.append((name, value, {}))

    monkeypatch.setattr(Metrics, "add_metric", spy)
    return seen


class MissingGlyphs(AssertionError):
    pass


class _RaiseOnMissingGlyphs:
    """A logging handler that turns fpdf2's missing-glyph warning into an error."""

    level = 0

    def handle(self, record):
        if "missing the following glyphs" in record.getMessage():
            raise MissingGlyphs(record.getMessage())
        return True


@pytest.fixture
def strict_glyphs():
    """fpdf2 only logs a warning when a font lacks a glyph (the text comes out blank): fail instead."""
    import logging

    log = logging.getLogger("fpdf.output")
    handler = logging.Handler()
    handler.handle = _RaiseOnMissingGlyphs().handle  # type: ignore[method-assign]
    log.addHandler(handler)
    yield MissingGlyphs
    log.removeHandler(handler)
