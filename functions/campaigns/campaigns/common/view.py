"""The base of the service's response models (issue 35).

A route's answer is dumped through its response model (``lambdakit.responses``): the model states
what leaves the service (undeclared keys are dropped) and its types (a wrong type is a 500). The
request rules ``lambdakit.model.Model`` adds (single-line strings, no control characters, numbers
DynamoDB can store) are for what comes in; a view shows what was stored, also a value stored
before a rule existed (a campaign's sender name with a line break, issue 17, is refused when it is
sent, never when it is shown), so ``View`` does not apply them again.
"""
from __future__ import annotations

from typing import Any

from pydantic import model_validator

from lambdakit.model import Model


class View(Model):
    """A response model: validated for shape and types only (see the module docstring)."""

    @model_validator(mode="after")
    def _lambdakit_storable_values(self) -> Any:  # replaces Model's request checks (same name)
        return self
