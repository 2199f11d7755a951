"""Print each service's route table (from its template) as Markdown, for README's Services section.

``python tools/readme_routes.py`` rewrites the blocks between
``<!-- routes:<service> -->`` and ``<!-- /routes:<service> -->`` in README.md.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from local_runtime.stack import load_all  # noqa: E402
from tools.endpoints import spec_routes  # noqa: E402


def table(service) -> str:
    # the routes the product specs document: the unmarked lines of docs/endpoints.txt (tools/endpoints.py)
    spec = {(m, p) for svc, m, p in spec_routes() if svc == service.name}
    rows = ["| function (one Lambda) | routes |", "|---|---|"]
    by_fn: dict[str, list[str]] = {}
    for r in sorted(service.canonical_routes, key=lambda r: (r.path, r.method)):
        mark = "" if not spec or (r.method, r.path) in spec else " *(added)*"
        by_fn.setdefault(r.function, []).append(f"`{r.method} {r.path}`{mark}")
    for fn, routes in by_fn.items():
        rows.append(f"| {fn.removesuffix('Function')} | {'<br>'.join(routes)} |")
    others = [lid for lid, f in service.functions.items() if lid not in by_fn]
    for lid in others:
        ev = service.functions[lid].events
        kinds = sorted({e.get("Type") for e in ev.values()})
        rows.append(f"| {lid.removesuffix('Function')} | *{', '.join(kinds) or 'no events'} worker* |")
    for prefix in service.alias_prefixes:
        rows.append(f"\nEvery route above is also served, identically, at `{prefix}` + its path "
                    f"(same function, auth and answers); the unprefixed paths are authoritative.")
    return "\n".join(rows)


def main() -> None:
    readme = ROOT / "README.md"
    text = readme.read_text()
    for name, svc in load_all().items():
        block = f"<!-- routes:{name} -->\n{table(svc)}\n<!-- /routes:{name} -->"
        text, n = re.subn(rf"<!-- routes:{name} -->.*?<!-- /routes:{name} -->", lambda _m, block=block: block, text, flags=re.S)
        if n == 0:
            print(f"no routes block for {name} in README.md", file=sys.stderr)
    readme.write_text(text)


if __name__ == "__main__":
    main()
