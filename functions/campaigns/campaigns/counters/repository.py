"""Write-time analytics counters and their reads (the only module that knows their keys).

Items (all in the service table):

- ``ACCT#{a}#AN`` / ``D#{date}``                 account totals per day
- ``ACCT#{a}#AN`` / ``P#{date}#{provider}``      per provider per day
- ``ACCT#{a}#AN`` / ``G#{date}#{country}``       opens/clicks per country per day
- ``ACCT#{a}#AN`` / ``C#{date}#{country}#{city}`` opens/clicks per city per day
- ``ACCT#{a}#AN`` / ``V#{date}#{dim}#{value}``   opens/clicks per device type / os / client per day
- ``CAMP#{c}``    / ``D#{date}``                 campaign per day
- ``CAMP#{c}``    / ``L#{hash}``                 campaign link clicks
- ``ACCT#{a}#SENTCAMP`` / ``{sent_at}#{c}``      campaigns by completion time

Every read below is a key query over a date range: its cost depends on the period and the
number of distinct providers/countries/devices, never on the number of emails.
"""
from __future__ import annotations

from lambdakit.ddb import Table
from lambdakit.security import sha256_hex

from ..settings import settings

COUNTERS = ("sent", "delivered", "opened", "unique_opened", "machine_opened", "clicked", "unique_clicked",
            "machine_clicked", "bounced", "complained", "unsubscribed", "failed", "campaigns_sent")


def table() -> Table:
    return Table(settings().table_name)


def _clean(v: str) -> str:
    return (v or "unknown").replace("#", "_")[:80]


def _nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {k: int(v) for k, v in counts.items() if v}


def day_ops(account_id: str, date: str, counts: dict[str, int], *, campaign_id: str | None = None,
            provider: str | None = None) -> list[dict]:
    """Transaction ops adding ``counts`` to the account-day, campaign-day and provider-day items."""
    c = _nonzero(counts)
    if not c:
        return []
    ops = [{"update": (f"ACCT#{account_id}#AN", f"D#{date}"), "add": c, "set": {"date": date}}]
    if campaign_id:
        ops.append({"update": (f"CAMP#{campaign_id}", f"D#{date}"), "add": c, "set": {"date": date}})
    if provider:
        ops.append({"update": (f"ACCT#{account_id}#AN", f"P#{date}#{_clean(provider)}"), "add": c,
                    "set": {"date": date, "provider": provider}})
    return ops


def add_day(account_id: str, date: str, counts: dict[str, int], *, campaign_id: str | None = None,
            provider: str | None = None) -> None:
    t = table()
    for op in day_ops(account_id, date, counts, campaign_id=campaign_id, provider=provider):
        t.update(*op["update"], add=op["add"], set=op["set"])


def add_engagement(account_id: str, date: str, kind: str, *, country: str | None, city: str | None,
                   device: dict[str, str] | None) -> None:
    """Per-country, per-city and per-device counters of one open or click (``kind``)."""
    t = table()
    pk = f"ACCT#{account_id}#AN"
    country = _clean(country or "unknown")
    t.update(pk, f"G#{date}#{country}", add={kind: 1}, set={"date": date, "country": country})
    if city:
        t.update(pk, f"C#{date}#{country}#{_clean(city)}", add={kind: 1},
                 set={"date": date, "country": country, "city": city[:80]})
    for dim, value in (device or {}).items():
        t.update(pk, f"V#{date}#{dim}#{_clean(value)}", add={kind: 1}, set={"date": date, "dim": dim, "value": value})


def add_link_click(campaign_id: str, url: str, unique: bool) -> None:
    table().update(f"CAMP#{campaign_id}", f"L#{sha256_hex(url)[:20]}", add={"clicks": 1, "unique_clicks": int(unique)},
                   set={"url": url[:2000]})


def record_campaign_sent(account_id: str, campaign_id: str, sent_at: str) -> None:
    table().put({"pk": f"ACCT#{account_id}#SENTCAMP", "sk": f"{sent_at}#{campaign_id}", "campaign_id": campaign_id,
                 "sent_at": sent_at})


# ---------------------------------------------------------------- reads
def account_days(account_id: str, start: str, end: str) -> list[dict]:
    return table().query_all(f"ACCT#{account_id}#AN", sk_between=(f"D#{start}", f"D#{end}"))


def campaign_days(campaign_id: str, start: str, end: str) -> list[dict]:
    return table().query_all(f"CAMP#{campaign_id}", sk_between=(f"D#{start}", f"D#{end}"))


def campaign_links(campaign_id: str) -> list[dict]:
    return table().query_all(f"CAMP#{campaign_id}", sk_prefix="L#", max_items=MAX_LINKS)


MAX_LINKS = 1000


def campaign_with_counters(campaign_id: str, start: str, end: str) -> tuple[dict | None, list[dict], list[dict]]:
    """The campaign item (``CAMP#{c}`` / ``META``, ``campaigns.campaign.repository``'s key) with its
    days ``start``..``end`` and its first ``MAX_LINKS`` links, which share its partition: one key
    query from ``D#{start}`` (days sort before links, links before ``META``) instead of a GetItem
    and two queries, same (eventual) consistency as those reads. Only the campaign's own days after
    ``end`` (a past custom period) are read beyond them; past ``MAX_LINKS`` links the query stops and
    the item is read with a GetItem, so the read stays bounded as before."""
    days: list[dict] = []
    links: list[dict] = []
    last_day = f"D#{end}"
    for item in table().iter_query(f"CAMP#{campaign_id}", sk_gte=f"D#{start}"):
        sk = item["sk"]
        if sk.startswith("D#"):
            if sk <= last_day:
                days.append(item)
        elif sk.startswith("L#"):
            if len(links) >= MAX_LINKS:
                break
            links.append(item)
        elif sk == "META":
            return item, days, links
    return table().get(f"CAMP#{campaign_id}", "META"), days, links


def _range(account_id: str, prefix: str, start: str, end: str) -> list[dict]:
    # Keys are ``{prefix}#{date}#...``: one range query covers the period.
    return table().query_all(f"ACCT#{account_id}#AN", sk_between=(f"{prefix}#{start}", f"{prefix}#{end}#~"),
                             max_items=50_000)


def provider_days(account_id: str, start: str, end: str) -> list[dict]:
    return _range(account_id, "P", start, end)


def geo_days(account_id: str, start: str, end: str) -> tuple[list[dict], list[dict]]:
    return _range(account_id, "G", start, end), _range(account_id, "C", start, end)


def device_days(account_id: str, start: str, end: str) -> list[dict]:
    return _range(account_id, "V", start, end)


def sent_campaigns(account_id: str, start_iso: str, end_iso: str, limit: int = 1000) -> list[dict]:
    return table().query_all(f"ACCT#{account_id}#SENTCAMP", sk_between=(start_iso, end_iso + "~"), max_items=limit)
