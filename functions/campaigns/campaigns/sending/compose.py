"""Rendering of one message: placeholders, UTM parameters, click/open tracking and the
RFC 8058 unsubscribe headers. Pure functions (the link-signing secret aside)."""
from __future__ import annotations

import html as _html
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..common.render import html_to_text, render
from . import tokens

_HREF = re.compile(r"""(<a\b[^>]*?\bhref\s*=\s*)(["'])(.*?)\2""", re.IGNORECASE | re.DOTALL)
_BODY_END = re.compile(r"</body\s*>", re.IGNORECASE)


@dataclass
class Tracking:
    opens: bool = True
    clicks: bool = True
    utm: dict[str, str] = field(default_factory=dict)


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


def compose(subject_tpl: str, html_tpl: str | None, text_tpl: str | None, variables: dict, *,
            tracking: Tracking, link_payload: dict | None, unsubscribe: bool) -> Composed:
    """Render one message. ``link_payload`` identifies (account, send, recipient) in signed links;
    ``unsubscribe`` adds the List-Unsubscribe headers and an ``{{unsubscribe_url}}`` variable."""
    headers: dict[str, str] = {}
    vars_ = dict(variables)
    if unsubscribe and link_payload is not None:
        unsub = tokens.unsubscribe_url(link_payload)
        vars_.setdefault("unsubscribe_url", unsub)
        headers["List-Unsubscribe"] = f"<{unsub}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    subject, m1 = render(subject_tpl or "", vars_, html=False)
    missing = list(m1)
    html_out = ""
    if html_tpl:
        html_out, m2 = render(html_tpl, vars_, html=True)
        missing += m2
        html_out = rewrite_links(html_out, utm=tracking.utm, track=tracking.clicks, link_payload=link_payload)
        if tracking.opens and link_payload is not None:
            html_out = add_pixel(html_out, tokens.open_url(link_payload))
    if text_tpl:
        text_out, m3 = render(text_tpl, vars_, html=False)
        missing += m3
    else:
        text_out = html_to_text(html_out) if html_out else ""
    subject = " ".join(subject.split())  # no header injection through a variable
    return Composed(subject=subject, html=html_out, text=text_out, headers=headers,
                    missing=sorted(set(missing)))
