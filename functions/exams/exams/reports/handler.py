"""GET /api/attempts/{attemptId}/report: the attempt as a three-sheet XLSX."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import file_response, header, query
from lambdakit.openapi import doc

from ..http import build_app, lambda_entry
from ..identity import optional_auth, principal
from . import service

router = APIGatewayHttpRouter()


@router.get("/api/attempts/<attemptId>/report", summary="Attempt report (XLSX: Summary, Detailed Questions, Analytics)",
            middlewares=[optional_auth],
            description="While the test's results are hidden from the requester (a student or guest, "
                        "`show_results_after_submission` off and results not published), no sheet or chart "
                        "carries anything that depends on correctness: no score, percentage, result, correct "
                        "answer, status, marks awarded, correct ratio, facility or discrimination index "
                        "(docs/exams-insight.md).",
            openapi_extensions=doc(query="exams.apidoc:AttemptTokenQuery", content_type=service.XLSX_MIME, errors=(409, 503)))
def attempt_report(attemptId: str):
    token = query(router, "attempt_token") or header(router, "x-attempt-token")
    data, filename = service.report(principal(router), attemptId, token)
    return file_response(data, service.XLSX_MIME, filename)


app = build_app(router)
lambda_handler = lambda_entry(app)
