"""GET /health and GET / (public)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit import clock
from lambdakit.openapi import doc

from .. import NAME, VERSION
from ..http import build_app, lambda_entry, ok_flat
from . import checks

router = APIGatewayHttpRouter()


@router.get("/health", summary="Health check", openapi_extensions=doc(response="exams.health.models:Health", public=True, errors=(503,)), description="status healthy|degraded with per-dependency checks. The payload is also at the top level of the "
                        "body (the spec's `{status, timestamp, checks}`), next to `data` and `message`.")
def health():
    results = checks.run()
    healthy = results.get("database") == "ok"
    info = {"status": "healthy" if healthy else "degraded", "timestamp": clock.now_iso(), "version": VERSION,
            "checks": results}
    return ok_flat(info, "Service is healthy" if healthy else "Service is degraded", status=200 if healthy else 503)


@router.get("/", summary="Service information", openapi_extensions=doc(response="exams.health.models:ServiceInfo", public=True), description="Also returns announcement_banner when set. The payload is also at the top level of the body "
                        "(the spec's `{name, version, status}`), next to `data` and `message`.")
def info():
    data = {"name": NAME, "version": VERSION, "status": "running"}
    banner = checks.announcement_banner()
    if banner:
        data["announcement_banner"] = banner
    return ok_flat(data, "OK")


app = build_app(router)
lambda_handler = lambda_entry(app)
