"""Cron route bodies (OpenAPI)."""
from __future__ import annotations

from pydantic import ConfigDict

from lambdakit.model import Model


class CronResult(Model):
    """``{ok, sent, skipped}`` plus job-specific counters (failed, retried...)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    ok: bool
    sent: int
    skipped: int
