"""GET/PUT /api/settings and GET /api/superadmin/audit-logs (super admin)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object, parse_model, query
from lambdakit.openapi import doc
from lambdakit.pagination import page_request

from ..controls import platform
from ..http import build_app, lambda_entry, ok, paginated
from ..identity import SUPER_ADMIN, require, signed_in
from ..identity.reads import RouteRequest, declare, read_with_auth
from ..settings import settings
from . import auditlog

router = APIGatewayHttpRouter()


@router.get("/api/settings", summary="Platform settings", middlewares=[require(SUPER_ADMIN)],
            openapi_extensions=doc(response="exams.admin.models:PlatformSettings", errors=(503,)))
def get_settings():
    # the settings item, read with authentication (maintenance mode)
    return ok(platform.current(read_with_auth(router)), "Settings")


@router.put("/api/settings", summary="Update platform settings",
            description="Partial update of maintenance_mode, announcement_banner, registration_enabled.",
            middlewares=[require(SUPER_ADMIN)],
            openapi_extensions=doc(body="exams.admin.models:SettingsUpdate", response="exams.admin.models:PlatformSettings", errors=(409, 503)))
def put_settings():
    from .models import SettingsUpdate

    body = parse_model(SettingsUpdate, json_object(router))
    changes = body.model_dump(exclude_unset=True)
    for k in ("maintenance_mode", "registration_enabled"):
        if k in changes and changes[k] is None:
            changes.pop(k)
    if changes.get("announcement_banner") == "":
        changes["announcement_banner"] = None
    return ok(platform.update(changes, actor_id=signed_in(router).user_id), "Settings updated")


@router.get("/api/superadmin/audit-logs", summary="Audit log (paginated, 50 per page by default)",
            middlewares=[require(SUPER_ADMIN)],
            openapi_extensions=doc(query="exams.admin.models:AuditLogQuery", response="exams.admin.models:AuditLogRow", paginated=True, errors=(503,)))
def audit_logs():
    req = page_request(query(router, "page"), query(router, "limit"), default_limit=settings().audit_page_size,
                       max_limit=200)
    items, meta = auditlog.list_logs(req, user_id=query(router, "user_id") or None,
                                     action=query(router, "action") or None,
                                     entity_type=query(router, "entity_type") or None,
                                     start_date=query(router, "start_date") or None,
                                     end_date=query(router, "end_date") or None,
                                     have=read_with_auth(router))
    return paginated(items, meta)


def _settings_item(_req: RouteRequest) -> list[tuple[str, str]]:
    """The platform settings: authentication reads the item anyway (maintenance mode)."""
    from ..controls.repository import SETTINGS_KEY

    return [SETTINGS_KEY]


def _audit_total(req: RouteRequest) -> list[tuple[str, str]]:
    """The list's total, when it has one (``auditlog.total_counter``): the counter's shards. A filter
    too long for a key: none (the route reads what it needs itself)."""
    from ..audit import repository

    named = {k: req.query.get(k) or None for k in ("user_id", "action", "entity_type")}
    if any(v is not None and req.arg(k) is None for k, v in named.items()):
        return []
    counter = auditlog.total_counter(**named, dated=bool(req.query.get("start_date") or req.query.get("end_date")))
    return repository.count_keys(counter) if counter else []


declare("GET /api/settings", _settings_item)
declare("GET /api/superadmin/audit-logs", _audit_total)


app = build_app(router)
lambda_handler = lambda_entry(app)
