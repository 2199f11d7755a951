"""Typed settings: environment variables parsed once into a pydantic model.

Each service subclasses ``ServiceSettings`` with its own ``env_prefix`` (for
example ``CAMPAIGNS_``), so the three services can share one process locally
without their variables colliding. ``get_settings(Model)`` caches one instance.

What the services have in common lives here: the base fields (stage, public base URL, log level,
the service's table), the ``FilesBucket`` mixin, and the field shapes they repeat under their own
names (``QueueUrl``, ``BucketName``, ``SecretArn``, ``RateLimit``, ``PresignTtlSeconds``,
``EmailProvider``) with the defaults the specs share. A service keeps its prefix, its own fields
and the defaults its spec sets; a variable is always ``<PREFIX><FIELD NAME>``.

Cold start: this is a small environment loader on plain pydantic models (with
``defer_build``), not pydantic-settings, whose import alone costs about as much as
boto3's. Semantics kept: ``env_prefix`` + field name, case-insensitive; values are
validated/coerced by pydantic; complex fields (list, dict, set, models) are read as
JSON; unknown variables are ignored; explicit keyword arguments win.

Stage (issue 17): ``<PREFIX>STAGE`` has no default. It must be ``local`` (the local runtime
and the test harness set it through the templates' ``Stage`` parameter) or one of
``DEPLOYED_STAGES``; a missing or unknown stage is a validation error, and
``require_stage(Model)`` - called when each service's ``http`` module is imported, which every
function's handler module does - stops the function at init with one clear log line. Only an
explicit ``local`` relaxes anything (loopback webhook receivers, http/file key-set URLs,
cookies without ``Secure``).
"""
from __future__ import annotations

import json
import os
import sys
from functools import lru_cache
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

LOCAL_STAGE = "local"
#: The stages a deployed function may run under (the templates' ``Stage`` parameter values).
DEPLOYED_STAGES = frozenset({"dev", "test", "staging", "prod"})
ALLOWED_STAGES = DEPLOYED_STAGES | {LOCAL_STAGE}


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


# ---------------------------------------------------------------- shared field shapes
#: An SQS queue URL (the template passes the queue's reference); empty where a function does not use it.
QueueUrl = Annotated[str, Field(description="SQS queue URL from the template")]
#: An S3 bucket name (the template passes the bucket's reference).
BucketName = Annotated[str, Field(description="S3 bucket name from the template")]
#: A Secrets Manager secret ARN. The plain field of the same name without ``_arn`` (when the
#: service has one) holds the value for local development and wins when set.
SecretArn = Annotated[str, Field(description="Secrets Manager ARN; the plain twin overrides it locally")]
#: ``"<count>/<window>"`` as ``lambdakit.ratelimit.parse_rate`` reads it: ``"100/minute"``, ``"1000/15minutes"``.
RateLimit = Annotated[str, Field(description='"<count>/<window>", e.g. "100/minute" or "1000/15minutes"')]
#: Lifetime of a presigned S3 URL (download or upload link), in seconds.
PresignTtlSeconds = Annotated[int, Field(description="Lifetime of a presigned S3 URL, seconds")]
#: Outbound email provider: ``ses``, ``sandbox`` (records each message, sends nothing), or empty
#: for the stage default (``effective_email_provider``).
EmailProvider = Annotated[str, Field(description='"ses", "sandbox", or empty for the stage default')]

#: The specs' lifetime of a presigned link: 15 minutes.
PRESIGNED_URL_TTL_SECONDS = 900
#: Default sender address of outbound mail when nothing else names one.
NO_REPLY_SENDER = "no-reply@example.com"


def effective_email_provider(configured: str, *, local: bool) -> str:
    """The provider an email-provider setting names; empty means ``sandbox`` under Stage=local and
    SES everywhere else."""
    return configured or ("sandbox" if local else "ses")


class ServiceSettings(BaseModel):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", frozen=True)

    #: ``local`` under ``make dev`` and tests (set explicitly), else one of ``DEPLOYED_STAGES``.
    #: No default: a missing stage must not fall back to the relaxed local behaviour.
    stage: str
    #: Public base URL of the service's API (tracking links, redirects, verify URLs).
    public_base_url: str = "http://127.0.0.1"
    log_level: str = "INFO"
    #: The service's DynamoDB table (single-table design; the template passes its name). Each
    #: service gives its stack's table as the default.
    table_name: str
    #: Secrets Manager ARN of the key pagination cursors are signed with (``lambdakit.cursors``; the
    #: template's ``CursorKeySecret``); ``cursor_key`` (a plain value) overrides it locally.
    cursor_key_arn: SecretArn = ""
    cursor_key: str = ""

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

    @field_validator("stage")
    @classmethod
    def _known_stage(cls, v: str) -> str:
        if v not in ALLOWED_STAGES:
            raise ValueError(f"unknown stage {v!r}; allowed: {', '.join(sorted(ALLOWED_STAGES))}")
        return v

    #: ``off`` lifts the per-address registration and login rate limits (``make dev RATE_LIMITS=off``:
    #: everyone is 127.0.0.1 locally). Honoured only under Stage=local (``rate_limits_lifted``).
    local_rate_limits: str = "on"

    @property
    def is_local(self) -> bool:
        return self.stage == LOCAL_STAGE

    @property
    def rate_limits_lifted(self) -> bool:
        """True only on the local stage with ``<PREFIX>LOCAL_RATE_LIMITS=off``; any other stage
        keeps every limit whatever the variable says."""
        return self.is_local and self.local_rate_limits.strip().lower() == "off"


class FilesBucket(BaseModel):
    """Mixin of a service with one bucket for uploads and generated files (``FilesBucket`` in its template)."""

    model_config = ConfigDict(defer_build=True)  # a mixin, never validated on its own: not built at import

    files_bucket: BucketName = ""


S = TypeVar("S", bound=ServiceSettings)


@lru_cache(maxsize=None)
def get_settings(model: type[S]) -> S:
    return model.model_validate({})  # every field from the environment (or its default)


def _env_prefix(model: type[ServiceSettings]) -> str:
    extra = model.model_config.get("json_schema_extra")
    return extra.get("x-env-prefix", "") if isinstance(extra, dict) else ""


def stage_problem(model: type[ServiceSettings]) -> str | None:
    """Why ``model``'s stage variable is unusable (missing or unknown), or ``None``."""
    name = f"{_env_prefix(model)}STAGE".upper()
    value = next((v for k, v in os.environ.items() if k.upper() == name), None)
    if value is None or not value.strip():
        return (f"{name} is not set: refusing to start (set the template's Stage parameter; "
                f"allowed: {', '.join(sorted(ALLOWED_STAGES))}; only an explicit 'local' relaxes checks)")
    if value not in ALLOWED_STAGES:
        return f"{name}={value!r} is not a known stage: refusing to start (allowed: {', '.join(sorted(ALLOWED_STAGES))})"
    return None


class StageNotConfigured(RuntimeError):
    pass


def require_stage(model: type[ServiceSettings]) -> None:
    """Stop the function at init when its stage is missing or unknown: one clear log line
    (stderr, which Lambda sends to CloudWatch) and ``StageNotConfigured``."""
    problem = stage_problem(model)
    if problem:
        print(json.dumps({"level": "CRITICAL", "logger": "lambdakit.settings", "message": problem}),
              file=sys.stderr, flush=True)
        raise StageNotConfigured(problem)


def reset_settings() -> None:
    """Forget parsed settings (tests that change the environment)."""
    get_settings.cache_clear()

