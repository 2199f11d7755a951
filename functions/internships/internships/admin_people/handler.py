"""Admin people routes: users, users-list, roles, students, leads, activity logs,
fix-google-avatars (one Lambda: AdminPeopleFunction)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object, parse_model
from lambdakit.listing import filters, list_body, list_request
from lambdakit.openapi import doc

from ..auth import Reads, principal, read_with_auth, require_permission, require_roles
from ..http import build_app, lambda_entry, ok
from . import users

router = APIGatewayHttpRouter()
_M = "internships.admin_people.models:"


# ---------------------------------------------------------------- roles
@router.get("/api/admin/roles", middlewares=[require_permission("manage_roles")],
            openapi_extensions=doc(response=_M + "RolesOut"),
            summary="Role → permission table",
            description="Every role with its effective permissions, its defaults and whether it is customised, "
                        "plus the permission catalogue.")
def list_roles():
    from . import roles

    return ok({"success": True, **roles.list_roles()})


@router.get("/api/admin/roles/<role>", middlewares=[require_permission("manage_roles")],
            openapi_extensions=doc(response=_M + "RoleOut"),
            summary="One role's permissions")
def get_role(role: str):
    from . import roles

    return ok({"success": True, "role": roles.describe(role)})


@router.put("/api/admin/roles/<role>", middlewares=[require_roles("super_admin")],
            openapi_extensions=doc(body=_M + "RoleUpdate", response=_M + "RoleOut", errors=(409,)),
            summary="Replace a role's permissions (super_admin only)",
            description="Body {permissions: [..]} replaces the set; {reset: true} restores the defaults; "
                        "optional version for optimistic concurrency (409 on mismatch). manage_users and "
                        "manage_roles stay super_admin only.")
def put_role(role: str):
    from . import roles
    from .models import RoleUpdate

    body = parse_model(RoleUpdate, json_object(router))
    me = principal(router)
    return ok({"success": True, "role": roles.update(me.user_id, role, body.permissions, reset=body.reset,
                                                     version=body.version)})


# ---------------------------------------------------------------- activity logs
@router.get("/api/admin/activity-logs", middlewares=[require_permission("view_activity_logs")],
            openapi_extensions=doc(query=_M + "ActivityQuery", response=_M + "ActivityLog", list_key="logs",
                                   paginated=True),
            summary="Admin activity log",
            description="Newest first. Query page, limit, admin_id, action_type, entity_type, search, date_from, "
                        "date_to (ISO dates; date_to inclusive), cursor.")
def activity_logs():
    from ..activity import service as activity_service

    q = list_request(router, "admin_id", "action_type", "entity_type", "search", "date_from", "date_to")
    dims = {k: q.filters[k] for k in ("admin_id", "action_type", "entity_type") if k in q.filters}
    logs, total, exact, nxt = activity_service.list_logs(
        dims, search=q.get("search"), date_from=q.get("date_from"), date_to=q.get("date_to"), **q.window)
    return ok(list_body("logs", logs, q, total, nxt, exact))


# ---------------------------------------------------------------- users (super_admin: manage_users)
def _me():
    return principal(router).user_id


def _users_total_keys(app) -> list[tuple[str, str]]:
    q = filters(app, "search", "role")
    return users.list_total_keys(q.get("role"), q.get("search"))


# the list's total (a counter item, without a search) is read with the caller's user item
@router.get("/api/admin/users", middlewares=[require_permission("manage_users", reads=Reads(_users_total_keys))],
            openapi_extensions=doc(query=_M + "UsersQuery", response=_M + "AdminUser", list_key="users",
                                   paginated=True),
            summary="List users", description="Query page, limit, search (name, email, phone), role, cursor.")
def list_users():
    q = list_request(router, "search", "role")
    items, total, exact, nxt = users.list_users(role=q.get("role"), search=q.get("search"), **q.window,
                                                read=read_with_auth(router))
    return ok(list_body("users", items, q, total, nxt, exact))


@router.post("/api/admin/users", middlewares=[require_permission("manage_users")],
             openapi_extensions=doc(body=_M + "UserCreate", response=_M + "UserOut", status=201, errors=(409,)),
             summary="Create a staff user",
             description="Body {email, password, name, role (admin|super_admin|project_admin|reviewer; default "
                         "reviewer), phone?}. 201 with the user; 409 duplicate email.")
def create_user():
    from .models import UserCreate

    body = parse_model(UserCreate, json_object(router))
    return ok({"success": True, "user": users.create(_me(), body.model_dump())}, 201)


@router.get("/api/admin/users/<id>",
            openapi_extensions=doc(response=_M + "UserOut"),
            middlewares=[require_permission("manage_users")], summary="One user")
def get_user(id: str):
    return ok({"success": True, "user": users.get(id)})


@router.put("/api/admin/users/<id>", middlewares=[require_permission("manage_users")],
            openapi_extensions=doc(body=_M + "UserUpdate", response=_M + "UserOut", errors=(409,)),
            summary="Update a user's profile",
            description="Any profile field, plus disabled (boolean). Email and role are not editable here; "
                        "null clears an optional field.")
def update_user(id: str):
    from .models import UserUpdate

    body = parse_model(UserUpdate, json_object(router))
    return ok({"success": True, "user": users.update(_me(), id, body.model_dump(exclude_unset=True))})


@router.delete("/api/admin/users/<id>", middlewares=[require_permission("manage_users")],
               openapi_extensions=doc(response=_M + "Deleted", errors=(409,)),
               summary="Delete a user", description="Not yourself, and never the last super_admin.")
def delete_user(id: str):
    users.delete(_me(), id)
    return ok({"success": True, "message": "User deleted"})


@router.put("/api/admin/users/<id>/role", middlewares=[require_permission("manage_users")],
            openapi_extensions=doc(body=_M + "RoleChange", response=_M + "UserOut", errors=(409,)),
            summary="Change a user's role", description="Body {role}. Not your own; never the last super_admin.")
def set_user_role(id: str):
    from .models import RoleChange

    body = parse_model(RoleChange, json_object(router))
    return ok({"success": True, "user": users.set_role(_me(), id, body.role)})


@router.get("/api/admin/users-list", middlewares=[require_permission("view_users")],
            openapi_extensions=doc(query=_M + "UsersQuery", response=_M + "UserBrief", list_key="users",
                                   paginated=True),
            summary="Compact user list", description="id, name, email, role; query page, limit, search, role.")
def users_list():
    q = list_request(router, "search", "role")
    items, total, exact, nxt = users.users_list(role=q.get("role"), search=q.get("search"), **q.window)
    return ok(list_body("users", items, q, total, nxt, exact))


@router.get("/api/admin/students", middlewares=[require_permission("view_students")],
            openapi_extensions=doc(query=_M + "StudentsQuery", response=_M + "StudentBrief", list_key="students",
                                   paginated=True),
            summary="Simplified student list", description="Query page, limit, search, cursor.")
def students():
    q = list_request(router, "search")
    items, total, exact, nxt = users.students(search=q.get("search"), **q.window)
    return ok(list_body("students", items, q, total, nxt, exact))


@router.post("/api/admin/fix-google-avatars", middlewares=[require_permission("manage_users")],
             openapi_extensions=doc(body=_M + "FixAvatars", response=_M + "FixAvatarsOut"),
             summary="Proxy Google avatar URLs",
             description="Rewrites avatar_url values on Google's image host to /api/proxy-image?url=<encoded>. "
                         "Body (optional) {dryRun, limit}. Idempotent.")
def fix_google_avatars():
    from .models import FixAvatars

    body = parse_model(FixAvatars, json_object(router, required=False))
    return ok({"success": True, **users.fix_google_avatars(_me(), dry_run=body.dryRun, limit=body.limit)})


# ---------------------------------------------------------------- leads (manage_leads)
@router.get("/api/admin/leads", middlewares=[require_permission("manage_leads")],
            openapi_extensions=doc(query=_M + "LeadsQuery", response=_M + "Lead", list_key="leads", paginated=True),
            summary="List leads",
            description="Query page, limit, domain, status (new|contacted|qualified|converted|lost), search, "
                        "date_from, date_to, cursor.")
def list_leads():
    from . import leads

    q = list_request(router, "domain", "status", "search", "date_from", "date_to")
    items, total, exact, nxt = leads.list_leads(status=q.get("status"), domain=q.get("domain"),
                                                search=q.get("search"), date_from=q.get("date_from"),
                                                date_to=q.get("date_to"), **q.window)
    return ok(list_body("leads", items, q, total, nxt, exact))


@router.post("/api/admin/leads/<id>/convert", middlewares=[require_permission("manage_leads")],
             openapi_extensions=doc(body=_M + "LeadConvert", response=_M + "LeadConvertOut", status=201,
                                    errors=(409,)),
             summary="Convert a lead into a student account",
             description="Optional body {email, name, phone} fills what the lead lacks. Creates the student, "
                         "emails a set-password link (also returned), marks the lead converted. 409 if already "
                         "converted or the email has an account.")
def convert_lead(id: str):
    from . import leads
    from .models import LeadConvert

    body = parse_model(LeadConvert, json_object(router, required=False))
    return ok({"success": True, **leads.convert(_me(), id, body.model_dump(exclude_none=True))}, 201)


@router.patch("/api/admin/leads/<id>", middlewares=[require_permission("manage_leads")],
              openapi_extensions=doc(body=_M + "LeadPatch", response=_M + "LeadOut", errors=(409,)),
              summary="Update a lead", description="Body {status?, notes?}; status converted only via convert.")
def patch_lead(id: str):
    from . import leads
    from .models import LeadPatch

    body = parse_model(LeadPatch, json_object(router))
    changes = body.model_dump(exclude_unset=True)
    if "status" in changes and changes["status"] is None:
        changes.pop("status")
    return ok({"success": True, "lead": leads.update(_me(), id, changes)})


@router.delete("/api/admin/leads/<id>",
               openapi_extensions=doc(response=_M + "Deleted"),
               middlewares=[require_permission("manage_leads")], summary="Delete a lead")
def delete_lead(id: str):
    from . import leads

    leads.delete(_me(), id)
    return ok({"success": True, "message": "Lead deleted"})


app = build_app(router)
lambda_handler = lambda_entry(app)
