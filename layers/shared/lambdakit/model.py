"""The services' pydantic base model (issue 21, cold first request).

``Model`` is ``pydantic.BaseModel`` with ``defer_build=True``: a model's validator and serializer
are built the first time it is used, not when its module is imported. A function imports every
model of its endpoint group, but one request uses one or two of them; building the others at
import would be paid by every cold start (and an ``EmailStr`` field would import
``email_validator``). Subclasses keep their own ``model_config``; pydantic merges it with this one.
"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Model(BaseModel):
    model_config = ConfigDict(defer_build=True)
