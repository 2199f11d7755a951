"""Write docs/endpoints.txt: every served route, one per line, from the templates.

``python tools/endpoints.py`` (also run by ``make openapi``) lists each service's template routes as
``service METHOD /path``, marked ``(added)`` when the product specs do not document the route.
Which routes the specs document is kept in the file itself: a line without ``(added)`` is a spec
route. The first run took them from the specs' own list (``../shared/specs/endpoints.txt``, outside
this repository); a route new to the templates is written as ``(added)``. ``tools/readme_routes.py``
reads the same marks, and tests/platform/test_endpoints_list.py checks that the file lists exactly
the template routes and keeps every spec route.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from local_runtime.stack import load_all  # noqa: E402

PATH = ROOT / "docs" / "endpoints.txt"
SPEC_LIST = ROOT.parent / "shared" / "specs" / "endpoints.txt"
HEADER = ("# Every served route, one per line: service METHOD /path (path parameters written {name}).\n"
          "# Generated from the templates by `python tools/endpoints.py`; `(added)`: a route the product\n"
          "# specs do not document. Every route is also in docs/openapi/<service>.json.\n")


def parse(text: str) -> dict[tuple[str, str, str], bool]:
    """``{(service, METHOD, /path): added}`` of an endpoints file."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 3 and not line.startswith("#"):
            out[(parts[0], parts[1], parts[2])] = "(added)" in parts[3:]
    return out


def spec_routes(source: Path | None = None) -> set[tuple[str, str, str]]:
    """The routes the specs document: the unmarked lines of ``source`` (the specs' own list), else of
    docs/endpoints.txt, else of the specs' list beside the repository."""
    source = source or (PATH if PATH.exists() else SPEC_LIST)
    return {k for k, added in parse(source.read_text()).items() if not added} if source.exists() else set()


def render(spec_list: Path | None = None) -> str:
    spec = spec_routes(spec_list)
    lines = []
    for name, svc in load_all().items():
        for r in sorted(svc.canonical_routes, key=lambda r: (r.path, r.method)):
            lines.append(f"{name} {r.method} {r.path}" + ("" if (name, r.method, r.path) in spec else "  (added)"))
    return HEADER + "\n".join(lines) + "\n"


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--spec", type=Path, help="take the spec routes from this list (the specs' endpoints.txt)")
    PATH.write_text(render(ap.parse_args().spec))
    print(f"{PATH.relative_to(ROOT)}: {len(parse(PATH.read_text()))} routes")


if __name__ == "__main__":
    main()
