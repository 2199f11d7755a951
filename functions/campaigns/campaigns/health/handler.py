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
            description="200 always. status healthy, or degraded with issues [{code, message}] naming what "
                        "does not work: BASE_URL_NOT_SET while the public base URL is unset (every send is then "
                        "refused with 503 BASE_URL_NOT_SET).",
            openapi_extensions=doc(response="campaigns.health.models:Health", public=True))
def health():
    # Issue 33: a stage whose links cannot resolve refuses sends; the reason is shown here until the
    # base URL is set (stack parameter, or `make base-url` writing the SSM parameter).
    from ..sending.tokens import base_url_problem

    reason = base_url_problem()
    issues = [{"code": "BASE_URL_NOT_SET", "message": f"Sending is disabled: {reason}"}] if reason else []
    return ok({"status": "degraded" if issues else "healthy", "version": VERSION, "timestamp": clock.now_iso(),
               "issues": issues}, "Service is degraded" if issues else "Service is healthy")


@router.get("/api", middlewares=[require("*")], summary="Check an API key",
            description="200 with the key's id, name, scopes and plan when the bearer key is valid.",
            openapi_extensions=doc(response="campaigns.health.models:KeyCheck"))
def api_check():
    p = principal(router)
    return ok({"key_id": p.key_id, "name": p.name, "scopes": sorted(p.scopes), "plan": p.plan, "role": p.role},
              "API key is valid")


app = build_app(router)
lambda_handler = lambda_entry(app)
