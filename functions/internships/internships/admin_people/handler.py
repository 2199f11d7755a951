"""Admin people routes: users, users-list, roles, students, leads, activity logs,
fix-google-avatars (one Lambda: AdminPeopleFunction)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object, parse_model

from .. import activity
from ..activity import service as activity_service
from ..admin_common.http import filters, page_params, paginated
from ..auth import principal, require_permission, require_roles
from ..http import build_app, lambda_entry, ok
from . import roles
from .models import RoleUpdate

router = APIGatewayHttpRouter()


# ---------------------------------------------------------------- roles
@router.get("/api/admin/roles", middlewares=[require_permission("manage_roles")],
            summary="Role → permission table",
            description="Every role with its effective permissions, its defaults and whether it is customised, "
                        "plus the permission catalogue.")
def list_roles():
    return ok({"success": True, **roles.list_roles()})


@router.get("/api/admin/roles/<role>", middlewares=[require_permission("manage_roles")],
            summary="One role's permissions")
def get_role(role: str):
    return ok({"success": True, "role": roles.describe(role)})


@router.put("/api/admin/roles/<role>", middlewares=[require_roles("super_admin")],
            summary="Replace a role's permissions (super_admin only)",
            description="Body {permissions: [..]} replaces the set; {reset: true} restores the defaults; "
                        "optional version for optimistic concurrency (409 on mismatch). manage_users and "
                        "manage_roles stay super_admin only.")
def put_role(role: str):
    body = parse_model(RoleUpdate, json_object(router))
    me = principal(router)
    return ok({"success": True, "role": roles.update(me.user_id, role, body.permissions, reset=body.reset,
                                                     version=body.version)})


# ---------------------------------------------------------------- activity logs
@router.get("/api/admin/activity-logs", middlewares=[require_permission("view_activity_logs")],
            summary="Admin activity log",
            description="Newest first. Query page, limit, admin_id, action_type, entity_type, search, date_from, "
                        "date_to (ISO dates; date_to inclusive), cursor.")
def activity_logs():
    req, cursor = page_params(router)
    f = filters(router, "admin_id", "action_type", "entity_type", "search", "date_from", "date_to")
    dims = {k: f[k] for k in ("admin_id", "action_type", "entity_type") if k in f}
    logs, total, exact, nxt = activity_service.list_logs(
        dims, search=f.get("search"), date_from=f.get("date_from"), date_to=f.get("date_to"),
        offset=req.offset, limit=req.limit, cursor=cursor)
    return ok(paginated("logs", logs, req, total, nxt, exact))


app = build_app(router)
lambda_handler = lambda_entry(app)
