"""GET/POST /api/clients, PUT /api/clients/{clientId} (super admin)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import json_object, parse_model, query
from lambdakit.openapi import doc
from lambdakit.pagination import page_request

from ..http import build_app, lambda_entry, ok, paginated
from ..identity import SUPER_ADMIN, require, signed_in
from ..identity.reads import declare, read_with_auth
from . import service

router = APIGatewayHttpRouter()


@router.get("/api/clients", summary="List clients", description="Also carries the spec's `clients` key.",
            middlewares=[require(SUPER_ADMIN)],
            openapi_extensions=doc(query="exams.apidoc:PageQuery", response="exams.clients.models:Client", paginated=True, errors=(503,)))
def list_clients():
    req = page_request(query(router, "page"), query(router, "limit"), default_limit=20, max_limit=100)
    items, meta = service.list_clients(req, have=read_with_auth(router))
    return paginated(items, meta, also_as="clients")


@router.post("/api/clients", summary="Create a client with its subscription and limits",
             middlewares=[require(SUPER_ADMIN)],
             openapi_extensions=doc(body="exams.clients.models:CreateClient", response="exams.clients.models:ClientDetail", status=201, errors=(409, 503)))
def create_client():
    from .models import CreateClient  # the request models: only the write routes (issue 21)

    body = parse_model(CreateClient, json_object(router))
    return ok(service.create_client(signed_in(router), body), "Client created", status=201)


@router.put("/api/clients/<clientId>", summary="Update a client (name, address, logo, status, limits)",
            middlewares=[require(SUPER_ADMIN)],
            openapi_extensions=doc(body="exams.clients.models:UpdateClient", response="exams.clients.models:ClientDetail", errors=(409, 503)))
def update_client(clientId: str):
    from .models import UpdateClient

    body = parse_model(UpdateClient, json_object(router))
    return ok(service.update_client(signed_in(router), clientId, body), "Client updated")


def _global_counters(_req):
    from ..stats import counters

    return counters.keys(None)


# the list's total (the global counters) is read with authentication (a super admin's route)
declare("GET /api/clients", _global_counters)

app = build_app(router)
lambda_handler = lambda_entry(app)
