"""POST /api/create-user, GET /api/profiles, PUT /api/profiles/{profileId}."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object, parse_model, query
from lambdakit.openapi import doc
from lambdakit.pagination import page_request

from ..http import build_app, lambda_entry, ok, paginated
from ..identity import CLIENT_ADMIN, STUDENT, SUPER_ADMIN, require, signed_in
from ..identity.reads import RouteRequest, declare, read_with_auth
from . import service

router = APIGatewayHttpRouter()


@router.post("/api/create-user", summary="Create a user (identity account, profile and role)",
             description="CA for their own tenant, SA for any. Strict rate limit.",
             middlewares=[require(SUPER_ADMIN, CLIENT_ADMIN)],
             openapi_extensions=doc(body="exams.users.models:CreateUser", response="exams.users.models:CreatedUser", status=201, errors=(409, 503)))
def create_user():
    from .models import CreateUser  # the request models: only the write routes (issue 21)

    body = parse_model(CreateUser, json_object(router))
    return ok(service.create_user(signed_in(router), body), "User created", status=201)


@router.get("/api/profiles", summary="List profiles (tenant-restricted for client admins)",
            middlewares=[require(SUPER_ADMIN, CLIENT_ADMIN, STUDENT)],
            openapi_extensions=doc(query="exams.users.models:ProfileQuery", response="exams.users.models:Profile", paginated=True, errors=(503,)))
def list_profiles():
    req = page_request(query(router, "page"), query(router, "limit"), default_limit=20, max_limit=100)
    role = query(router, "role") or None
    items, meta = service.list_profiles(signed_in(router), query(router, "client_id") or None, role, req,
                                        have=read_with_auth(router))
    return paginated(items, meta)


@router.put("/api/profiles/<profileId>", summary="Update a profile",
            description="Own profile, or any profile of the tenant for its admin; only SA changes role/client.",
            middlewares=[require(SUPER_ADMIN, CLIENT_ADMIN, STUDENT)],
            openapi_extensions=doc(body="exams.users.models:UpdateProfile", response="exams.users.models:Profile", errors=(409, 503)))
def update_profile(profileId: str):
    from .models import UpdateProfile

    body = parse_model(UpdateProfile, json_object(router))
    return ok(service.update_profile(signed_in(router), profileId, body), "Profile updated")


def _list_total(req: RouteRequest) -> list[tuple[str, str]]:
    """The list's total: the counters of the tenant the query names (a super admin's, or a client
    admin's own: another tenant's is refused before it is used), or without one the global counters
    (a super admin's list; a client admin's is their own tenant's, unknown before the profile is read:
    read in vain on this process's first request of theirs only, ``RouteRequest.maybe_super_admin``)."""
    from ..stats import counters

    if req.query.get("client_id"):
        cid = req.arg("client_id")
        return counters.keys(cid) if cid else []
    return counters.keys(None) if req.maybe_super_admin else []


declare("GET /api/profiles", _list_total)

app = build_app(router)
lambda_handler = lambda_entry(app)
