"""GET /health (public) and GET /api (key check)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit import clock
from lambdakit.openapi import doc

from .. import VERSION
from ..auth import principal, require
from ..http import build_app, lambda_entry, ok

router = APIGatewayHttpRouter()


@router.get("/health", summary="Service health (no authentication)",
            openapi_extensions=doc(response="campaigns.health.models:Health", public=True))
def health():
    return ok({"status": "healthy", "version": VERSION, "timestamp": clock.now_iso()}, "Service is healthy")


@router.get("/api", middlewares=[require("*")], summary="Check an API key",
            description="200 with the key's id, name, scopes and plan when the bearer key is valid.",
            openapi_extensions=doc(response="campaigns.health.models:KeyCheck"))
def api_check():
    p = principal(router)
    return ok({"key_id": p.key_id, "name": p.name, "scopes": sorted(p.scopes), "plan": p.plan, "role": p.role},
              "API key is valid")


app = build_app(router)
lambda_handler = lambda_entry(app)
