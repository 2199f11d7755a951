"""The one phone rule of the service (issue #19 item 2): every phone it stores (lead, registration,
profile, staff-created or staff-edited user, lead convert) is a callable number in E.164.

``normalise`` accepts digits with an optional ``+``, spaces, dashes, dots and brackets, parses them
with libphonenumber (``phonenumberslite``, imported lazily: cold start) in ``DEFAULT_REGION`` (India)
when there is no country code, and requires the number to be valid for its country (length and
prefix): ``"098765 43210"`` → ``"+919876543210"``. Anything else is ``ValueError(INVALID)``; pydantic
reports it under the field's name, ``check`` as ``ValidationFailed`` naming ``phone``, so every route
answers the same 400 ``phone: must be a valid phone number``.

``Phone`` (required) and ``OptionalPhone`` (``None``, ``""`` or blank → ``None``: absent / cleared)
are the pydantic field types of the request models.
"""
from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from lambdakit.errors import ValidationFailed

DEFAULT_REGION = "IN"
#: What a request may send (before normalising); E.164 itself is at most 16 characters.
MAX_INPUT = 30
INVALID = "must be a valid phone number"
REQUIRED = "a phone number is required"
_SHAPE = re.compile(r"^\+?[0-9][0-9 ()\-.]{5,22}[0-9]$")
DESCRIPTION = ("Phone number: digits with optional +, spaces, dashes, dots and brackets; without a country code "
               "it is read as Indian (+91). Stored in E.164, e.g. +919876543210.")


def normalise(value: object, region: str = DEFAULT_REGION) -> str:
    """``value`` as E.164, else ``ValueError`` (``INVALID``; ``REQUIRED`` when missing or blank)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ValueError(REQUIRED)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(INVALID)
    s = " ".join(str(value).split())
    if len(s) > MAX_INPUT or not _SHAPE.match(s):
        raise ValueError(INVALID)
    import phonenumbers

    try:
        number = phonenumbers.parse(s, region)
    except phonenumbers.NumberParseException:
        raise ValueError(INVALID) from None
    if not phonenumbers.is_valid_number(number):
        raise ValueError(INVALID)
    return str(phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164))


def optional(value: object) -> str | None:
    """``None`` for a missing or blank value (the field is absent or cleared), else ``normalise``."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return normalise(value)


def check(value: object, *, required: bool = True, field: str = "phone") -> str | None:
    """``normalise`` for service code: ``ValidationFailed`` naming ``field`` (400 ``phone: ...``)."""
    try:
        return normalise(value) if required else optional(value)
    except ValueError as exc:
        raise ValidationFailed("Request validation failed", fields={field: str(exc)}) from None


def search_digits(q: str) -> str | None:
    """The digits of an admin search that looks like (part of) a phone number, to match the stored E.164
    whatever spacing the admin typed (``"98765 43210"`` finds ``+919876543210``)."""
    digits = re.sub(r"[^0-9]", "", q)
    return digits if len(digits) >= 4 and re.fullmatch(r"[0-9 ()+\-.]+", q.strip()) else None


def _json_schema(required: bool) -> dict[str, Any]:
    return {"description": DESCRIPTION, "maxLength": MAX_INPUT, **({"minLength": 1} if required else {})}


#: A required phone (normalised to E.164).
Phone = Annotated[str, BeforeValidator(normalise), Field(json_schema_extra=_json_schema(True))]
#: An optional phone: ``None``/``""`` → ``None`` (absent, or cleared on update), else E.164.
OptionalPhone = Annotated[str | None, BeforeValidator(optional), Field(json_schema_extra=_json_schema(False))]
