"""POST/GET /api/proctoring/events."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import header, json_object, parse_model, query
from lambdakit.openapi import FILE_STORE_NOTE, doc
from lambdakit.pagination import page_meta, page_request

from ..http import build_app, lambda_entry, ok, paginated
from ..identity import optional_auth, principal
from ..identity.reads import RouteRequest, declare, read_with_auth
from . import service

router = APIGatewayHttpRouter()


def _token() -> str | None:
    return query(router, "attempt_token") or header(router, "x-attempt-token")


@router.post("/api/proctoring/events", summary="Record a proctoring event", middlewares=[optional_auth],
             description="201 for a recorded event, 200 with duplicate=true when the same type was recorded in the "
                         "last 30 s. Guests authenticate with attempt_token.",
             openapi_extensions=doc(body="exams.proctoring.models:EventIn", query="exams.apidoc:AttemptTokenQuery", response="exams.proctoring.models:EventOut", status=201, errors=(409, 503),
                                    also={200: "exams.proctoring.models:EventOut"},  # the de-duplicated event
                                    notes={503: "S3 busy or unreachable while storing the evidence image or signing its link: no event is recorded, "
                                                "the risk score is unchanged. " + FILE_STORE_NOTE}))
def post_event():
    from .models import EventIn

    body = parse_model(EventIn, json_object(router))
    data, created = service.record_event(principal(router), _token(), body.model_dump())
    return ok(data, "Event recorded" if created else "Duplicate event ignored", 201 if created else 200)


@router.get("/api/proctoring/events", summary="Proctoring events of an attempt (paginated)", middlewares=[optional_auth],
            openapi_extensions=doc(query="exams.proctoring.models:EventListQuery", response="exams.proctoring.models:EventOut", paginated=True, errors=(503,),
                                   notes={503: "S3 busy or unreachable while signing the evidence links. " + FILE_STORE_NOTE}))
def list_events():
    req = page_request(query(router, "page"), query(router, "limit"), default_limit=20, max_limit=100)
    items, total, nxt = service.list_events(principal(router), _token(), query(router, "attempt_id"), page=req.page,
                                            limit=req.limit, cursor=query(router, "cursor"),
                                            have=read_with_auth(router))
    return paginated(items, page_meta(req, total), next_cursor=nxt)


def _attempt(req: RouteRequest) -> list[tuple[str, str]]:
    """The attempt the events belong to (strongly consistent, as the route reads it); authorised
    by the route as one it read (token, tenant, owner)."""
    from ..attempts import repository as attempts_repo

    aid = req.arg("attempt_id")
    return [attempts_repo.attempt_key(aid)] if aid else []


declare("GET /api/proctoring/events", _attempt, consistent=True)

app = build_app(router)
lambda_handler = lambda_entry(app)
