"""Typed settings: environment variables parsed once into a pydantic model.

Each service subclasses ``ServiceSettings`` with its own ``env_prefix`` (for
example ``CAMPAIGNS_``), so the three services can share one process locally
without their variables colliding. ``get_settings(Model)`` caches one instance.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TypeVar

from pydantic_settings import BaseSettings, SettingsConfigDict  # noqa: F401 (re-exported)


class ServiceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", frozen=True)

    #: ``local`` under ``make dev`` and tests; anything else is a deployed stage.
    stage: str = "local"
    #: Public base URL of the service's API (tracking links, redirects, verify URLs).
    public_base_url: str = "http://127.0.0.1"
    log_level: str = "INFO"

    @property
    def is_local(self) -> bool:
        return self.stage == "local"


S = TypeVar("S", bound=ServiceSettings)


@lru_cache(maxsize=None)
def get_settings(model: type[S]) -> S:
    return model()


def reset_settings() -> None:
    """Forget parsed settings (tests that change the environment)."""
    get_settings.cache_clear()
