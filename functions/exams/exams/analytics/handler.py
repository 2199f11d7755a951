"""GET /api/stats, /api/stats/dashboard, /api/analytics/tests/{id}, /api/analytics/students/{id}."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import query
from lambdakit.openapi import doc

from ..http import build_app, lambda_entry, ok
from ..identity import CLIENT_ADMIN, STUDENT, SUPER_ADMIN, require, signed_in
from ..identity.reads import RouteRequest, declare, read_with_auth
from . import service

router = APIGatewayHttpRouter()
ADMINS = (SUPER_ADMIN, CLIENT_ADMIN)


@router.get("/api/stats", summary="Role-specific dashboard metrics (SA platform-wide, CA own tenant)",
            middlewares=[require(*ADMINS)], description="Super admins may pass client_id to see one tenant.",
            openapi_extensions=doc(query="exams.apidoc:ClientScopeQuery", response="exams.analytics.models:Dashboard", errors=(503,)))
def stats():
    return ok(service.dashboard(signed_in(router), query(router, "client_id"), have=read_with_auth(router)))


@router.get("/api/stats/dashboard", summary="Admin dashboard (same data as /api/stats)", middlewares=[require(*ADMINS)],
            openapi_extensions=doc(query="exams.apidoc:ClientScopeQuery", response="exams.analytics.models:Dashboard", errors=(503,)))
def stats_dashboard():
    return ok(service.dashboard(signed_in(router), query(router, "client_id"), have=read_with_auth(router)))


@router.get("/api/analytics/tests/<testId>", summary="Test analytics with item analysis (Moodle definitions)",
            middlewares=[require(*ADMINS)],
            openapi_extensions=doc(response="exams.analytics.models:TestAnalytics", errors=(503,)))
def test_analytics(testId: str):
    return ok(service.test_analytics(signed_in(router), testId))


@router.get("/api/analytics/students/<studentId>", summary="A student's attempts, average, per-test scores and trend",
            middlewares=[require(SUPER_ADMIN, CLIENT_ADMIN, STUDENT)],
            openapi_extensions=doc(response="exams.analytics.models:StudentAnalytics", errors=(503,)))
def student_analytics(studentId: str):
    return ok(service.student_analytics(signed_in(router), studentId))


def _dashboard_reads(req: RouteRequest) -> list[tuple[str, str]]:
    """The dashboard's first read: the counters and today's activity of the tenant the query names
    (a super admin's, or a client admin's own: another tenant's is refused before it is used), or
    without one the global ones (a super admin's dashboard; a client admin's is their own tenant's,
    unknown before the profile is read: read in vain on this process's first request of theirs only,
    ``RouteRequest.maybe_super_admin``)."""
    from lambdakit import clock

    from ..stats import counters
    from . import repository

    if req.query.get("client_id"):
        cid = req.arg("client_id")
        if not cid:
            return []
    elif req.maybe_super_admin:
        cid = None
    else:
        return []
    return [*counters.keys(cid), repository.activity_key(clock.today(), cid)]


declare("GET /api/stats", _dashboard_reads)
declare("GET /api/stats/dashboard", _dashboard_reads)

app = build_app(router)
lambda_handler = lambda_entry(app)
