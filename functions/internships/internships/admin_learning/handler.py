"""Admin learning routes: enrollments, submissions, resources, certificate templates,
certificates (list, revoke, un-revoke), invoices (one Lambda: AdminLearningFunction)."""
from __future__ import annotations

from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import ValidationFailed
from lambdakit.http import header, int_query, json_object, parse_model, raw_body
from lambdakit.listing import list_body, list_request
from lambdakit.openapi import FILE_STORE_NOTE, doc

from ..admin_common.dates import iso_bounds
from ..auth import Reads, principal, read_with_auth, require_permission
from ..http import build_app, lambda_entry, ok
from . import submissions

router = APIGatewayHttpRouter()
_M = "internships.admin_learning.models:"


def _me() -> str:
    return principal(router).user_id


# ---------------------------------------------------------------- enrollments (manage_enrollments)
@router.get("/api/admin/enrollments", middlewares=[require_permission("manage_enrollments")],
            openapi_extensions=doc(query=_M + "EnrollmentsQuery", response=_M + "AdminEnrollment",
                                   list_key="enrollments", paginated=True),
            summary="List enrollments",
            description="Query page, limit, status, search (student name/email, domain, id, coupon), domain_id, "
                        "payment_status, cursor. Newest first.")
def list_enrollments():
    from . import enrollments

    q = list_request(router, "status", "search", "domain_id", "payment_status")
    items, total, exact, nxt = enrollments.list_enrollments(
        status=q.get("status"), search=q.get("search"), domain_id=q.get("domain_id"),
        payment_status=q.get("payment_status"), **q.window)
    return ok(list_body("enrollments", items, q, total, nxt, exact))


@router.get("/api/admin/enrollments/<id>", middlewares=[require_permission("manage_enrollments")],
            openapi_extensions=doc(response=_M + "EnrollmentDetailOut"),
            summary="Enrollment detail with milestones")
def get_enrollment(id: str):
    from . import enrollments

    return ok({"success": True, "enrollment": enrollments.detail(id)})


@router.put("/api/admin/enrollments/<id>", middlewares=[require_permission("manage_enrollments")],
            openapi_extensions=doc(body=_M + "EnrollmentUpdate", response=_M + "EnrollmentOut", errors=(409,)),
            summary="Update an enrollment",
            description="Body {status?, admin_notes?, submission_email?}. Status moves pending→active, "
                        "pending|active→cancelled; completion only through approve.")
def put_enrollment(id: str):
    from . import enrollments
    from .models import EnrollmentUpdate

    body = parse_model(EnrollmentUpdate, json_object(router))
    return ok({"success": True, "enrollment": enrollments.update(_me(), id, body.model_dump(exclude_unset=True))})


@router.post("/api/admin/enrollments/<id>/repair-milestones", middlewares=[require_permission("manage_enrollments")],
             openapi_extensions=doc(response=_M + "RepairOut", errors=(409,)),
             summary="Re-create missing milestones",
             description="Creates the milestones of the domain plan the enrollment lacks; existing (reviewed or "
                         "not) are untouched. Idempotent.")
def repair(id: str):
    from . import enrollments

    return ok({"success": True, **enrollments.repair_milestones(_me(), id)})


# ---------------------------------------------------------------- submissions (review_milestones)
@router.get("/api/admin/submissions", middlewares=[require_permission("review_milestones")],
            openapi_extensions=doc(query=_M + "SubmissionsQuery", response=_M + "Submission",
                                   list_key="submissions", paginated=True),
            summary="Final-project submissions", description="Query page, limit, status (submitted|approved|"
                                                             "rejected), search, cursor.")
def list_submissions():
    q = list_request(router, "status", "search")
    items, total, exact, nxt = submissions.list_submissions(status=q.get("status"), search=q.get("search"),
                                                            **q.window)
    return ok(list_body("submissions", items, q, total, nxt, exact))


# the review queue's counters are read with the caller's user item (one round trip fewer)
@router.get("/api/admin/submissions/milestones",
            middlewares=[require_permission("review_milestones", reads=Reads(lambda app: submissions.counter_keys()))],
            openapi_extensions=doc(query=_M + "MilestoneSubmissionsQuery", response=_M + "MilestonePage"),
            summary="Milestone submissions (review queue)",
            description="Without status: every submitted (pending review), reviewed and rejected milestone, "
                        "newest status change first, each with its status. Query status (submitted|reviewed|"
                        "rejected|pending) narrows to one; enrollment_id, page, limit, cursor. The body also "
                        "carries pendingCount (submitted, awaiting review: the badge) and counts {submitted, "
                        "reviewed, rejected}.")
def list_milestone_submissions():
    q = list_request(router, "status", "enrollment_id")
    items, total, exact, nxt, counts = submissions.milestone_submissions(
        status=q.get("status"), enrollment_id=q.get("enrollment_id"), **q.window, read=read_with_auth(router))
    return ok(list_body("milestones", items, q, total, nxt, exact, pendingCount=counts["submitted"],
                        counts=counts))


@router.post("/api/admin/submissions/<id>/approve", middlewares=[require_permission("review_milestones")],
             openapi_extensions=doc(body=_M + "SubmissionDecision", response=_M + "DecisionOut", errors=(409,)),
             summary="Approve a final-project submission", description="id is the enrollment id; body {remarks?}.")
def approve_submission(id: str):
    from .models import SubmissionDecision

    body = parse_model(SubmissionDecision, json_object(router, required=False))
    return ok({"success": True, **submissions.decide(principal(router), id, True, body.remarks)})


@router.post("/api/admin/submissions/<id>/reject", middlewares=[require_permission("review_milestones")],
             openapi_extensions=doc(body=_M + "SubmissionDecision", response=_M + "DecisionOut", errors=(409,)),
             summary="Reject a final-project submission", description="Body {remarks} (required).")
def reject_submission(id: str):
    from .models import SubmissionDecision

    body = parse_model(SubmissionDecision, json_object(router, required=False))
    return ok({"success": True, **submissions.decide(principal(router), id, False, body.remarks)})


# ---------------------------------------------------------------- resources (manage_resources)
@router.get("/api/admin/resources", middlewares=[require_permission("manage_resources")],
            openapi_extensions=doc(query=_M + "ResourcesQuery", response=_M + "Resource", list_key="resources",
                                   paginated=True),
            summary="List resources", description="Query domain_id, week, resource_type, page, limit.")
def list_resources():
    from . import resources
    from .models import MAX_WEEK

    q = list_request(router, "domain_id", "resource_type")
    week = int_query(router, "week", 0, minimum=0, maximum=MAX_WEEK)
    items, total, exact, nxt = resources.list_resources(domain_id=q.get("domain_id"), week=week or None,
                                                        resource_type=q.get("resource_type"), **q.window)
    return ok(list_body("resources", items, q, total, nxt, exact))


@router.post("/api/admin/resources", middlewares=[require_permission("manage_resources")],
             openapi_extensions=doc(body=_M + "ResourceIn", response=_M + "ResourceOut", status=201),
             summary="Create a resource",
             description="Body {domain_id, week, position?, title, description?, resource_type, url | file_key, "
                         "is_active?}. 201.")
def create_resource():
    from . import resources
    from .models import ResourceIn

    body = parse_model(ResourceIn, json_object(router))
    return ok({"success": True, "resource": resources.create(_me(), body.model_dump())}, 201)


@router.post("/api/admin/resources/upload", middlewares=[require_permission("manage_resources")],
             openapi_extensions=doc(form={"file": "file", "resource_type": "string"}, response=_M + "UploadOut",
                                    status=201, errors=(413,),
                                    notes={503: "S3 busy or unreachable while storing the file or signing its link: no file is kept, no activity "
                                                "entry. " + FILE_STORE_NOTE}),
             summary="Upload a resource file (multipart)",
             description="multipart/form-data: file, resource_type. Stored in the files bucket; returns file_key "
                         "for POST /api/admin/resources and a short-lived download url.")
def upload_resource():
    from . import resources

    return ok({"success": True, **resources.upload(_me(), raw_body(router), header(router, "content-type"))}, 201)


@router.post("/api/admin/resources/sign", middlewares=[require_permission("manage_resources")],
             openapi_extensions=doc(body=_M + "SignRequest", response=_M + "SignOut",
                                    notes={503: "S3 busy or unreachable while signing the upload URL: no activity entry. " + FILE_STORE_NOTE}),
             summary="Presigned upload URL",
             description="Body {filename, content_type, resource_type?} → {uploadUrl, method PUT, headers, key}.")
def sign_resource():
    from . import resources
    from .models import SignRequest

    body = parse_model(SignRequest, json_object(router))
    return ok({"success": True, **resources.sign(_me(), body.filename, body.content_type, body.resource_type)})


@router.get("/api/admin/resources/<id>", middlewares=[require_permission("manage_resources")],
            openapi_extensions=doc(response=_M + "ResourceOut",
                                   notes={503: "S3 busy or unreachable while signing the file's download link. " + FILE_STORE_NOTE}),
            summary="One resource")
def get_resource(id: str):
    from . import resources

    return ok({"success": True, "resource": resources.get(id)})


@router.put("/api/admin/resources/<id>", middlewares=[require_permission("manage_resources")],
            openapi_extensions=doc(body=_M + "ResourcePatch", response=_M + "ResourceOut", errors=(409,)),
            summary="Update a resource", description="Partial: any field of the create body; null clears url/file_key.")
def put_resource(id: str):
    from . import resources
    from .models import ResourcePatch

    body = parse_model(ResourcePatch, json_object(router))
    return ok({"success": True, "resource": resources.update(_me(), id, body.model_dump(exclude_unset=True))})


@router.delete("/api/admin/resources/<id>", middlewares=[require_permission("manage_resources")],
               openapi_extensions=doc(response=_M + "Deleted"),
               summary="Delete a resource")
def delete_resource(id: str):
    from . import resources

    resources.delete(_me(), id)
    return ok({"success": True, "message": "Resource deleted"})


# ---------------------------------------------------------------- certificate templates
@router.get("/api/admin/certificate-templates", middlewares=[require_permission("manage_templates")],
            openapi_extensions=doc(query=_M + "ListQuery", response=_M + "TemplatePage"),
            summary="List certificate templates", description="activeTemplateId names the one driving the PDF.")
def list_templates():
    from . import cert_templates  # lazily: the certificate layout model only these routes use

    q = list_request(router)
    items, total, nxt, active = cert_templates.list_templates(**q.window)
    return ok(list_body("templates", items, q, total, nxt, activeTemplateId=active))


@router.post("/api/admin/certificate-templates", middlewares=[require_permission("manage_templates")],
             openapi_extensions=doc(body=_M + "TemplateCreate", response=_M + "TemplateOut", status=201,
                                    errors=(409,)),
             summary="Create a certificate template",
             description="Body {name, description?, layout {orientation, page_size, font, colors, title, subtitle, "
                         "body, signature_name, signature_title, footer, show_qr, border}, is_active?}. Text may "
                         "use {studentName} {domainName} {duration} {issueDate} {certificateId} {expiryAt}.")
def create_template():
    from . import cert_templates  # lazily: the certificate layout model only these routes use
    from .models import TemplateCreate

    body = parse_model(TemplateCreate, json_object(router))
    return ok({"success": True, "template": cert_templates.create(_me(), body.model_dump())}, 201)


@router.put("/api/admin/certificate-templates/<id>", middlewares=[require_permission("edit_template")],
            openapi_extensions=doc(body=_M + "TemplateUpdate", response=_M + "TemplateOut", errors=(409,)),
            summary="Update a certificate template", description="Partial; is_active true makes it the active one.")
def put_template(id: str):
    from . import cert_templates  # lazily: the certificate layout model only these routes use
    from .models import TemplateUpdate

    body = parse_model(TemplateUpdate, json_object(router))
    return ok({"success": True, "template": cert_templates.update(_me(), id, body.model_dump(exclude_unset=True))})


# ---------------------------------------------------------------- certificates (manage_certificates)
@router.get("/api/admin/certificates", middlewares=[require_permission("manage_certificates")],
            openapi_extensions=doc(query=_M + "CertificatesQuery", response=_M + "Certificate",
                                   list_key="certificates", paginated=True),
            summary="List certificates", description="Query page, limit, search, revoked (true|false), domain_id.")
def list_certificates():
    from . import certificates

    q = list_request(router, "search", "revoked", "domain_id")
    revoked = None
    if "revoked" in q.filters:
        if q.filters["revoked"] not in ("true", "false"):
            raise ValidationFailed("revoked must be true or false", fields={"revoked": "Must be true or false"})
        revoked = q.filters["revoked"] == "true"
    items, total, exact, nxt = certificates.list_certificates(search=q.get("search"), revoked=revoked,
                                                              domain_id=q.get("domain_id"), **q.window)
    return ok(list_body("certificates", items, q, total, nxt, exact))


@router.post("/api/admin/certificates/<id>/revoke", middlewares=[require_permission("manage_certificates")],
             openapi_extensions=doc(body=_M + "CertificateAction", response=_M + "CertificateOut", errors=(409,)),
             summary="Revoke a certificate", description="Body {reason?}. Verification then answers 404. 409 if "
                                                         "already revoked.")
def revoke_certificate(id: str):
    from . import certificates
    from .models import CertificateAction

    body = parse_model(CertificateAction, json_object(router, required=False))
    return ok({"success": True, "certificate": certificates.set_revoked(_me(), id, True, body.reason)})


@router.post("/api/admin/certificates/<id>/unrevoke", middlewares=[require_permission("manage_certificates")],
             openapi_extensions=doc(response=_M + "CertificateOut", errors=(409,)),
             summary="Un-revoke a certificate", description="409 if not revoked.")
def unrevoke_certificate(id: str):
    from . import certificates

    return ok({"success": True, "certificate": certificates.set_revoked(_me(), id, False, None)})


# ---------------------------------------------------------------- invoices (manage_invoices)
@router.get("/api/admin/invoices", middlewares=[require_permission("manage_invoices")],
            openapi_extensions=doc(query=_M + "InvoicesQuery", response=_M + "Invoice", list_key="invoices",
                                   paginated=True),
            summary="List invoices", description="Query page, limit, search, user_id, date_from, date_to.")
def list_invoices():
    from . import invoices

    q = list_request(router, "search", "user_id", "date_from", "date_to")
    items, total, exact, nxt = invoices.list_invoices(search=q.get("search"), user_id=q.get("user_id"),
                                                      bounds=iso_bounds(q.get("date_from"), q.get("date_to")),
                                                      **q.window)
    return ok(list_body("invoices", items, q, total, nxt, exact))


@router.post("/api/admin/invoices/<id>/send", middlewares=[require_permission("manage_invoices")],
             openapi_extensions=doc(body=_M + "InvoiceSend", response=_M + "InvoiceSendOut", status=202,
                                    errors=(409,),
                                    notes={503: "S3 busy or unreachable while storing the invoice PDF: no email is queued, the invoice is not "
                                                "marked sent. " + FILE_STORE_NOTE}),
             summary="Email an invoice", description="Body (optional) {to}; default the student's email. The PDF is "
                                                     "attached. 202 with the queued email id.")
def send_invoice(id: str):
    from . import invoices
    from .models import InvoiceSend

    body = parse_model(InvoiceSend, json_object(router, required=False))
    return ok({"success": True, **invoices.send(_me(), id, body.to)}, 202)


app = build_app(router)
lambda_handler = lambda_entry(app)
