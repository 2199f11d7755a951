"""GET /api/health (public). The spec has no health route; this one is ours."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit import clock
from lambdakit.openapi import doc

from .. import VERSION
from ..http import build_app, lambda_entry, ok

router = APIGatewayHttpRouter()


@router.get("/api/health",
             openapi_extensions=doc(response="internships.health.models:Health", public=True))
def health():
    return ok({"success": True, "status": "healthy", "version": VERSION, "timestamp": clock.now_iso()})


app = build_app(router)
lambda_handler = lambda_entry(app)
