"""Admin insights routes: analytics (cached 60 s), engagement tiles, conversion funnel,
CSV export, platform settings (one Lambda: AdminInsightsFunction)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import ValidationFailed
from lambdakit.http import file_response, json_object, parse_model, query
from lambdakit.openapi import FILE_STORE_NOTE, doc

from ..auth import Reads, principal, read_with_auth, require_permission
from ..http import build_app, lambda_entry, ok
from . import analytics

router = APIGatewayHttpRouter()
_M = "internships.admin_insights.models:"


@router.get("/api/admin/settings", middlewares=[require_permission("manage_settings")],
            openapi_extensions=doc(response=_M + "SettingsOut"),
            summary="Platform settings (six keys)")
def get_settings():
    from . import site_settings

    return ok({"success": True, "settings": site_settings.current()})


@router.post("/api/admin/settings", middlewares=[require_permission("manage_settings")],
             openapi_extensions=doc(body=_M + "SiteSettingsUpdate", response=_M + "SettingsOut"),
             summary="Update platform settings",
             description="Body: any of siteName, siteEmail, sitePhone, siteAddress, maintenanceMode (boolean), "
                         "maxEnrollmentsPerStudent (integer, or null: no cap, the default); bounds in the body's schema. Any other key "
                         "is 400. "
                         "Returns all six.")
def post_settings():
    from . import site_settings

    me = principal(router)
    return ok({"success": True, "settings": site_settings.update(me.user_id, json_object(router))})


@router.get("/api/admin/analytics", middlewares=[require_permission("view_analytics")],
            openapi_extensions=doc(query=_M + "AnalyticsQuery", response=_M + "AnalyticsOut"),
            summary="Platform or per-domain analytics (cached 60 s)",
            description="Query type=platform (default) or domains. Answered from counters; the result is cached "
                        "60 s for every caller. Headers: X-Cache (HIT|MISS), X-Cache-Age (seconds), "
                        "Cache-Control: private, max-age=<remaining>.")
def get_analytics():
    kind = (query(router, "type") or "platform").strip()
    if kind not in analytics.COMPUTE:
        raise ValidationFailed("type must be platform or domains", fields={"type": "Must be platform or domains"})
    data, age, hit = analytics.cached(kind)
    from ..settings import settings

    remaining = max(0, settings().analytics_cache_seconds - age)
    return ok({"success": True, "type": kind, "data": data, "cacheAge": age},
              headers={"X-Cache": "HIT" if hit else "MISS", "X-Cache-Age": str(age), "Age": str(age),
                       "Cache-Control": f"private, max-age={remaining}"})


# the counters these routes answer from are read with the caller's user item (one round trip fewer)
@router.get("/api/admin/analytics/engagement",
            middlewares=[require_permission("view_analytics", reads=Reads(lambda app: analytics.engagement_keys()))],
            openapi_extensions=doc(response=_M + "EngagementOut"),
            summary="Engagement tiles",
            description="Six tiles: totalStudents, activeEnrollments, milestoneSubmissions, completionRate (0-1), "
                        "averageCompletionTime (days), revenue.")
def get_engagement():
    return ok({"success": True, **analytics.engagement(read_with_auth(router))})


@router.get("/api/admin/analytics/conversion",
            middlewares=[require_permission("view_analytics", reads=Reads(lambda app: analytics.conversion_keys()))],
            openapi_extensions=doc(response=_M + "ConversionOut"),
            summary="Conversion funnel",
            description="visitors (unique daily visitors from POST /api/analytics/visit) → signups (student "
                        "accounts) → enrollments → completions, with step rates.")
def get_conversion():
    return ok({"success": True, **analytics.conversion(read_with_auth(router))})


@router.post("/api/admin/export", middlewares=[require_permission("export_data")],
             openapi_extensions=doc(body=_M + "ExportRequest", response=_M + "ExportLink", also_content=("text/csv",),
                                    notes={503: "S3 busy or unreachable while streaming the export (the upload is aborted) or signing its "
                                                "link: no export is recorded. " + FILE_STORE_NOTE}),
             summary="CSV export",
             description="Body {entity: users|enrollments|certificates|domains, filters: {...}, delivery: "
                         "auto|direct|s3}. Small results (auto) download directly as text/csv; large ones are "
                         "streamed to S3 and the JSON response carries a presigned url (15 min). Cells a "
                         "spreadsheet would read as formulas are prefixed with a quote.")
def post_export():
    from . import export
    from .models import ExportRequest

    body = parse_model(ExportRequest, json_object(router))
    result = export.run(principal(router).user_id, body.entity, body.filters, body.delivery)
    if result["mode"] == "direct":
        return file_response(result["body"].decode("utf-8"), "text/csv; charset=utf-8", result["filename"],
                             headers={"X-Export-Rows": str(result["rows"])})
    return ok({"success": True, "mode": "s3", "url": result["url"], "expiresAt": result["expiresAt"],
               "rows": result["rows"], "filename": result["filename"]})


app = build_app(router)
lambda_handler = lambda_entry(app)
