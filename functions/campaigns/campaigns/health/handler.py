"""GET /health (public) and GET /api (key check)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit import clock

from .. import VERSION
from ..http import build_app, lambda_entry, ok

router = APIGatewayHttpRouter()


@router.get("/health")
def health():
    return ok({"status": "healthy", "version": VERSION, "timestamp": clock.now_iso()}, "Service is healthy")


app = build_app(router)
lambda_handler = lambda_entry(app)
