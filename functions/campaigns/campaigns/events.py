"""Outbound events (the agreed interface): ``emit(account_id, kind, data)``.

Delivery is asynchronous (SQS → webhook worker); see ``campaigns.webhooks.dispatch``.
"""
from __future__ import annotations

from typing import Any

from .webhooks import dispatch


def emit(account_id: str, kind: str, data: dict, **kw: Any) -> int:
    return dispatch.emit(account_id, kind, data, **kw)
