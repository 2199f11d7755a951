"""Admin activity log (contract shared by every internship slice).

``record(admin_id, action_type, entity_type, entity_id, before=..., after=...)``
writes one immutable log entry and bumps the counters the admin list reads its
totals from, in one DynamoDB transaction (the entry and its counters are never
half-written). Every admin mutation in every slice calls it after its own write
succeeded. ``entry_ops(...)`` returns the same writes as transaction operations
for callers that want the log entry inside their own ``Table.transact``.

Secrets in ``before``/``after`` (password hashes, tokens, secrets) are redacted
and each snapshot is capped in size; see ``sanitize``.
"""
from __future__ import annotations

from .service import entry_ops, record, sanitize  # noqa: F401

__all__ = ["record", "entry_ops", "sanitize"]
