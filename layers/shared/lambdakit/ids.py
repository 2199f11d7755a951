"""Identifiers. ``new_id`` is a UUID4; ``sortable_id`` sorts by creation time."""
from __future__ import annotations

import os
import secrets
import uuid

from . import clock

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_id() -> str:
    return str(uuid.uuid4())


def sortable_id() -> str:
    """A ULID: 48-bit millisecond time + 80 random bits, Crockford base32, 26 chars."""
    ms = int(clock.now_ts() * 1000)
    value = (ms << 80) | int.from_bytes(os.urandom(10), "big")
    out = []
    for _ in range(26):
        out.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(out))


def random_code(length: int, alphabet: str) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


def is_uuid(value: str) -> bool:
    try:
        uuid.UUID(str(value))
    except (ValueError, AttributeError, TypeError):
        return False
    return True
