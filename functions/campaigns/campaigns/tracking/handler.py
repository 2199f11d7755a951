"""Public tracking routes (no API key; signed tokens): open pixel, click redirect, unsubscribe."""
from __future__ import annotations

import base64
import html as _html
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from lambdakit.errors import NotFound
from lambdakit.http import client_ip, header
from lambdakit.openapi import doc

from ..http import build_app, lambda_entry, logger
from ..sending import tokens
from ..settings import settings
from . import service

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


def _page(title: str, text: str, status: int = 200) -> Response:
    body = (f"<!doctype html><html><head><meta charset='utf-8'><title>{_html.escape(title)}</title></head>"
            f"<body><h1>{_html.escape(title)}</h1><p>{_html.escape(text)}</p></body></html>")
    return Response(status_code=status, content_type="text/html; charset=utf-8", body=body, headers=NO_STORE)


def _unsubscribe(token: str, source: str) -> Response:
    payload = tokens.read(token, "u")
    if not payload:
        return _page("Link not valid", "This unsubscribe link is not valid.", 404)
    service.unsubscribe(payload, source=source)
    return _page("Unsubscribed", "You will not receive further emails from this sender.")


@router.get("/unsubscribe/<token>", summary="Unsubscribe link (public)",
            description="Marks the contact unsubscribed and shows a confirmation page (HTML; 404 page for an invalid "
                        "link).",
            openapi_extensions=doc(content_type="text/html", public=True))
def unsubscribe_get(token: str):
    return _unsubscribe(token, "link")


@router.post("/unsubscribe/<token>", summary="RFC 8058 one-click unsubscribe (public)",
             description="Target of List-Unsubscribe-Post: List-Unsubscribe=One-Click (HTML answer; 404 page for an "
                         "invalid link).",
             openapi_extensions=doc(content_type="text/html", public=True))
def unsubscribe_post(token: str):
    return _unsubscribe(token, "one_click")


app = build_app(router)
lambda_handler = lambda_entry(app)
