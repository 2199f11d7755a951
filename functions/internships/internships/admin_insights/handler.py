"""Admin insights routes: analytics (cached 60 s), engagement tiles, conversion funnel,
CSV export, platform settings (one Lambda: AdminInsightsFunction)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object

from ..auth import principal, require_permission
from ..http import build_app, lambda_entry, ok
from . import site_settings

router = APIGatewayHttpRouter()


@router.get("/api/admin/settings", middlewares=[require_permission("manage_settings")],
            summary="Platform settings (six keys)")
def get_settings():
    return ok({"success": True, "settings": site_settings.current()})


@router.post("/api/admin/settings", middlewares=[require_permission("manage_settings")],
             summary="Update platform settings",
             description="Body: any of siteName, siteEmail, sitePhone, siteAddress, maintenanceMode (boolean), "
                         "maxEnrollmentsPerStudent (integer 1-50). Any other key is 400. Returns all six.")
def post_settings():
    me = principal(router)
    return ok({"success": True, "settings": site_settings.update(me.user_id, json_object(router))})


app = build_app(router)
lambda_handler = lambda_entry(app)
