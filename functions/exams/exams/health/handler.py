"""GET /health and GET / (public)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit import clock

from .. import NAME, VERSION
from ..http import build_app, lambda_entry, ok

router = APIGatewayHttpRouter()


@router.get("/health")
def health():
    info = {"status": "healthy", "timestamp": clock.now_iso(), "version": VERSION}
    resp = ok(info, "Service is healthy")
    return resp


@router.get("/")
def info():
    return ok({"name": NAME, "version": VERSION, "status": "running"}, "OK")


app = build_app(router)
lambda_handler = lambda_entry(app)
