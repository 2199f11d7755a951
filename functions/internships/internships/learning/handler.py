"""Student learning: GET /api/milestones, POST /api/milestones/{id}/submit, GET /api/resources/{enrollmentId}."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object, parse_model, query
from lambdakit.openapi import FILE_STORE_NOTE, doc

from ..auth import Reads, principal, read_with_auth, require_user, require_user_reading, route_arg
from ..http import build_app, lambda_entry, ok
from . import repository as repo
from . import service

router = APIGatewayHttpRouter()
# the enrollment a route reads first, read with the caller's user item (one round trip)
BY_QUERY = Reads(lambda app: [k] if (k := repo.enrollment_key(query(app, "enrollmentId"))) else [])
BY_PATH = Reads(lambda app: [k] if (k := repo.enrollment_key(route_arg(app, "enrollmentId"))) else [])


@router.get("/api/milestones", summary="Milestones of an enrollment (query enrollmentId), with locks",
            middlewares=[require_user_reading(BY_QUERY)],
             openapi_extensions=doc(query="internships.learning.models:MilestonesQuery", response="internships.learning.models:MilestoneList"))
def list_milestones():
    return ok({"success": True, **service.list_milestones(principal(router), query(router, "enrollmentId"),
                                                          read_with_auth(router))})


@router.post("/api/milestones/<id>/submit", summary="Submit a milestone (notes ≥ 10 characters)",
             middlewares=[require_user],
             description="Needs status pending or rejected, the previous milestone reviewed and the enrollment "
                         "active; 409 otherwise.",
             openapi_extensions=doc(body="internships.learning.models:SubmitMilestone", response="internships.learning.models:MilestoneSubmitted", errors=(409,)))
def submit(id: str):  # noqa: A002
    from .models import SubmitMilestone

    data = parse_model(SubmitMilestone, json_object(router))
    return ok({"success": True, "message": "Milestone submitted",
               "milestone": service.submit(principal(router), id, data)})


@router.get("/api/resources/<enrollmentId>", summary="Learning resources of the enrollment's domain, by week",
            middlewares=[require_user_reading(BY_PATH)],
             openapi_extensions=doc(response="internships.learning.models:ResourcesResponse",
                                    notes={503: "S3 busy or unreachable while signing the files' download links. " + FILE_STORE_NOTE}))
def resources(enrollmentId: str):  # noqa: N803
    return ok({"success": True, **service.resources(principal(router), enrollmentId, read_with_auth(router))})


app = build_app(router)
lambda_handler = lambda_entry(app)
