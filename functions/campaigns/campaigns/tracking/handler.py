"""Public tracking routes (no API key; signed tokens): open pixel, click redirect, the unsubscribe and
subscribe-again pages (a GET shows, only a POST acts)."""
from __future__ import annotations

import base64
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import NotFound
from lambdakit.http import client_ip, header
from lambdakit.openapi import doc

from ..http import build_app, lambda_entry, logger
from ..sending import tokens
from ..settings import settings
from . import pages, service

router = APIGatewayHttpRouter()
PIXEL = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")
NO_STORE = {"Cache-Control": "no-store, no-cache, must-revalidate, max-age=0", "Pragma": "no-cache"}


def _req() -> service.RequestInfo:
    country = city = None
    if settings().trust_cloudfront_geo:  # a client can send these headers itself (issue 32 item 9)
        country = (header(router, "cloudfront-viewer-country") or "")[:8] or None
        raw_city = header(router, "cloudfront-viewer-city")
        city = unquote(raw_city)[:128] if raw_city else None
    return service.RequestInfo(user_agent=(header(router, "user-agent") or "")[:512], ip=client_ip(router),
                               country=country, city=city)


@router.get("/t/o/<token>", summary="Open-tracking pixel (public)",
            description="Always answers a 1x1 GIF; only a validly signed token is recorded.",
            openapi_extensions=doc(content_type="image/gif", public=True))
def open_pixel(token: str):
    payload = tokens.read(token, "o")
    if payload:
        try:
            service.record_open(payload, _req())
        except Exception:  # noqa: BLE001 - the pixel must render even if recording fails
            logger.exception("open tracking failed")
    return Response(status_code=200, content_type="image/gif", body=PIXEL, headers=NO_STORE)


@router.get("/t/c/<token>", summary="Click redirect (public)",
            description="302 to the signed target URL; an unsigned or altered token is 404 (no open redirect).",
            openapi_extensions=doc(redirect=True, public=True))
def click(token: str):
    payload = tokens.read(token, "c")
    target = (payload or {}).get("u") or ""
    if not payload or not target.lower().startswith(("http://", "https://")):
        raise NotFound("Link not found")
    try:
        base = tokens.base_url()
        service.record_click(payload, target, _req(), clicked_url=f"{base}/t/c/{token}")
    except Exception:  # noqa: BLE001 - the reader still gets to the link
        logger.exception("click tracking failed")
    return Response(status_code=302, content_type="text/plain", body="", headers={"Location": target, **NO_STORE})


#: these routes answer people: their 404 is an HTML page (text/html), not the JSON error
PAGE_NOTES = {404: "An HTML page (text/html): the link is not valid, or (subscribe again) the offer expired or was "
                   "used."}


def _html(body: str, status: int = 200) -> Response:
    return Response(status_code=status, content_type="text/html; charset=utf-8", body=body,
                    headers={**NO_STORE, **pages.HEADERS})


def _invalid() -> Response:
    return _html(pages.message("Link not valid", "This link is not valid or has expired."), 404)


def _urls(token: str) -> tuple[str, str]:
    base = f"{tokens.base_url()}/unsubscribe/{token}"
    return base, f"{base}/resubscribe"


def _one_click() -> bool:
    body = router.current_event.decoded_body or ""
    return "list-unsubscribe=one-click" in body.lower()


@router.get("/unsubscribe/<token>", summary="Unsubscribe confirmation page (public)",
            description="Shows who sends, the address and one Unsubscribe button (a form POSTing to the same URL). "
                        "A GET changes nothing: mail security scanners fetch every link of a message. Plain HTML, "
                        "no script; 404 page for an invalid link.",
            openapi_extensions=doc(content_type="text/html", public=True, notes=PAGE_NOTES))
def unsubscribe_get(token: str):
    payload, info = _subscriber(token)
    if payload is None or info is None:
        return _invalid()
    here, again = _urls(token)
    if info["resubscribe_until"]:  # already unsubscribed through this link: the done page again
        return _html(pages.done(info["sender"], info["email"], again, info["resubscribe_until"]))
    return _html(pages.confirm(info["sender"], info["email"], here))


def _subscriber(token: str) -> tuple[dict | None, dict | None]:
    """The unsubscribe token's payload and the subscriber it names (``None`` for what does not hold)."""
    payload = tokens.read(token, "u")
    return payload, (service.subscriber(payload) if payload else None)


def _expired():
    return _html(pages.message("Link expired", "This subscribe-again link is no longer available."), 404)


@router.post("/unsubscribe/<token>", summary="Unsubscribe (public): the page's button or RFC 8058 one-click",
             description="Unsubscribes the contact: the confirmation page's form, or the List-Unsubscribe-Post "
                         "one-click POST (body List-Unsubscribe=One-Click) a mailbox provider sends. Answers the "
                         "done page, which offers Subscribe again for 7 days. 404 page for an invalid link.",
             openapi_extensions=doc(content_type="text/html", public=True, notes=PAGE_NOTES))
def unsubscribe_post(token: str):
    payload = tokens.read(token, "u")
    if not payload:
        return _invalid()
    service.unsubscribe(payload, source="one_click" if _one_click() else "link")
    info = service.subscriber(payload)
    if info is None:
        return _html(pages.message("You are unsubscribed", "You will not receive further emails from this sender."))
    return _html(pages.done(info["sender"], info["email"], _urls(token)[1], info["resubscribe_until"]))


@router.get("/unsubscribe/<token>/resubscribe", summary="Subscribe-again confirmation page (public)",
            description="Within 7 days of an unsubscribe through this link: a page with one Subscribe again button "
                        "(a form POSTing to the same URL). A GET changes nothing. After the window, or once used: 404 page.",
            openapi_extensions=doc(content_type="text/html", public=True, notes=PAGE_NOTES))
def resubscribe_get(token: str):
    payload, info = _subscriber(token)
    if payload is None or info is None:
        return _invalid()
    if not info["resubscribe_until"]:
        return _expired()
    return _html(pages.resubscribe_confirm(info["sender"], info["email"], _urls(token)[1]))


@router.post("/unsubscribe/<token>/resubscribe", summary="Subscribe again (public)",
             description="Makes the contact active again when this link unsubscribed it within the last 7 days "
                         "(never a bounced contact). A 404 page after the window, once used, or for an invalid link.",
             openapi_extensions=doc(content_type="text/html", public=True, notes=PAGE_NOTES))
def resubscribe_post(token: str):
    payload, info = _subscriber(token)
    if payload is None or info is None:
        return _invalid()
    outcome = service.resubscribe(payload)
    if outcome == "expired":
        return _expired()
    if outcome == "not_unsubscribed":
        return _html(pages.message("Nothing to change", "This address is not unsubscribed."))
    return _html(pages.resubscribed(info["sender"], info["email"]))


app = build_app(router)
lambda_handler = lambda_entry(app)
