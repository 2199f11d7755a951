"""Analytics from write-time counters: campaign analytics, overall, providers, geographic, devices.
Every answer reads counter items for the requested days only."""
from __future__ import annotations

import datetime as dt

from lambdakit import clock
from lambdakit.errors import ValidationFailed

from ..campaign import repository as camp_repo
from ..campaign import service as camp_service
from ..counters import repository as repo
from . import models

MAX_DAYS = 366


def _pct(n: float, d: float) -> float:
    return round(n * 100.0 / d, 2) if d else 0


def _date(value: str | None, field: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value or "")
    except ValueError:
        raise ValidationFailed(f"{field} must be a date (YYYY-MM-DD)", fields={field: "Must be a date YYYY-MM-DD"}) from None


def period(start: str | None, end: str | None, *, required: bool, default_days: int = 30) -> tuple[str, str]:
    if not start and not end and not required:
        e = clock.now().date()
        return (e - dt.timedelta(days=default_days - 1)).isoformat(), e.isoformat()
    missing = {f: "Required" for f, v in (("start_date", start), ("end_date", end)) if not v}
    if missing:
        raise ValidationFailed("start_date and end_date are required", fields=missing)
    s, e = _date(start, "start_date"), _date(end, "end_date")
    if s > e:
        raise ValidationFailed("start_date must not be after end_date", fields={"start_date": "Must be <= end_date"})
    if (e - s).days >= MAX_DAYS:
        raise ValidationFailed("Period too long", fields={"end_date": f"At most {MAX_DAYS} days after start_date"})
    return s.isoformat(), e.isoformat()


def _days(start: str, end: str) -> list[str]:
    s, e = dt.date.fromisoformat(start), dt.date.fromisoformat(end)
    return [(s + dt.timedelta(days=i)).isoformat() for i in range((e - s).days + 1)]


#: The day counters of a campaign's series (``models.PeriodTotals`` declares them).
SERIES = tuple(models.PeriodTotals.model_fields)


def _timeframe(tf: str, start: str | None, end: str | None) -> tuple[str, str]:
    if tf == "last_7_days":
        return period(None, None, required=False, default_days=7)
    if tf == "last_30_days":
        return period(None, None, required=False, default_days=30)
    if tf == "custom":
        return period(start, end, required=True)
    raise ValidationFailed("Invalid timeframe", fields={"timeframe": "Must be last_7_days, last_30_days or custom"})


def campaign_analytics(account_id: str, cid: str, timeframe: str | None, start: str | None, end: str | None) -> dict:
    tf = timeframe or "last_30_days"
    try:
        s, e = _timeframe(tf, start, end)
    except ValidationFailed:
        camp_service.get_owned(account_id, cid)  # an unknown campaign is 404 before a bad period's 422
        raise
    # The campaign, its days and its links share one partition: one query reads them.
    found, day_items, link_items = repo.campaign_with_counters(cid, s, e)
    item = camp_service.owned(found, account_id)
    by_day = {d["date"]: d for d in day_items}
    days = _days(s, e)
    rows = [{k: int(by_day.get(d, {}).get(k, 0) or 0) for k in SERIES} for d in days]
    series = [{"date": d, **row} for d, row in zip(days, rows, strict=True)]
    pt = {k: sum(row[k] for row in rows) for k in SERIES}
    st = camp_service.stats(item, rates=True)
    totals = {**{k: st[k] for k in ("sent", "delivered", "opened", "clicked", "bounced", "unsubscribed")},
              "total_opens": int(item.get("st_opens_total", 0) or 0),
              "total_clicks": int(item.get("st_clicks_total", 0) or 0),
              "machine_opens": int(item.get("st_machine_opened", 0) or 0),
              "complained": int(item.get("st_complained", 0) or 0)}
    rates = {"open_rate": st["open_rate"], "click_rate": st["click_rate"], "bounce_rate": st["bounce_rate"],
             "delivery_rate": _pct(totals["delivered"], totals["sent"]),
             "click_to_open_rate": _pct(totals["clicked"], totals["opened"]),
             "unsubscribe_rate": _pct(totals["unsubscribed"], totals["delivered"])}
    links = sorted(link_items, key=lambda x: (-int(x.get("clicks", 0)), x.get("url", "")))[:models.TOP_LINKS]
    out = {"campaign_id": cid, "name": item.get("name"), "status": item.get("status"), "timeframe": tf,
           "period": {"start": s, "end": e}, "totals": totals, "rates": rates, "period_totals": pt, "series": series,
           "top_links": [{"url": x.get("url"), "clicks": int(x.get("clicks", 0)),
                          "unique_clicks": int(x.get("unique_clicks", 0))} for x in links]}
    detail = camp_service.detail(item)
    if "ab_results" in detail:
        out["ab_results"] = detail["ab_results"]
    return out


def _bucket(date: str, group_by: str) -> str:
    d = dt.date.fromisoformat(date)
    if group_by == "week":
        return (d - dt.timedelta(days=d.weekday())).isoformat()
    if group_by == "month":
        return d.strftime("%Y-%m")
    return date


def overall(account_id: str, start: str | None, end: str | None, group_by: str | None) -> dict:
    s, e = period(start, end, required=True)
    g = group_by or "day"
    if g not in ("day", "week", "month"):
        raise ValidationFailed("Invalid group_by", fields={"group_by": "Must be day, week or month"})
    rows = repo.account_days(account_id, s, e)
    tot = {k: sum(int(r.get(k, 0) or 0) for r in rows) for k in
           ("sent", "delivered", "unique_opened", "unique_clicked", "bounced", "unsubscribed", "campaigns_sent")}
    by_day = {r["date"]: r for r in rows}
    trends: dict[str, dict] = {}
    for d in _days(s, e):
        b = trends.setdefault(_bucket(d, g), {"date": _bucket(d, g), "sent": 0, "opened": 0, "clicked": 0})
        r = by_day.get(d, {})
        b["sent"] += int(r.get("sent", 0) or 0)
        b["opened"] += int(r.get("unique_opened", 0) or 0)
        b["clicked"] += int(r.get("unique_clicked", 0) or 0)
    sent_items = repo.sent_campaigns(account_id, s, e + "T23:59:59.999Z")
    camps = camp_repo.get_many([x["campaign_id"] for x in sent_items]) if sent_items else {}
    top = []
    for c in camps.values():
        st = camp_service.stats(c, rates=True)
        top.append({"id": c["id"], "name": c.get("name"), "open_rate": st["open_rate"], "click_rate": st["click_rate"]})
    top.sort(key=lambda x: (-x["open_rate"], -x["click_rate"], x["id"]))
    return {"period": {"start": s, "end": e},
            "summary": {"campaigns_sent": tot["campaigns_sent"], "total_emails_sent": tot["sent"],
                        "total_delivered": tot["delivered"], "total_opened": tot["unique_opened"],
                        "total_clicked": tot["unique_clicked"], "total_bounced": tot["bounced"],
                        "total_unsubscribed": tot["unsubscribed"], "delivery_rate": _pct(tot["delivered"], tot["sent"]),
                        "open_rate": _pct(tot["unique_opened"], tot["delivered"]),
                        "click_rate": _pct(tot["unique_clicked"], tot["delivered"])},
            "trends": list(trends.values()), "top_campaigns": top[:5]}


def providers(account_id: str, start: str | None, end: str | None) -> dict:
    s, e = period(start, end, required=False)
    agg: dict[str, dict] = {}
    keys = ("sent", "delivered", "bounced", "complained", "failed", "unique_opened", "unique_clicked")
    for r in repo.provider_days(account_id, s, e):
        a = agg.setdefault(r["provider"], {k: 0 for k in keys})
        for k in keys:
            a[k] += int(r.get(k, 0) or 0)
    out = [{"provider": p, "sent": a["sent"], "delivered": a["delivered"], "bounced": a["bounced"],
            "complained": a["complained"], "failed": a["failed"], "opened": a["unique_opened"],
            "clicked": a["unique_clicked"], "delivery_rate": _pct(a["delivered"], a["sent"]),
            "bounce_rate": _pct(a["bounced"], a["sent"]), "open_rate": _pct(a["unique_opened"], a["delivered"])}
           for p, a in sorted(agg.items())]
    return {"period": {"start": s, "end": e}, "providers": out}


def geographic(account_id: str, start: str | None, end: str | None) -> dict:
    s, e = period(start, end, required=False)
    countries, cities = repo.geo_days(account_id, s, e)
    agg: dict[str, dict] = {}
    for r in countries:
        a = agg.setdefault(r["country"], {"country": r["country"], "opens": 0, "clicks": 0, "cities": {}})
        a["opens"] += int(r.get("opened", 0) or 0)
        a["clicks"] += int(r.get("clicked", 0) or 0)
    for r in cities:
        a = agg.setdefault(r["country"], {"country": r["country"], "opens": 0, "clicks": 0, "cities": {}})
        c = a["cities"].setdefault(r["city"], {"city": r["city"], "opens": 0, "clicks": 0})
        c["opens"] += int(r.get("opened", 0) or 0)
        c["clicks"] += int(r.get("clicked", 0) or 0)
    total = sum(a["opens"] for a in agg.values())
    out = []
    for a in sorted(agg.values(), key=lambda x: (-x["opens"], x["country"])):
        out.append({"country": a["country"], "opens": a["opens"], "clicks": a["clicks"],
                    "share": _pct(a["opens"], total),
                    "cities": sorted(a["cities"].values(), key=lambda x: (-x["opens"], x["city"]))[:10]})
    return {"period": {"start": s, "end": e}, "total_opens": total, "countries": out}


def devices(account_id: str, start: str | None, end: str | None) -> dict:
    s, e = period(start, end, required=False)
    dims: dict[str, dict[str, dict]] = {"type": {}, "os": {}, "client": {}}
    for r in repo.device_days(account_id, s, e):
        d = dims.setdefault(r["dim"], {})
        a = d.setdefault(r["value"], {"name": r["value"], "opens": 0, "clicks": 0})
        a["opens"] += int(r.get("opened", 0) or 0)
        a["clicks"] += int(r.get("clicked", 0) or 0)

    def rows(d: dict) -> list[dict]:
        total = sum(x["opens"] for x in d.values())
        return [{**x, "share": _pct(x["opens"], total)} for x in sorted(d.values(), key=lambda x: (-x["opens"], x["name"]))]

    return {"period": {"start": s, "end": e}, "device_types": rows(dims["type"]), "operating_systems": rows(dims["os"]),
            "clients": rows(dims["client"])}
