"""Each service's OpenAPI 3 document, generated from its handlers' routes and models.

Every HTTP function's handler module exposes a Powertools resolver (``app``); its
``get_openapi_json_schema()`` describes that function's routes. The documents of all
functions of a service are merged (paths and component schemas). ``make openapi``
writes ``docs/openapi/<service>.json``; each local front serves it at ``/openapi.json``.
Functions whose handler module does not exist yet are listed under ``x-missing-functions``.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
from pathlib import Path
from typing import Any

from . import invoke as inv
from .stack import Service, load_all


def _resolver(module: Any) -> Any:
    app = getattr(module, "app", None)
    if app is not None and hasattr(app, "get_openapi_json_schema"):
        return app
    for v in vars(module).values():
        if hasattr(v, "get_openapi_json_schema") and hasattr(v, "resolve"):
            return v
    return None


def service_document(svc: Service) -> dict:
    inv.ensure_paths(code_dirs=[svc.dir])
    # the documents are built outside any deployment: the local stage (the services refuse to
    # import without an explicit stage, issue 17)
    os.environ.setdefault(f"{svc.name.upper()}_STAGE", "local")
    try:
        pkg = importlib.import_module(svc.name)
        version = str(getattr(pkg, "VERSION", "1.0.0"))
        title = (pkg.__doc__ or svc.name).strip().splitlines()[0].split(". ")[0].rstrip(".")
    except ImportError:
        version, title = "1.0.0", svc.name
    doc: dict[str, Any] = {"openapi": "3.1.0", "info": {"title": title, "version": version}, "paths": {},
                           "components": {"schemas": {}}}
    missing: list[str] = []
    for lid, fn in sorted(svc.functions.items()):
        if not any(e.get("Type") == "HttpApi" for e in fn.events.values()):
            continue
        module_name = fn.handler.rpartition(".")[0]
        inv.ensure_paths(fn)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and module_name.startswith(exc.name):
                missing.append(lid)
                continue
            raise
        app = _resolver(module)
        if app is None:
            missing.append(lid)
            continue
        part = json.loads(app.get_openapi_json_schema(title=title, version=version))
        for path, ops in (part.get("paths") or {}).items():
            doc["paths"].setdefault(path, {}).update(ops)
        doc["components"]["schemas"].update(((part.get("components") or {}).get("schemas")) or {})
    doc = _finalize(svc.name, doc)
    if not doc.get("components", {}).get("schemas"):
        doc.pop("components", None)
    doc["paths"] = dict(sorted(doc["paths"].items()))
    if missing:
        doc["x-missing-functions"] = missing
    return doc


def _finalize(service: str, doc: dict) -> dict:
    """Resolve the routes' ``lambdakit.openapi.doc`` markers with the service's conventions
    (error body schema, success envelope, validation status; optional ``OPENAPI_DESCRIPTION``
    and ``OPENAPI_SERVERS``) from ``<service>.http``."""
    from lambdakit.openapi import finalize

    try:
        http = importlib.import_module(f"{service}.http")
    except ModuleNotFoundError:
        return doc  # a service without conventions (e.g. the runtime's own fixture app)
    if not hasattr(http, "OPENAPI_ERROR_SCHEMA") or not hasattr(http, "openapi_wrap"):
        return doc
    doc = finalize(doc, error_schema=http.OPENAPI_ERROR_SCHEMA, wrap_success=http.openapi_wrap,
                   validation_status=getattr(http, "VALIDATION_STATUS", 422),
                   description=getattr(http, "OPENAPI_DESCRIPTION", None))
    # a service serving its routes under an alias prefix too (campaigns' /api/v1) states it once
    # as a second server instead of listing every path twice
    if getattr(http, "OPENAPI_SERVERS", None):
        doc = {"openapi": doc["openapi"], "info": doc["info"], "servers": list(http.OPENAPI_SERVERS),
               **{k: v for k, v in doc.items() if k not in ("openapi", "info")}}
    return doc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="docs/openapi")
    ap.add_argument("--service", action="append")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, svc in load_all().items():
        if args.service and name not in args.service:
            continue
        doc = service_document(svc)
        (out / f"{name}.json").write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n")
        print(f"{out / (name + '.json')}: {len(doc['paths'])} paths"
              + (f", missing handlers: {', '.join(doc['x-missing-functions'])}" if doc.get("x-missing-functions") else ""))


if __name__ == "__main__":
    main()
