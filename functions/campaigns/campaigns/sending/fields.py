"""Field types shared by the sending and campaign request models."""
from __future__ import annotations

from typing import Annotated, Literal, Optional

from pydantic import AfterValidator, ConfigDict, Field

from lambdakit.model import Model

from ..common.emails import InvalidEmail, normalise_email
from ..common.headers import HeaderText


def _email(v: str) -> str:
    try:
        return normalise_email(v)
    except InvalidEmail as exc:
        raise ValueError(str(exc)) from None


Email = Annotated[str, AfterValidator(_email)]


class ProviderConfig(Model):
    """The spec's non-delivering-mode object, also used to pick SES explicitly."""
    model_config = ConfigDict(extra="ignore")
    provider: Literal["sandbox", "ses"] = "sandbox"
    from_email: Optional[Email] = None
    from_name: Optional[HeaderText] = Field(default=None, max_length=200)


class TrackingOptions(Model):
    model_config = ConfigDict(extra="ignore")
    track_opens: bool = True
    track_clicks: bool = True
