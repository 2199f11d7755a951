"""The base of the service's response models (issue 35).

A route's answer is dumped through its response model (``lambdakit.responses``): the model states
what leaves the service (undeclared keys are dropped) and its types (a wrong type is a 500). The
request rules ``lambdakit.model.Model`` adds (single-line strings, no control characters, numbers
DynamoDB can store) are for what comes in: ``lambdakit.model.dump`` validates with
``RESPONSE_CONTEXT``, which skips them, so a view shows what was stored, also a value stored before
a rule existed (a campaign's sender name with a line break, issue 17, is refused when it is sent,
never when it is shown). Every service's response models get the same treatment.
"""
from __future__ import annotations

from lambdakit.model import Model


class View(Model):
    """A response model (see the module docstring)."""
