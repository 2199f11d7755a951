"""Route documentation that costs nothing at cold start.

Handlers validate bodies themselves with pydantic (``lambdakit.http.parse_model``), so
Powertools cannot see the models in route signatures. Instead a route names its models
as ``"module:Class"`` strings::

    @router.post("/contacts", summary="Create a contact",
                 openapi_extensions=doc(body="campaigns.contacts.models:ContactIn",
                                        response="campaigns.contacts.models:Contact",
                                        status=201, errors=(409,)))

The strings are resolved only when the OpenAPI document is built (``make openapi`` and
the local fronts' ``/openapi.json``): ``finalize`` turns them into request bodies, query
parameters, response schemas in the service's envelope, and documented error responses
in the service's error format.
"""
from __future__ import annotations

import copy
import importlib
from typing import Any, Callable, Iterable

KEY = "x-lambdakit"
# 503: lambdakit.errors.Contention, a transaction still conflicting after its retries (any route
# that writes can meet it; Retry-After: 1).
STANDARD_ERRORS = (401, 403, 404, 429, 500, 503)
#: ``doc(notes={503: FILE_STORE_NOTE})`` on a route that calls S3 (``lambdakit.s3``, issue 23 rule 4)
FILE_STORE_NOTE = ("Code FILE_STORE_UNAVAILABLE with Retry-After: 1 (S3 answered SlowDown or a 5xx, or timed out, "
                   "after the SDK's retries): send the same request again. Any other S3 failure is a 500 "
                   "FILE_STORE_ERROR, with the same effect.")
REASONS = {400: "Bad request", 401: "Not authenticated", 403: "Forbidden", 404: "Not found", 409: "Conflict",
           410: "Gone", 413: "Payload too large", 415: "Unsupported media type", 422: "Validation failed",
           429: "Rate limited", 500: "Server error", 503: "Service unavailable"}


def doc(*, body: str | None = None, query: str | None = None, response: str | None = None,
        status: int = 200, errors: Iterable[int] = (), public: bool = False, list_key: str | None = None,
        paginated: bool = False, content_type: str | None = None, form: dict[str, str] | None = None,
        redirect: bool = False, also: dict[int, str] | None = None, body_optional: bool = False,
        notes: dict[int, str] | None = None, also_content: Iterable[str] = ()) -> dict[str, Any]:
    """Documentation for one route (``openapi_extensions=doc(...)``).

    ``body``/``query``/``response``: ``"module:Class"`` pydantic models. ``list_key``: the
    response is a list of ``response`` under that key; ``paginated`` adds the service's
    pagination. ``content_type``: a non-JSON success body (``text/csv``, ``image/gif``...).
    ``form``: multipart fields ``{name: "file"|"string"}``. ``public``: no auth errors.
    ``also``: further success answers ``{status: "module:Class"}`` (JSON, in the service's
    envelope), e.g. ``{202: "pkg.models:JobStarted"}`` for a route that may hand work to a job.
    ``body_optional``: the route also accepts no body at all.
    ``notes``: what an error answer means on this route ``{status: text}``, appended to its
    description (a 503 with a note also documents its ``Retry-After`` header), e.g.
    ``{503: FILE_STORE_NOTE}`` for a route whose S3 call may find S3 busy.
    ``also_content``: further media types the success answer may come in beside the JSON model
    (a small export answered as the file itself: ``("text/csv",)``), documented under the same
    status; ``lambdakit.responses`` refuses any other file answer in strict mode.
    """
    return {KEY: {"body": body, "query": query, "response": response, "status": status, "errors": list(errors),
                  "public": public, "list_key": list_key, "paginated": paginated, "content_type": content_type,
                  "form": form, "redirect": redirect, "also": {str(k): v for k, v in (also or {}).items()},
                  "body_optional": body_optional, "notes": {str(k): v for k, v in (notes or {}).items()},
                  "also_content": list(also_content)}}


def _model(ref: str):
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def _allows_null(schema: dict) -> bool:
    t = schema.get("type")
    if t == "null" or (isinstance(t, list) and "null" in t):
        return True
    return any(_allows_null(s) for k in ("anyOf", "oneOf") for s in schema.get(k) or ())


def _generator():
    """pydantic's JSON-schema generator, except for a required field written as
    ``x: str = Field(default=None, validate_default=True)`` (a validator turns the missing value
    into the service's own "x is required" error): pydantic would document ``default: null`` on a
    schema that does not allow null, which validators and client generators refuse. Such a field
    is documented as what it is: required, no default."""
    from pydantic.json_schema import GenerateJsonSchema, NoDefault

    def refused_null_default(gen: Any, schema: dict) -> bool:
        if schema.get("type") != "default" or not schema.get("validate_default"):
            return False
        if gen.get_default_value(schema) is not None or gen.get_default_value(schema) is NoDefault:
            return False
        return not _allows_null(gen.generate_inner(schema["schema"]))

    class Generator(GenerateJsonSchema):
        def default_schema(self, schema):
            if refused_null_default(self, schema):
                return self.generate_inner(schema["schema"])
            return super().default_schema(schema)

        def field_is_required(self, field, total):
            return super().field_is_required(field, total) or refused_null_default(self, field["schema"])

    return Generator


def _retitled(name: str, schema: dict) -> dict:
    """A model whose class name another package also uses gets a qualified component name from
    pydantic (``svc__contacts__models__UploadForm``) but keeps the bare ``title``, and client
    generators name classes after titles (openapi-python-client refuses the duplicate): the title
    gets the domain package in front (``ContactsUploadForm``)."""
    parts = name.split("__")
    if len(parts) < 3 or schema.get("title") != parts[-1]:
        return schema
    domain = "".join(w.capitalize() for w in parts[1].split("_"))
    return {**schema, "title": domain + parts[-1]}


class _Schemas:
    """Every model the routes name, turned into component schemas in one pass, so models
    with the same class name in different packages get distinct components (pydantic
    qualifies colliding names) instead of overwriting each other."""

    def __init__(self, document: dict, components: dict) -> None:
        from pydantic.json_schema import models_json_schema

        wanted: list[Any] = []  # (model class, "validation" | "serialization")
        for ops in document.get("paths", {}).values():
            for op in ops.values():
                info = op.get(KEY) or {}
                refs_ = [(info.get(k), mode) for k, mode in (("response", "serialization"), ("body", "validation"),
                                                             ("query", "validation"))]
                refs_ += [(ref, "serialization") for ref in (info.get("also") or {}).values()]
                for ref, mode in refs_:
                    if ref:
                        pair = (_model(ref), mode)
                        if pair not in wanted:
                            wanted.append(pair)
        self.refs: dict[Any, dict] = {}
        self.components = components
        if not wanted:
            return
        refs, defs = models_json_schema(wanted, ref_template="#/components/schemas/{model}",
                                        schema_generator=_generator())
        self.refs = dict(refs)
        for name, sub in (defs.get("$defs") or {}).items():
            components[name] = _retitled(name, sub)

    def ref(self, ref: str, mode: str) -> dict:
        return self.refs[(_model(ref), mode)]

    def inline(self, ref: str, mode: str) -> dict:
        target = self.ref(ref, mode)["$ref"].rsplit("/", 1)[-1]
        return self.components[target]


def finalize(document: dict, *, error_schema: dict, wrap_success: Callable[[dict, dict], dict],
             validation_status: int = 422, title: str | None = None, version: str | None = None,
             description: str | None = None) -> dict:
    """Resolve ``x-lambdakit`` markers in a Powertools-generated document.

    ``wrap_success(schema, info)`` wraps a payload schema in the service's success
    envelope (``info`` is the route's doc dict). ``error_schema`` is the service's
    error body schema, used for every documented error status.
    """
    doc_ = copy.deepcopy(document)
    comps = doc_.setdefault("components", {}).setdefault("schemas", {})
    schemas = _Schemas(doc_, comps)
    comps["Error"] = error_schema
    # Powertools' own validation-error schemas: the services answer their own error shape instead
    # (ResponseValidationError points at ValidationError: dropping one without the other leaves a
    # dangling $ref, issue 31)
    for junk in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        comps.pop(junk, None)
    if title:
        doc_.setdefault("info", {})["title"] = title
    if version:
        doc_["info"]["version"] = version
    if description:
        doc_["info"]["description"] = description
    for ops in doc_.get("paths", {}).values():
        for op in ops.values():
            info = op.pop(KEY, None) or {}
            responses: dict[str, Any] = {}
            status = str(info.get("status", 200))
            if info.get("redirect"):
                responses["302"] = {"description": "Redirect", "headers": {"Location": {"schema": {"type": "string"}}}}
            elif info.get("content_type"):
                ct = info["content_type"]
                fmt = {"type": "string", "format": "binary"} if not ct.startswith("text/") else {"type": "string"}
                responses[status] = {"description": "Success", "content": {ct: {"schema": fmt}}}
            else:
                payload = schemas.ref(info["response"], "serialization") if info.get("response") else {"type": "object"}
                if info.get("list_key") is not None or info.get("paginated"):
                    payload = {"type": "array", "items": payload}
                responses[status] = {"description": "Success",
                                     "content": {"application/json": {"schema": wrap_success(payload, info)}}}
                for ct in info.get("also_content") or ():
                    responses[status]["content"][ct] = {"schema": {"type": "string"} if ct.startswith("text/")
                                                        else {"type": "string", "format": "binary"}}
            for code, ref in (info.get("also") or {}).items():
                responses[code] = {"description": "Success", "content": {"application/json": {
                    "schema": wrap_success(schemas.ref(ref, "serialization"), {"status": int(code)})}}}
            errs = set(info.get("errors") or ())
            # public: the route's doc says so, or its derived security is [] (``annotate`` ran first)
            public = info.get("public") or op.get("security") == []
            errs.update(s for s in STANDARD_ERRORS if not (public and s in (401, 403)))
            if info.get("body") or info.get("query") or info.get("form") or op.get("parameters"):
                errs.add(validation_status)
            notes = info.get("notes") or {}
            errs.update(int(c) for c in notes)
            for code in sorted(errs):
                note = notes.get(str(code))
                responses[str(code)] = {"description": REASONS.get(code, "Error") + (f": {note}" if note else ""),
                                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
                if note and code == 503:
                    responses[str(code)]["headers"] = {"Retry-After": {
                        "description": "Seconds to wait before retrying", "schema": {"type": "integer"}}}
            op["responses"] = responses
            if info.get("body"):
                op["requestBody"] = {"required": not info.get("body_optional"), "content": {"application/json": {
                    "schema": schemas.ref(info["body"], "validation")}}}
            if info.get("form"):
                props = {k: ({"type": "string", "format": "binary"} if v == "file" else {"type": "string"})
                         for k, v in info["form"].items()}
                op["requestBody"] = {"required": True, "content": {"multipart/form-data": {
                    "schema": {"type": "object", "properties": props}}}}
            if info.get("query"):
                s = schemas.inline(info["query"], "validation")
                params = [p for p in op.get("parameters", []) if p.get("in") != "query"]
                required = set(s.get("required", []))
                for name, prop in (s.get("properties") or {}).items():
                    params.append({"name": name, "in": "query", "required": name in required,
                                   "schema": {k: v for k, v in prop.items() if k != "title"}})
                op["parameters"] = params
            if any(p.get("in") == "query" and p.get("name") == "cursor" for p in op.get("parameters", [])):
                _document_cursor(op)
            for p in op.get("parameters", []):
                if p.get("in") == "path":
                    p["schema"] = {"type": "string", "minLength": 1}
    return doc_


def first_paragraph(text: str | None) -> str:
    """A docstring's first paragraph on one line (a tag's description)."""
    para = (text or "").strip().split("\n\n", 1)[0]
    return " ".join(para.split())


def annotate(document: dict, routes: Iterable[tuple[str, Any]], *, security_schemes: dict[str, dict],
             security: Callable[[str, Any], list[dict]], tag: Callable[[Any], tuple[str, str]]) -> dict:
    """Security and tags for every operation, read off the routes themselves (issue 31).

    ``routes``: ``("METHOD /path", route)`` for every registered Powertools route (its
    ``middlewares`` and ``func`` say how it authenticates and which domain package owns it).
    ``security(route_key, route)`` is the service's rule: the OpenAPI security requirement list,
    ``[]`` for a public route, ``{}`` among the alternatives when credentials are optional.
    ``tag(route)`` gives ``(name, description)`` of the route's domain. Every operation of the
    document must come from a route: one that does not raises (no operation is left undocumented).
    """
    doc_ = copy.deepcopy(document)
    tags: dict[str, str] = {}
    seen: set[tuple[str, str]] = set()
    for route_key, route in routes:
        method, _, path = route_key.partition(" ")
        op = (doc_.get("paths", {}).get(path) or {}).get(method.lower())
        if op is None:
            continue
        op["security"] = security(route_key, route)
        name, description = tag(route)
        op["tags"] = [name]
        tags.setdefault(name, description)
        seen.add((path, method.lower()))
    undocumented = [f"{m.upper()} {p}" for p, ops in doc_.get("paths", {}).items() for m in ops
                    if (p, m) not in seen]
    if undocumented:
        raise ValueError(f"operations without a route to derive their security from: {undocumented}")
    doc_.setdefault("components", {})["securitySchemes"] = dict(sorted(security_schemes.items()))
    doc_["tags"] = [{"name": n, "description": d} for n, d in sorted(tags.items())]
    return doc_
def _document_cursor(op: dict) -> None:
    """Every ``cursor`` query parameter: one description (``lambdakit.cursors``, issue 32) and its
    400 ``INVALID_CURSOR`` answer, whatever status the service uses for other validation errors."""
    from .cursors import CURSOR_DESCRIPTION

    for p in op.get("parameters", []):
        if p.get("in") == "query" and p.get("name") == "cursor":
            p["description"] = CURSOR_DESCRIPTION
            p["schema"] = {k: v for k, v in p.get("schema", {}).items() if k != "description"}
    responses = op.setdefault("responses", {})
    if "400" not in responses:
        responses["400"] = {"description": "Bad Request: INVALID_CURSOR (the cursor is not one this route issued "
                                           "for these filters and this caller)",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    op["responses"] = dict(sorted(responses.items()))
