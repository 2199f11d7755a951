"""Counter items (``pk="COUNTERS"``, ``sk=<name>``, ``count``; payments also ``amount``) as transaction
operations, so totals change in the same transaction as the data they count."""
from __future__ import annotations


def op(name: str, count: int = 1, **extra: float) -> dict:
    return {"update": ("COUNTERS", name), "add": {"count": count, **extra}}


def enrollment_status_ops(domain_id: str, old: str | None, new: str) -> list[dict]:
    ops: list[dict] = []
    if old:
        ops += [op(f"enrollments#status#{old}", -1), op(f"enrollments#domain#{domain_id}#status#{old}", -1)]
    ops += [op(f"enrollments#status#{new}", 1), op(f"enrollments#domain#{domain_id}#status#{new}", 1)]
    return ops


def milestone_status_ops(old: str | None, new: str, n: int = 1) -> list[dict]:
    ops: list[dict] = []
    if old == new:
        return ops
    if old:
        ops.append(op(f"milestones#{old}", -n))
    ops.append(op(f"milestones#{new}", n))
    return ops
