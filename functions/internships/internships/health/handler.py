"""GET /api/health (public). The spec has no health route; this one is ours."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit import clock
from lambdakit.openapi import doc

from .. import VERSION
from ..http import build_app, lambda_entry, ok

router = APIGatewayHttpRouter()


@router.get("/api/health", description="200 always. status healthy, or degraded with issues [{code, message}]: "
                                        "BASE_URL_NOT_SET while mail links cannot resolve (mail is held until then).",
             openapi_extensions=doc(response="internships.health.models:Health", public=True))
def health():
    # Issue 33: mail whose links cannot resolve is held; the reason shows here until the base URL is set.
    from ..links import problem

    reason = problem()
    issues = [{"code": "BASE_URL_NOT_SET", "message": f"Mail is held: {reason}"}] if reason else []
    return ok({"success": True, "status": "degraded" if issues else "healthy", "version": VERSION,
               "timestamp": clock.now_iso(), "issues": issues})


app = build_app(router)
lambda_handler = lambda_entry(app)
