"""The unsubscribe pages (issue 30): plain HTML with inline CSS, no script, every value escaped.

A GET never changes anything (mail scanners such as Safe Links, Proofpoint and Barracuda fetch every
link of every message): it shows who sends (``sender``), the address, and one button whose form
POSTs to the same URL. The done page offers "subscribe again" (a form POSTing to the resubscribe
URL) while the token's resubscribe window is open.
"""
from __future__ import annotations

import html as _html

_STYLE = ("body{margin:0;background:#f4f4f5;font-family:Arial,Helvetica,sans-serif;color:#222;line-height:1.5}"
          "main{max-width:480px;margin:48px auto;background:#fff;border:1px solid #ddd;border-radius:8px;"
          "padding:28px}h1{font-size:22px;margin:0 0 12px}p{margin:0 0 16px}"
          "button{font-size:16px;padding:10px 20px;border:0;border-radius:6px;background:#1f4fd1;color:#fff;"
          "cursor:pointer}.muted{color:#666;font-size:13px}")

#: the pages' security headers: no script, no framing, the token never leaves as a Referer
HEADERS = {"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
                                      "frame-ancestors 'none'; base-uri 'none'",
           "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"}


def _e(value: str) -> str:
    return _html.escape(value or "", quote=True)


def page(title: str, body: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">'
            f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body><main><h1>{_e(title)}</h1>"
            f"{body}</main></body></html>")


def _form(action: str, button: str) -> str:
    return (f'<form method="post" action="{_e(action)}"><input type="hidden" name="confirm" value="yes">'
            f'<button type="submit">{_e(button)}</button></form>')


def confirm(sender: str, email: str, action: str) -> str:
    return page("Unsubscribe?", f"<p><strong>{_e(email)}</strong> will no longer receive emails from "
                f"<strong>{_e(sender)}</strong>.</p>{_form(action, 'Unsubscribe')}")


def done(sender: str, email: str, resubscribe: str | None, until: str | None) -> str:
    again = ""
    if resubscribe:
        again = (f'<p class="muted">Unsubscribed by mistake? You can subscribe again until {_e(until or "")} '
                 f"(UTC).</p>{_form(resubscribe, 'Subscribe again')}")
    return page("You are unsubscribed", f"<p><strong>{_e(email)}</strong> will no longer receive emails from "
                f"<strong>{_e(sender)}</strong>.</p>{again}")


def resubscribe_confirm(sender: str, email: str, action: str) -> str:
    return page("Subscribe again?", f"<p><strong>{_e(email)}</strong> will receive emails from "
                f"<strong>{_e(sender)}</strong> again.</p>{_form(action, 'Subscribe again')}")


def resubscribed(sender: str, email: str) -> str:
    return page("You are subscribed again", f"<p><strong>{_e(email)}</strong> will receive emails from "
                f"<strong>{_e(sender)}</strong> again.</p>")


def message(title: str, text: str) -> str:
    return page(title, f"<p>{_e(text)}</p>")
