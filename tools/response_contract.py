"""The response contract (issue 35): every key path each route answered with, and whether the
route's documented response model declares it.

    python tools/response_contract.py collect DIR   # DIR: a suite run's LAMBDAKIT_RESPONSE_AUDIT
    python tools/response_contract.py check         # every recorded path against docs/openapi

``collect`` merges the ``seen-*.jsonl`` files an audit run of the suite wrote
(``LAMBDAKIT_RESPONSE_AUDIT=DIR make test``, see ``lambdakit.responses``) into
``tests/contract/responses.json``: ``{"<service> <METHOD> <path> <status>": [key paths]}``, the
paths of the payload a route's model describes (``a.b``, list items ``a[].b``). Keys of maps
(``dict[str, X]`` fields: dates, ids) are not recorded one by one: a segment under a map is
written ``*``. The file is the hidden contract of issue 35 (what clients saw before the models were
enforced, plus what was added on purpose); ``tests/platform/test_response_contract.py`` fails when
a route's model stops declaring one of its paths, so a response cannot lose a field unnoticed.
"""
from __future__ import annotations

import glob
import json
import os
import re
import sys
from pathlib import Path
from typing import Iterable

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "tests" / "contract" / "responses.json"
SERVICES = ("campaigns", "exams", "internships")
_PARAM = re.compile(r"<([^>]+)>")


def service_of(ref: str) -> str:
    return ref.split(".", 1)[0]


def openapi_path(route_path: str) -> str:
    return _PARAM.sub(r"{\1}", route_path)


def documents() -> dict[str, dict]:
    return {s: json.loads((ROOT / "docs" / "openapi" / f"{s}.json").read_text()) for s in SERVICES}


class Schema:
    """A walker over one OpenAPI document's response schemas."""

    def __init__(self, doc: dict) -> None:
        self.schemas = doc.get("components", {}).get("schemas", {})

    def resolve(self, s: dict) -> dict:
        seen = 0
        while "$ref" in s and seen < 50:
            s = self.schemas[s["$ref"].rsplit("/", 1)[1]]
            seen += 1
        return s

    def branches(self, s: dict) -> list[dict]:
        s = self.resolve(s)
        out = [s]
        for k in ("anyOf", "oneOf", "allOf"):
            for sub in s.get(k) or ():
                out.extend(self.branches(sub))
        return out

    def is_free(self, s: dict) -> bool:
        """Anything goes below (``dict[str, Any]``, ``Any``)."""
        for b in self.branches(s):
            t = b.get("type")
            if not b or (t == "object" and not b.get("properties") and b.get("additionalProperties") in (None, True)):
                return True
        return False

    def step(self, s: dict, key: str) -> list[dict]:
        """The schemas of ``key`` below object schema ``s`` ("*": a map's value)."""
        found = []
        for b in self.branches(s):
            props = b.get("properties") or {}
            if key in props:
                found.append(props[key])
            ap = b.get("additionalProperties")
            if isinstance(ap, dict) and (key == "*" or key not in props):
                found.append(ap)
        return found

    def items(self, s: dict) -> list[dict]:
        return [b["items"] for b in self.branches(s) if isinstance(b.get("items"), dict)] + \
               [x for b in self.branches(s) for x in (b.get("prefixItems") or ())]

    def declares(self, s: dict, segments: list[str]) -> bool:
        if not segments or self.is_free(s):
            return True
        seg = segments[0]
        name, depth = seg.rstrip("[]"), (len(seg) - len(seg.rstrip("[]"))) // 2
        cands = [s] if name == "" else self.step(s, name)
        for _ in range(depth):
            cands = [i for c in cands for i in (self.items(c) or ([c] if self.is_free(c) else []))]
        return any(self.declares(c, segments[1:]) for c in cands)

    def map_segments(self, s: dict, segments: list[str]) -> list[str]:
        """``segments`` with each key below a map written ``*``."""
        out: list[str] = []
        cands = [s]
        for seg in segments:
            name, depth = seg.rstrip("[]"), (len(seg) - len(seg.rstrip("[]"))) // 2
            if name and cands and not any(name in (self.resolve(b).get("properties") or {})
                                          for c in cands for b in self.branches(c)) and \
                    any(isinstance(b.get("additionalProperties"), dict) for c in cands for b in self.branches(c)):
                name = "*"
            out.append(name + "[]" * depth)
            nxt = cands if name == "" else [x for c in cands for x in self.step(c, name)]
            for _ in range(depth):
                nxt = [i for c in nxt for i in self.items(c)]
            cands = nxt
        return out


def payload_schema(service: str, doc: dict, method: str, path: str, status: int) -> dict | None:
    """The part of a route's documented answer its model describes (inside the service's envelope)."""
    op = (doc["paths"].get(path) or {}).get(method.lower())
    if op is None:
        return None
    resp = op["responses"].get(str(status)) or {}
    schema = ((resp.get("content") or {}).get("application/json") or {}).get("schema")
    if schema is None:
        return None
    if service in ("campaigns", "exams"):
        return (schema.get("properties") or {}).get("data")
    return schema


def split(path: str) -> list[str]:
    # a top-level list payload is recorded as "[].x": its first segment is "[]"
    return path.split(".")


def collect(audit_dir: str) -> dict[str, list[str]]:
    docs = documents()
    merged: dict[str, set[str]] = {}
    for f in glob.glob(os.path.join(audit_dir, "seen-*.jsonl")):
        for line in open(f, encoding="utf-8"):
            r = json.loads(line)
            svc = service_of(r["model"])
            method, _, route = r["route"].partition(" ")
            path = openapi_path(route)
            schema = payload_schema(svc, docs[svc], method, path, r["status"])
            walker = Schema(docs[svc])
            key = f"{svc} {method} {path} {r['status']}"
            for p in r["paths"]:
                segs = walker.map_segments(schema, split(p)) if schema else split(p)
                merged.setdefault(key, set()).add(".".join(segs))
    return {k: sorted(v) for k, v in sorted(merged.items())}


def undeclared(contract: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """Recorded paths the route's documented model no longer declares (``{route: [paths]}``)."""
    contract = json.loads(CONTRACT.read_text()) if contract is None else contract
    docs = documents()
    out: dict[str, list[str]] = {}
    for key, paths in contract.items():
        svc, method, path, status = key.split(" ")
        schema = payload_schema(svc, docs[svc], method, path, int(status))
        if schema is None:
            out[key] = ["(the route or its JSON answer is no longer documented)"]
            continue
        walker = Schema(docs[svc])
        missing = [p for p in paths if not walker.declares(schema, split(p))]
        if missing:
            out[key] = missing
    return out


def _main(argv: Iterable[str]) -> int:
    args = list(argv)
    if args[:1] == ["collect"] and len(args) == 2:
        data = collect(args[1])
        CONTRACT.parent.mkdir(parents=True, exist_ok=True)
        CONTRACT.write_text(json.dumps(data, indent=1) + "\n")
        print(f"{len(data)} route answers, {sum(len(v) for v in data.values())} key paths -> {CONTRACT}")
        return 0
    if args[:1] == ["check"]:
        bad = undeclared()
        for k, v in bad.items():
            print(k)
            for p in v:
                print("   ", p)
        print(f"{len(bad)} route answers with undeclared paths")
        return 1 if bad else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
