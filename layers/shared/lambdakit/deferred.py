"""Deferred modules: a module that a library imports eagerly but our requests rarely touch is
executed at its first attribute access instead of at import (``importlib.util.LazyLoader``,
the standard library's own mechanism for this; PEP 810 makes it syntax in later Pythons).

One is deferred (docs/platform.md, "Deferred modules"): ``PIL.Image``: openpyxl imports Pillow
to embed images; our XLSX reports hold none. (PyJWT's ``cryptography.x509`` was the other one,
until no function shipped cryptography: docs/platform.md, "Layers".)

How: ``defer(*names)`` puts a finder first on ``sys.meta_path`` that hands out those modules
with a ``LazyLoader``. ``import a.b`` and ``from a import b`` bind the module object without
running it; any attribute access runs it, exactly once, and from then on it is the ordinary
module. A ``from a.b import name`` runs it at once (the name has to be read), so it never makes
anything wrong, at worst not faster.

Only in a Lambda process (``LAMBDA_TASK_ROOT``, one request at a time, not ``sam local``):
Python 3.11's ``LazyLoader`` was not safe when two threads touch a deferred module first at the
same moment (fixed in 3.12; the functions run 3.13), and the local runtime and the tests serve
requests on threads, so deferral stays where it was measured: one request at a time.
``defer`` returns whether it is active.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from importlib.machinery import ModuleSpec, PathFinder
from typing import Any

#: The modules this process defers (``sys.meta_path`` holds one finder for all of them).
_names: set[str] = set()
_finder: _Deferring | None = None


class _Deferring:
    """A meta path finder: the spec ``PathFinder`` finds, with its loader wrapped in a ``LazyLoader``."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if fullname not in _names:
            return None
        spec = PathFinder.find_spec(fullname, path)
        loader = spec.loader if spec is not None else None
        if spec is None or loader is None or not hasattr(loader, "exec_module"):
            return spec  # not found, or an extension module: imported as usual
        spec.loader = importlib.util.LazyLoader(loader)
        return spec


def active() -> bool:
    return bool(os.environ.get("LAMBDA_TASK_ROOT")) and not os.environ.get("AWS_SAM_LOCAL")


def defer(*names: str) -> bool:
    """Defer ``names`` in this process (a no-op outside Lambda and for modules already imported)."""
    global _finder
    if not active():
        return False
    _names.update(n for n in names if n not in sys.modules)
    if _finder is None:
        _finder = _Deferring()
        sys.meta_path.insert(0, _finder)
    return True


def reset() -> None:
    """Stop deferring (tests)."""
    global _finder
    _names.clear()
    if _finder is not None and _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    _finder = None
