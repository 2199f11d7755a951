"""Ship bytecode: compile every ``.py`` of a ``sam build`` output to ``__pycache__/*.pyc``.

Why: Lambda imports a function's code from ``/var/task`` and its layers from ``/opt``, both
read-only, so Python cannot cache bytecode there and compiles every module it imports, on every
cold start, unless the package ships its ``.pyc``. ``sam build`` ships none: lambda-builders
copies the sources without ``__pycache__`` and unpacks the layer's wheels without compiling them.
Measured (docs/quality.md, "Cold first request"): one function's cold first request 0.6 s with
bytecode, 2.3-2.5 s without. So ``make build`` runs ``sam build`` and then this, and
``sam deploy`` zips the ``__pycache__`` folders with the rest.

The ``.pyc`` are *unchecked-hash* based (PEP 552): valid whatever the files' timestamps after
zip and unzip, never rewritten. They are made by this interpreter, which must be the templates'
runtime's version (python3.13; the bytecode format changes between minor versions).
``python tools/precompile.py [BUILD_DIR]`` (default ``.aws-sam/build``); exits 1 when one of our
own modules (``lambdakit`` or a service package) does not compile. A third-party file that does
not compile (none today) is listed and left to be compiled at import, as before.
"""
from __future__ import annotations

import os
import py_compile
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = (3, 13)
OWN = ("lambdakit", "campaigns", "exams", "internships")


def _template_runtime() -> tuple[int, int]:
    m = re.search(r"Runtime:\s*python(\d)\.(\d+)", (ROOT / "functions" / "campaigns" / "template.yaml").read_text())
    assert m, "no Runtime in the campaigns template"
    return int(m.group(1)), int(m.group(2))


def _compile(path: str) -> str | None:
    try:
        py_compile.compile(path, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    except (py_compile.PyCompileError, SyntaxError, ValueError, OSError) as exc:
        return f"{path}: {type(exc).__name__}"
    return None


def precompile(build: Path) -> tuple[int, list[str]]:
    """Compile every ``.py`` under ``build``; returns (files, the ones that failed)."""
    files = sorted(str(p) for p in build.rglob("*.py") if "__pycache__" not in p.parts)
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        failed = [r for r in pool.map(_compile, files, chunksize=64) if r]
    return len(files), failed


def main() -> int:
    build = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / ".aws-sam" / "build")
    if not build.is_dir():
        print(f"{build}: no build (run `sam build` first)", file=sys.stderr)
        return 1
    wanted = _template_runtime()
    if sys.version_info[:2] != wanted or wanted != RUNTIME:
        print(f"bytecode must be made by python{wanted[0]}.{wanted[1]} (this is {sys.version.split()[0]})",
              file=sys.stderr)
        return 1
    n, failed = precompile(build)
    own = [f for f in failed if any(f"/{p}/" in f for p in OWN)]
    print(f"precompiled {n} modules under {build} (unchecked-hash .pyc){'; not compiled: ' if failed else ''}"
          + ", ".join(failed))
    return 1 if own else 0


if __name__ == "__main__":
    raise SystemExit(main())
