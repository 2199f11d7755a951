"""The service table and item cleaning shared by the JOURNEY repositories (data-access only)."""
from __future__ import annotations

from typing import overload

from lambdakit.ddb import Table

from .settings import settings


def table() -> Table:
    return Table(settings().table_name)


@overload
def clean(item: dict) -> dict: ...
@overload
def clean(item: None) -> None: ...
@overload
def clean(item: dict | None) -> dict | None: ...
def clean(item: dict | None) -> dict | None:
    """An item without its key and index attributes (``None`` stays ``None``)."""
    if item is None:
        return None
    return {k: v for k, v in item.items() if k not in ("pk", "sk") and not k.startswith("gsi")}
