"""Add the missing prefixed twins of a service's HttpApi routes to its template.

A service template may declare ``Metadata: RouteAliasPrefixes: [/api/v1]``: every HttpApi event
``<Name>`` (``Method: M``, ``Path: /p``) then has a twin event ``<Name>ApiV1`` on the same function
with ``Method: M`` and ``Path: /api/v1/p`` (API Gateway routes both to the function; the function's
resolver strips the prefix, see ``lambdakit.http.make_resolver(strip_prefixes=...)``).

``python tools/route_aliases.py campaigns`` inserts each missing twin right after its route, as
text (comments and tags of the template are kept); ``--check`` only lists the missing ones and
exits 1 if there are any. tests/platform/test_templates.py checks that none is missing.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from local_runtime.stack import load_all  # noqa: E402


def twin_name(event: str, prefix: str) -> str:
    """``GetHealth`` + ``/api/v1`` → ``GetHealthApiV1``."""
    return event + "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", prefix) if p)


def missing_twins(service: str) -> list[tuple[str, str, str, str]]:
    """``(function, event, method, twin path)`` of every HttpApi route without its twin."""
    svc = load_all()[service]
    out = []
    for prefix in svc.alias_prefixes:
        for lid, fn in svc.functions.items():
            http = {n: e["Properties"] for n, e in fn.events.items() if e.get("Type") == "HttpApi"}
            have = {(p["Method"].upper(), p["Path"]) for p in http.values()}
            for name, p in http.items():
                if p["Path"].startswith(prefix + "/"):
                    continue
                twin = (p["Method"].upper(), prefix + p["Path"])
                if twin not in have:
                    out.append((lid, name, twin[0], twin[1]))
    return out


def add_twins(service: str) -> int:
    svc = load_all()[service]
    path = svc.dir / "template.yaml"
    todo = {(lid, name): (method, twin) for lid, name, method, twin in missing_twins(service)}
    if not todo:
        return 0
    prefix_of = {twin: next(p for p in svc.alias_prefixes if twin.startswith(p + "/")) for _, twin in todo.values()}
    lines = path.read_text().splitlines(keepends=True)
    out: list[str] = []
    function = event = None
    api_line = "ApiId: !Ref 'HttpApi'"
    done = 0
    for line in lines:
        out.append(line)
        m = re.match(r"^  ([A-Za-z0-9]+):\s*$", line)
        if m:
            function = m.group(1)
        m = re.match(r"^( {8})([A-Za-z0-9]+):\s*$", line)
        if m:
            event = m.group(2)
        m = re.match(r"^ {12}(ApiId: .+?)\s*$", line)
        if m:
            api_line = m.group(1)
        m = re.match(r"^( {12})Path: (\S+)\s*$", line)
        if m and (function, event) in todo:
            method, twin = todo.pop((function, event))
            ind = " " * 8
            out += [f"{ind}{twin_name(str(event), prefix_of[twin])}:\n", f"{ind}  Type: HttpApi\n",
                    f"{ind}  Properties:\n", f"{ind}    {api_line}\n", f"{ind}    Method: {method}\n",
                    f"{ind}    Path: {twin}\n"]
            done += 1
    if todo:
        raise SystemExit(f"could not place: {sorted(todo)}")
    path.write_text("".join(out))
    return done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("service")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    if args.check:
        missing = missing_twins(args.service)
        for lid, name, method, twin in missing:
            print(f"{args.service}: {lid}.{name}: no twin {method} {twin}")
        sys.exit(1 if missing else 0)
    print(f"{args.service}: {add_twins(args.service)} twins added")


if __name__ == "__main__":
    main()
