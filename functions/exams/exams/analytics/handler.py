"""GET /api/stats, /api/stats/dashboard, /api/analytics/tests/{id}, /api/analytics/students/{id}."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import query
from lambdakit.openapi import doc

from ..http import build_app, lambda_entry, ok
from ..identity import CLIENT_ADMIN, STUDENT, SUPER_ADMIN, require, signed_in
from . import service

router = APIGatewayHttpRouter()
ADMINS = (SUPER_ADMIN, CLIENT_ADMIN)


@router.get("/api/stats", summary="Role-specific dashboard metrics (SA platform-wide, CA own tenant)",
            middlewares=[require(*ADMINS)], description="Super admins may pass client_id to see one tenant.",
            openapi_extensions=doc(query="exams.apidoc:ClientScopeQuery", response="exams.analytics.models:Dashboard", errors=(503,)))
def stats():
    return ok(service.dashboard(signed_in(router), query(router, "client_id")))


@router.get("/api/stats/dashboard", summary="Admin dashboard (same data as /api/stats)", middlewares=[require(*ADMINS)],
            openapi_extensions=doc(query="exams.apidoc:ClientScopeQuery", response="exams.analytics.models:Dashboard", errors=(503,)))
def stats_dashboard():
    return ok(service.dashboard(signed_in(router), query(router, "client_id")))


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


app = build_app(router)
lambda_handler = lambda_entry(app)
