"""Event emission entry point (owned by the webhooks slice; this is the agreed interface)."""
from __future__ import annotations
from typing import Any

def emit(account_id: str, kind: str, data: dict[str, Any]) -> None:
    """Emit a webhook event of `kind` with `data` for the account. Fan-out happens in the webhooks slice."""
    from .webhooks.dispatch import emit as _emit  # implemented by the webhooks slice
    _emit(account_id, kind, data)
