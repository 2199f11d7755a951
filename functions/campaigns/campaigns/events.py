"""Outbound events (the agreed interface): ``emit(account_id, kind, data)``.

Delivery is asynchronous (SQS → webhook worker); see ``campaigns.webhooks.dispatch``.
"""
from __future__ import annotations

from typing import Any


def emit(account_id: str, kind: str, data: dict, **kw: Any) -> int:
    from .webhooks.dispatch import emit as _emit

    return _emit(account_id, kind, data, **kw)
