"""Email address validation and normalisation (shared by contacts, imports and sending)."""
from __future__ import annotations


class InvalidEmail(ValueError):
    pass


def normalise_email(value: object) -> str:
    """A syntactically valid address, trimmed, with the domain lower-cased and IDNA-normalised.

    Raises ``InvalidEmail`` with a human message. No DNS lookups.
    """
    if not isinstance(value, str) or not value.strip():
        raise InvalidEmail("A valid email address is required")
    raw = value.strip()
    if len(raw) > 254:
        raise InvalidEmail("Email address is too long")
    from email_validator import EmailNotValidError, validate_email

    try:
        info = validate_email(raw, check_deliverability=False)
    except EmailNotValidError as exc:
        raise InvalidEmail(f"Invalid email address: {exc}") from None
    return info.normalized


def email_key(email: str) -> str:
    """The case-insensitive identity of an address (uniqueness per account)."""
    return email.strip().lower()
