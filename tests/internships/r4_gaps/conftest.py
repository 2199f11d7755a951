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


@pytest.fixture
def strict_glyphs(strict_pdf_glyphs):
    """fpdf2 only logs a warning when a font lacks a glyph (the text comes out blank): in tests it
    is an error, suite-wide (``tests/conftest.py::strict_pdf_glyphs``); this names the error class."""
    return strict_pdf_glyphs
