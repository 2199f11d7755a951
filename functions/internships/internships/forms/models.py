"""Request bodies of the public forms."""
from __future__ import annotations

from pydantic import ConfigDict, Field, field_validator

from lambdakit.model import Model

from ..accounts import phones


def normalise_email(value: str) -> str:
    from email_validator import EmailNotValidError, validate_email

    if not isinstance(value, str) or not value.strip():
        raise ValueError("A valid email is required")
    try:
        return validate_email(value.strip(), check_deliverability=False).normalized.lower()
    except EmailNotValidError:
        raise ValueError("A valid email is required") from None


def _text(v: object, name: str, max_len: int) -> str:
    """A required single-line text field: whitespace collapsed, at most ``max_len`` characters."""
    if v is None or (isinstance(v, str) and not v.strip()):
        raise ValueError(f"{name} is required")
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise ValueError(f"{name} must be a string")
    s = " ".join(str(v).split())
    if len(s) > max_len:
        raise ValueError(f"{name} must be at most {max_len} characters")
    return s


class LeadIn(Model):
    """A counselling lead: name, domain, duration and phone are required (a missing or malformed one is
    a 400 naming it); phone is stored in E.164, a number without country code read as Indian."""
    model_config = ConfigDict(extra="ignore")
    name: str
    domain: str | int
    duration: str | int
    phone: str | int = Field(description=phones.DESCRIPTION)
    email: str | None = None

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, v):
        return _text(v, "name", 100)

    @field_validator("domain", mode="before")
    @classmethod
    def _domain(cls, v):
        return _text(v, "domain", 100)

    @field_validator("duration", mode="before")
    @classmethod
    def _duration(cls, v):
        return _text(v, "duration", 40)

    @field_validator("phone", mode="before")
    @classmethod
    def _phone(cls, v):
        return phones.normalise(v)  # the service's one phone rule

    @field_validator("email", mode="before")
    @classmethod
    def _email(cls, v):
        return None if v in (None, "") else normalise_email(v)


class NewsletterIn(Model):
    model_config = ConfigDict(extra="ignore")
    email: str = Field(default=None, validate_default=True)

    @field_validator("email", mode="before")
    @classmethod
    def _email(cls, v):
        return normalise_email(v)


class ContactIn(Model):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(default=None, validate_default=True)
    email: str = Field(default=None, validate_default=True)
    subject: str = Field(default=None, validate_default=True)
    message: str = Field(default=None, validate_default=True)

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, v):
        return _text(v, "name", 100)

    @field_validator("email", mode="before")
    @classmethod
    def _email(cls, v):
        return normalise_email(v)

    @field_validator("subject", mode="before")
    @classmethod
    def _subject(cls, v):
        return _text(v, "subject", 200)

    @field_validator("message", mode="before")
    @classmethod
    def _message(cls, v):
        if v is None or not isinstance(v, str) or not v.strip():
            raise ValueError("message is required")
        if len(v) > 5000:
            raise ValueError("message must be at most 5000 characters")
        return v.strip()


class VisitIn(Model):
    model_config = ConfigDict(extra="ignore")
    visitorId: str | None = Field(default=None, max_length=100,
                                  description="Ignored (issue 32): the visitor is the service-issued visitor-id cookie")
    path: str | None = Field(default=None, max_length=300)


class FormResult(Model):
    success: bool
    message: str | None = None
    alreadySubscribed: bool | None = None


class VisitResult(Model):
    success: bool
    counted: bool
