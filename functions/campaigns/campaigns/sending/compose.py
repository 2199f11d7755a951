"""Rendering of one message: placeholders, UTM parameters, click/open tracking, the RFC 8058
unsubscribe headers and the marketing footer. Pure functions (the link-signing secret aside).

The footer (issue 30): campaign, bulk and (unless ``transactional``) single sends end with a small
block holding a visible unsubscribe link and the account's postal address (CAN-SPAM, Gmail's sender
guidelines). A template that already places ``{{unsubscribe_url}}`` gets no second link (the
postal address is still added). The text part is made from the HTML (``lambdakit.mime.html_to_text``,
links kept) unless the caller gave one; a given text part gets the footer as text."""
from __future__ import annotations

import html as _html
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from lambdakit.mime import html_to_text

from ..common.render import placeholders, render
from . import tokens

_HREF = re.compile(r"""(<a\b[^>]*?\bhref\s*=\s*)(["'])(.*?)\2""", re.IGNORECASE | re.DOTALL)
_BODY_END = re.compile(r"</body\s*>", re.IGNORECASE)


@dataclass
class Tracking:
    opens: bool = True
    clicks: bool = True
    utm: dict[str, str] = field(default_factory=dict)


@dataclass
class Footer:
    """What the marketing footer prints: the account's postal address (may be empty)."""
    postal_address: str = ""


@dataclass
class Composed:
    subject: str
    html: str
    text: str
    headers: dict[str, str]
    missing: list[str]


def with_utm(url: str, utm: dict[str, str]) -> str:
    """Append ``utm_<key>`` parameters the URL does not already carry."""
    if not utm:
        return url
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    present = {k for k, _ in query}
    extra = [(f"utm_{k}", str(v)) for k, v in utm.items() if v not in (None, "") and f"utm_{k}" not in present]
    if not extra:
        return url
    return urlunsplit(parts._replace(query=urlencode(query + extra)))


def rewrite_links(html: str, *, utm: dict[str, str], track: bool, link_payload: dict | None) -> str:
    base = tokens.base_url()

    def sub(m: re.Match) -> str:
        raw = m.group(3)
        target = _html.unescape(raw).strip()
        if not target.lower().startswith(("http://", "https://")) or target.startswith(base + "/unsubscribe/"):
            return m.group(0)
        target = with_utm(target, utm)
        if track and link_payload is not None:
            target = tokens.click_url(link_payload, target)
        return f"{m.group(1)}{m.group(2)}{_html.escape(target, quote=True)}{m.group(2)}"

    return _HREF.sub(sub, html)


def add_pixel(html: str, url: str) -> str:
    pixel = f'<img src="{_html.escape(url, quote=True)}" width="1" height="1" alt="" style="display:none" />'
    m = None
    for m in _BODY_END.finditer(html):  # noqa: B007 - keep the last match
        pass
    if m is None:
        return html + pixel
    return html[: m.start()] + pixel + html[m.start():]


def footer_html(unsub: str | None, postal: str) -> str:
    parts = []
    if postal:
        parts.append("<br>".join(_html.escape(line) for line in postal.splitlines()))
    if unsub:
        parts.append("You receive this email because you are on our mailing list. "
                     f'<a href="{_html.escape(unsub, quote=True)}" style="color:#555555">Unsubscribe</a>')
    if not parts:
        return ""
    paras = "".join(f'<p style="margin:0 0 6px 0">{p}</p>' for p in parts)
    return ('<div style="margin-top:24px;padding-top:12px;border-top:1px solid #dddddd;'
            f'font-family:Arial,Helvetica,sans-serif;font-size:12px;line-height:1.5;color:#555555">{paras}</div>')


def footer_text(unsub: str | None, postal: str) -> str:
    lines = []
    if postal:
        lines.append(postal)
    if unsub:
        lines.append(f"Unsubscribe: {unsub}")
    return ("\n\n--\n" + "\n".join(lines) + "\n") if lines else ""


def add_footer(html: str, block: str) -> str:
    """``block`` before the last ``</body>`` (or at the end)."""
    if not block:
        return html
    m = None
    for m in _BODY_END.finditer(html):  # noqa: B007 - keep the last match
        pass
    return html + block if m is None else html[: m.start()] + block + html[m.start():]


def compose(subject_tpl: str, html_tpl: str | None, text_tpl: str | None, variables: dict, *,
            tracking: Tracking, link_payload: dict | None, unsubscribe: bool,
            footer: Footer | None = None) -> Composed:
    """Render one message. ``link_payload`` identifies (account, send, recipient) in signed links;
    ``unsubscribe`` adds the List-Unsubscribe headers and an ``{{unsubscribe_url}}`` variable;
    ``footer`` (with ``unsubscribe``) adds the marketing footer."""
    headers: dict[str, str] = {}
    vars_ = dict(variables)
    unsub: str | None = None
    if unsubscribe and link_payload is not None:
        unsub = tokens.unsubscribe_url(link_payload)
        vars_.setdefault("unsubscribe_url", unsub)
        headers["List-Unsubscribe"] = f"<{unsub}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    subject, m1 = render(subject_tpl or "", vars_, html=False)
    missing = list(m1)
    postal = footer.postal_address if footer and unsub else ""
    html_out = ""
    if html_tpl:
        html_out, m2 = render(html_tpl, vars_, html=True)
        missing += m2
        if footer and unsub:
            placed = "unsubscribe_url" in placeholders(html_tpl)
            html_out = add_footer(html_out, footer_html(None if placed else unsub, postal))
        html_out = rewrite_links(html_out, utm=tracking.utm, track=tracking.clicks, link_payload=link_payload)
    if text_tpl:
        text_out, m3 = render(text_tpl, vars_, html=False)
        missing += m3
        if footer and unsub:
            placed = "unsubscribe_url" in placeholders(text_tpl)
            text_out = text_out.rstrip() + footer_text(None if placed else unsub, postal)
    elif html_out:
        text_out = html_to_text(html_out)  # before the pixel: the text part lists no tracking image
    else:
        text_out = ""
    if html_out and tracking.opens and link_payload is not None:
        html_out = add_pixel(html_out, tokens.open_url(link_payload))
    subject = " ".join(subject.split())  # no header injection through a variable
    return Composed(subject=subject, html=html_out, text=text_out, headers=headers,
                    missing=sorted(set(missing)))
