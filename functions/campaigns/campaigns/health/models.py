"""Response bodies of /health and /api (documentation only)."""
from __future__ import annotations

from pydantic import Field

from ..common.view import View


class HealthIssue(View):
    code: str
    message: str


class Health(View):
    status: str = Field(description="healthy, or degraded when issues is not empty")
    version: str
    timestamp: str
    issues: list[HealthIssue] = Field(default_factory=list, description="What does not work now, e.g. "
                                      "BASE_URL_NOT_SET: sends are refused until the public base URL is set")


class KeyCheck(View):
    key_id: str
    name: str
    scopes: list[str]
    plan: str
    role: str | None = None
