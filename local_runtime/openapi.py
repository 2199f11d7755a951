"""Each service's OpenAPI 3 document, generated from its handlers' routes and models.

Every HTTP function's handler module exposes a Powertools resolver (``app``); its
``get_openapi_json_schema()`` describes that function's routes. The documents of all
functions of a service are merged (paths and component schemas). ``make openapi``
writes ``docs/openapi/<service>.json``; each local front serves it at ``/openapi.json``.
Functions whose handler module does not exist yet are listed under ``x-missing-functions``.

Security and tags are read off the registered routes (``lambdakit.openapi.annotate``): each
service's ``<service>.openapi`` module names its security schemes and says, from a route's auth
middleware, which of them the route takes; the tag is the route's domain package, described by
that package's docstring (or its handler module's). The output is stable (paths, methods and
component schemas sorted), so ``tests/platform/test_openapi_valid.py`` can compare it with the
committed ``docs/openapi/*.json``.
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
    routes: list[tuple[str, Any]] = []
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
        routes += [(f"{r.method} {r.openapi_path}", r) for r in app._static_routes + app._dynamic_routes]
        part = json.loads(app.get_openapi_json_schema(title=title, version=version))
        for path, ops in (part.get("paths") or {}).items():
            doc["paths"].setdefault(path, {}).update(ops)
        doc["components"]["schemas"].update(((part.get("components") or {}).get("schemas")) or {})
    doc = _annotate(svc.name, doc, routes)  # first: a public route (security []) documents no 401/403
    doc = _finalize(svc.name, doc)
    if not doc.get("components", {}).get("schemas"):
        doc.get("components", {}).pop("schemas", None)
    else:
        doc["components"]["schemas"] = dict(sorted(doc["components"]["schemas"].items()))
    if not doc.get("components"):
        doc.pop("components", None)
    doc["paths"] = {p: dict(sorted(ops.items())) for p, ops in sorted(doc["paths"].items())}
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


def _tag(route: Any) -> tuple[str, str]:
    """The route's domain package and what it holds (its docstring, else its handler module's)."""
    service, domain = route.func.__module__.split(".")[:2]
    texts = [importlib.import_module(f"{service}.{domain}").__doc__]
    try:
        texts.append(importlib.import_module(f"{service}.{domain}.handler").__doc__)
    except ModuleNotFoundError as exc:
        if exc.name != f"{service}.{domain}.handler":
            raise
    texts.append(importlib.import_module(route.func.__module__).__doc__)
    from lambdakit.openapi import first_paragraph

    return domain, next((first_paragraph(t) for t in texts if first_paragraph(t)), domain)


def _annotate(service: str, doc: dict, routes: list[tuple[str, Any]]) -> dict:
    """Security schemes, each operation's security and tags from ``<service>.openapi``."""
    from lambdakit.openapi import annotate

    try:
        hooks = importlib.import_module(f"{service}.openapi")
    except ModuleNotFoundError as exc:
        if exc.name not in (service, f"{service}.openapi"):
            raise
        return doc  # a service without hooks (e.g. the runtime's own fixture app)
    return annotate(doc, routes, security_schemes=hooks.SECURITY_SCHEMES, security=hooks.security, tag=_tag)


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
