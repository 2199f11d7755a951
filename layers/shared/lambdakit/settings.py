"""Typed settings: environment variables parsed once into a pydantic model.

Each service subclasses ``ServiceSettings`` with its own ``env_prefix`` (for
example ``CAMPAIGNS_``), so the three services can share one process locally
without their variables colliding. ``get_settings(Model)`` caches one instance.

Cold start: this is a small environment loader on plain pydantic models (with
``defer_build``), not pydantic-settings, whose import alone costs about as much as
boto3's. Semantics kept: ``env_prefix`` + field name, case-insensitive; values are
validated/coerced by pydantic; complex fields (list, dict, set, models) are read as
JSON; unknown variables are ignored; explicit keyword arguments win.
"""
from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, model_validator


def SettingsConfigDict(**kw: Any) -> Any:  # noqa: N802 - same name/shape as pydantic-settings' helper
    """``model_config`` of a settings class: pydantic config plus ``env_prefix``."""
    prefix = kw.pop("env_prefix", "")
    kw.pop("env_file", None)
    kw.pop("case_sensitive", None)
    kw.setdefault("defer_build", True)
    cfg = ConfigDict(**kw)  # type: ignore[typeddict-item]
    cfg["json_schema_extra"] = {"x-env-prefix": prefix}  # carried with the config, read by _from_env
    return cfg


def _is_complex(annotation: Any) -> bool:
    origin = getattr(annotation, "__origin__", None)
    if origin in (list, dict, set, tuple, frozenset):
        return True
    return isinstance(annotation, type) and issubclass(annotation, (BaseModel, list, dict, set, tuple))


class ServiceSettings(BaseModel):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", frozen=True)

    #: ``local`` under ``make dev`` and tests; anything else is a deployed stage.
    stage: str = "local"
    #: Public base URL of the service's API (tracking links, redirects, verify URLs).
    public_base_url: str = "http://127.0.0.1"
    log_level: str = "INFO"

    @model_validator(mode="before")
    @classmethod
    def _from_env(cls, data: Any) -> Any:
        extra = cls.model_config.get("json_schema_extra")
        prefix = (extra.get("x-env-prefix", "") if isinstance(extra, dict) else "").lower()
        env = {k.lower(): v for k, v in os.environ.items()}
        out: dict[str, Any] = {}
        for name, f in cls.model_fields.items():
            key = f"{prefix}{(f.alias or name)}".lower()
            if key in env:
                raw = env[key]
                if _is_complex(f.annotation):
                    try:
                        raw = json.loads(raw)
                    except ValueError:
                        pass
                out[name] = raw
        if isinstance(data, dict):
            out.update(data)
        return out

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

