"""Turn feed entries and search-API results into job records."""
from __future__ import annotations

import calendar
import html
import json
import re
from typing import Any

from lambdakit import clock

_TAGS = re.compile(r"<[^>]+>")
_WORD = re.compile(r"[a-z0-9][a-z0-9+#.]*[a-z0-9+#]|[a-z0-9]")
STOP = frozenset("a an and at for in of on or the to with job jobs remote new".split()) - {"remote"}


def strip_html(text: str | None, limit: int = 2000) -> str:
    if not text:
        return ""
    t = html.unescape(_TAGS.sub(" ", text))
    return " ".join(t.split())[:limit]


def tokens(text: str | None) -> list[str]:
    """Lower-case search words (deduplicated, order kept)."""
    out: list[str] = []
    for w in _WORD.findall((text or "").lower()):
        if len(w) < 2 or w in STOP or len(w) > 40:
            continue
        if w not in out:
            out.append(w)
    return out


def _clean_url(u) -> str | None:
    if isinstance(u, str) and u.startswith(("https://", "http://")) and len(u) <= 2000:
        return u.strip()
    return None


def _ts(parsed) -> str | None:
    try:
        import datetime as dt

        return clock.iso(dt.datetime.fromtimestamp(calendar.timegm(parsed), tz=dt.timezone.utc))
    except Exception:  # noqa: BLE001
        return None


def from_feed(data: bytes, source: str, limit: int) -> list[dict]:
    import feedparser  # heavy: imported lazily

    parsed = feedparser.parse(data)
    feed_title = strip_html(parsed.feed.get("title"), 100) if parsed.get("feed") else ""
    jobs = []
    for e in parsed.entries[:limit]:
        url = _clean_url(e.get("link"))
        title = strip_html(e.get("title"), 200)
        if not url or not title:
            continue
        company = strip_html(e.get("author") or (e.get("source") or {}).get("title") or feed_title, 120)
        location = ""
        for key in ("location", "job_location", "jobs_location"):
            if e.get(key):
                location = strip_html(str(e.get(key)), 120)
                break
        if not location:
            for tag in e.get("tags") or []:
                term = (tag.get("term") or "") if isinstance(tag, dict) else ""
                if term.lower().startswith("location:"):
                    location = term.split(":", 1)[1].strip()[:120]
        posted = _ts(e.get("published_parsed") or e.get("updated_parsed"))
        jobs.append({"title": title, "company": company, "location": location, "url": url,
                     "description": strip_html(e.get("summary") or e.get("description")), "posted_at": posted,
                     "source": source})
    return jobs


def _pick(d: dict, *keys: str) -> str | int | float | None:
    for k in keys:
        cur: Any = d
        for part in k.split("."):
            cur = cur.get(part) if isinstance(cur, dict) else None
        if isinstance(cur, (str, int, float)) and not isinstance(cur, bool) and cur != "":
            return cur
    return None


def from_search_api(data: bytes, source: str, limit: int) -> list[dict]:
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return []
    rows = doc if isinstance(doc, list) else next(
        (doc[k] for k in ("results", "jobs", "data", "items") if isinstance(doc, dict) and isinstance(doc.get(k), list)),
        [])
    jobs = []
    for r in rows[:limit]:
        if not isinstance(r, dict):
            continue
        url = _clean_url(_pick(r, "url", "redirect_url", "job_apply_link", "link", "apply_url"))
        title = strip_html(str(_pick(r, "title", "job_title") or ""), 200)
        if not url or not title:
            continue
        posted = _pick(r, "posted_at", "created", "job_posted_at_datetime_utc", "date")
        try:
            posted = clock.iso(clock.parse_iso(str(posted))) if posted else None
        except ValueError:
            posted = None
        jobs.append({"title": title, "url": url, "posted_at": posted, "source": source,
                     "company": strip_html(str(_pick(r, "company", "company_name", "employer_name",
                                                     "company.display_name") or ""), 120),
                     "location": strip_html(str(_pick(r, "location", "job_city", "location.display_name",
                                                      "candidate_required_location") or ""), 120),
                     "description": strip_html(str(_pick(r, "description", "job_description") or ""))})
    return jobs
