"""A cross-field rule of a request model, reported on the field it is about.

A ``ValueError`` raised by a ``model_validator`` is located at the model itself (``body`` at the top
level, ``audience`` for a nested model), while the spec keys validation details by field name.
Raising the ``ValidationError`` built here from a model validator keeps the field's location (and
pydantic prefixes the enclosing fields: ``audience.list_id``, ``attachments.0.filename``)."""
from __future__ import annotations

from pydantic import ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError


def field_error(model: str, field: str, message: str) -> ValidationError:
    """``raise field_error("SendEmail", "subject", "subject is required")`` from a model validator."""
    return ValidationError.from_exception_data(model, [InitErrorDetails(
        type=PydanticCustomError("value_error", message), loc=(field,), input=None)])
