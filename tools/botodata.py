"""Write ``layers/shared/lambdakit/botodata/``: the botocore data of the services we use, only.

botocore's loader lists every service folder it ships (~440) and parses the 1.25 MB
``endpoints.json`` when the first client of a process is built: ≈50 ms of a cold first request
(bench_coldrequest, docs/quality.md). ``lambdakit.aws`` gives botocore a loader that searches
this folder only, so that first client costs ≈11 ms. The folder holds, from the installed
(pinned) botocore, copied unchanged: ``_retry.json``, ``partitions.json``,
``sdk-default-configuration.json``, each used service's endpoint rule set, paginators and
waiters; and, rewritten: each used service's model without its operations' and shapes' documentation strings (3/4 of its size; botocore
reads them only for docstrings and help; the first DynamoDB client ≈ 15 → ≈ 11 ms); and
``endpoints.json`` cut down to those services' endpoint prefixes. ``VERSION`` names
the botocore release it came from; ``lambdakit.aws`` ignores the folder for any other release,
and ``tests/platform/test_botodata.py`` fails until ``make botodata`` has rewritten it after a
botocore pin changes (``make lock``).

``python tools/botodata.py [--check]``: write it, or exit 1 when it differs from a fresh cut.
"""
from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "layers" / "shared"))

from lambdakit.aws import BUNDLED_SERVICES, DATA_DIR  # noqa: E402

TOP_LEVEL = ("_retry.json", "partitions.json", "sdk-default-configuration.json")
PER_SERVICE = ("service-2", "endpoint-rule-set-1", "paginators-1", "waiters-2")
DOC_KEYS = ("documentation", "documentationUrl")


def _read_json(path: Path) -> dict:
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)


def _without_docs(node: object) -> object:
    """Operations or shapes without their ``documentation``/``documentationUrl`` strings (3/4 of
    a model's size; botocore reads them only to write docstrings and help)."""
    if isinstance(node, dict):
        return {k: _without_docs(v) for k, v in node.items() if k not in DOC_KEYS}
    if isinstance(node, list):
        return [_without_docs(v) for v in node]
    return node


def write(out: Path) -> None:
    import botocore

    src = Path(botocore.__file__).parent / "data"
    out.mkdir(parents=True)
    for name in TOP_LEVEL:
        shutil.copyfile(src / name, out / name)
    prefixes: set[str] = set()
    for service in BUNDLED_SERVICES:
        for version in sorted(p for p in (src / service).iterdir() if p.is_dir()):
            (out / service / version.name).mkdir(parents=True)
            for f in sorted(version.iterdir()):
                if f.name.startswith("service-2.json"):
                    model = _read_json(f)
                    prefixes.add(model["metadata"].get("endpointPrefix", service))
                    # only the operations' and shapes' docs: botocore indexes others (clientContextParams)
                    model = {**model, **{k: _without_docs(model[k]) for k in ("operations", "shapes") if k in model}}
                    raw = json.dumps(model, separators=(",", ":")).encode()
                    (out / service / version.name / "service-2.json.gz").write_bytes(gzip.compress(raw, mtime=0))
                elif f.name.split(".")[0] in PER_SERVICE:
                    shutil.copyfile(f, out / service / version.name / f.name)
    endpoints = json.loads((src / "endpoints.json").read_text())
    for partition in endpoints["partitions"]:
        partition["services"] = {k: v for k, v in partition["services"].items() if k in prefixes}
    (out / "endpoints.json").write_text(json.dumps(endpoints, separators=(",", ":"), sort_keys=True))
    (out / "VERSION").write_text(botocore.__version__ + "\n")


def same(a: Path, b: Path) -> bool:
    """Same files with the same content (``.gz`` files compared decompressed: zlib builds may
    compress the same bytes differently)."""
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    if files_a != files_b:
        return False
    for rel in files_a:
        x, y = (a / rel).read_bytes(), (b / rel).read_bytes()
        if rel.suffix == ".gz":
            x, y = gzip.decompress(x), gzip.decompress(y)
        if x != y:
            return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "botodata"
        write(fresh)
        if args.check:
            if DATA_DIR.is_dir() and same(fresh, DATA_DIR):
                return 0
            print(f"{DATA_DIR} is not a cut of the installed botocore: run `make botodata`", file=sys.stderr)
            return 1
        shutil.rmtree(DATA_DIR, ignore_errors=True)
        shutil.copytree(fresh, DATA_DIR)
    size = sum(f.stat().st_size for f in DATA_DIR.rglob("*") if f.is_file())
    print(f"wrote {DATA_DIR.relative_to(ROOT)}: {len(BUNDLED_SERVICES)} services, {size // 1024} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
