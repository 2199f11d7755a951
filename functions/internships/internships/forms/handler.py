"""PublicFormsFunction: leads, newsletter, contact, email open tracking, visit counter (all public)."""
from __future__ import annotations

import base64

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.http import client_ip, cookies, json_object, parse_model, query
from lambdakit.openapi import doc

from ..http import build_app, lambda_entry, ok
from ..mail import service as mail
from ..settings import settings
from . import service
from .models import ContactIn, LeadIn, NewsletterIn, VisitIn

router = APIGatewayHttpRouter()

# 1x1 transparent GIF
PIXEL = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")


@router.post("/api/leads", summary="Submit a lead (public, rate limited per IP)",
             description="Body name, domain, duration, phone (email optional). Saves the lead and queues an email "
                         "to the counselor address (site setting siteEmail).",
             openapi_extensions=doc(body="internships.forms.models:LeadIn",
                                    response="internships.forms.models:FormResult", errors=(400, 429), public=True))
def post_lead():
    headers = service.check_rate("leads", client_ip(router), settings().leads_rate_limit)
    body = parse_model(LeadIn, json_object(router))
    service.new_lead(body)
    return ok({"success": True, "message": "Thank you! Our counselor will contact you soon."}, headers=headers)


@router.post("/api/newsletter/subscribe", summary="Subscribe to the newsletter (public)",
             description="A duplicate answers {success, alreadySubscribed: true}. Creates a lead with source "
                         "newsletter and queues one welcome email.",
             openapi_extensions=doc(body="internships.forms.models:NewsletterIn",
                                    response="internships.forms.models:FormResult", errors=(400, 429), public=True))
def post_newsletter():
    headers = service.check_rate("newsletter", client_ip(router), settings().forms_rate_limit)
    body = parse_model(NewsletterIn, json_object(router))
    created = service.subscribe(body.email)
    if not created:
        return ok({"success": True, "alreadySubscribed": True, "message": "You are already subscribed."},
                  headers=headers)
    return ok({"success": True, "message": "Subscribed. Welcome aboard!"}, headers=headers)


@router.post("/api/contact", summary="Send a contact message (public)",
             description="Body name, email, subject, message. Stores it and queues a notification email.",
             openapi_extensions=doc(body="internships.forms.models:ContactIn",
                                    response="internships.forms.models:FormResult", errors=(400, 429), public=True))
def post_contact():
    headers = service.check_rate("contact", client_ip(router), settings().forms_rate_limit)
    body = parse_model(ContactIn, json_object(router))
    service.contact(body)
    return ok({"success": True, "message": "Thank you for reaching out. We will get back to you soon."},
              headers=headers)


@router.get("/api/email/track", summary="Email open pixel (public)",
            description="Always a 1x1 transparent GIF; the first open of a known email is recorded once.",
            openapi_extensions=doc(content_type="image/gif", public=True))
def track():
    try:
        mail.track_open(query(router, "id"))
    except Exception:  # noqa: BLE001 - the pixel must always render
        from ..http import logger

        logger.exception("could not record email open")
    return Response(status_code=200, content_type="image/gif", body=PIXEL,
                    headers={"Cache-Control": "no-store, no-cache, must-revalidate, private", "Pragma": "no-cache"})


@router.post("/api/analytics/visit", summary="Count a site visit (public, rate limited)",
             description="Body optional {path} (a `visitorId` in the body is ignored). The visitor is the one the "
                         "service issued in the `visitor-id` cookie (signed; HttpOnly, Secure, SameSite=Lax); without "
                         "a valid one a new visitor is issued and the cookie set. Bumps the daily unique-visitor "
                         "counter the admin conversion funnel reads, once per visitor per UTC day, and at most "
                         "`INTERNSHIPS_VISIT_NEW_PER_IP_PER_DAY` new visitors per address per day.",
             openapi_extensions=doc(body="internships.forms.models:VisitIn",
                                    response="internships.forms.models:VisitResult", public=True))
def post_visit():
    from ..auth.session_cookies import long_cookie

    ip = client_ip(router)
    headers = service.check_rate("visit", ip, settings().visit_rate_limit)
    parse_model(VisitIn, json_object(router, required=False))
    vid = service.issued_visitor(cookies(router).get(service.VISITOR_COOKIE))
    set_cookie = None
    if vid is None:  # a client-chosen id is never a visitor: the service issues one
        vid, value = service.new_visitor_cookie()
        set_cookie = [long_cookie(service.VISITOR_COOKIE, value, "/api/analytics", service.VISITOR_COOKIE_MAX_AGE)]
    counted = service.visit(vid, ip)
    return ok({"success": True, "counted": counted}, headers=headers, cookies=set_cookie)


app = build_app(router)
lambda_handler = lambda_entry(app)
