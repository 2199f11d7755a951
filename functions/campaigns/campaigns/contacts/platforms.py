"""Column mappings of other mail platforms' contact exports (issue 34): the import recognises a
Mailchimp, SendGrid or listmonk export by its header and maps its columns onto ours; any other
file is read with our own columns (``generic``).

The mapping (``Mapping.public()``) is shown in the import's first pass (``dry_run``) and in every
import's result, so what went where — and what was left out — is never a guess:

* ``email``, ``first_name``, ``last_name``, ``phone``, ``tags``, ``status``: our fields;
* ``custom:<key>``: a custom field;
* ``name`` (listmonk): split at the first space into first and last name;
* ``attributes`` (listmonk): the JSON object's keys become custom fields;
* ``ignored``: the platform's own bookkeeping (ids, ratings, opt-in IPs and times, geo data).

Statuses: an unsubscribed or cleaned contact is imported unsubscribed (issue 34: "unsubscribed and
cleaned contacts stay unsubscribed") and an
import never makes such a contact active again. Mailchimp exports one file per status; the
status of the file is read from its status columns (``UNSUB_TIME``: unsubscribed; ``CLEAN_TIME``:
cleaned, imported ``unsubscribed`` as the issue fixes it).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

#: our own columns (matched case-insensitively)
OWN = ("email", "first_name", "last_name", "phone", "tags", "status")

MAILCHIMP_FIELDS = {"email address": "email", "first name": "first_name", "last name": "last_name",
                    "phone number": "phone", "tags": "tags"}
MAILCHIMP_IGNORED = {"member_rating", "optin_time", "optin_ip", "confirm_time", "confirm_ip", "latitude",
                     "longitude", "gmtoff", "dstoff", "timezone", "cc", "region", "last_changed", "leid", "euid",
                     "notes", "unsub_time", "unsub_campaign_title", "unsub_campaign_id", "unsub_reason",
                     "unsub_reason_other", "clean_time", "clean_campaign_title", "clean_campaign_id"}
MAILCHIMP_MARKERS = {"leid", "euid", "member_rating", "optin_time"}

SENDGRID_FIELDS = {"email": "email", "first_name": "first_name", "last_name": "last_name",
                   "phone_number": "phone"}
SENDGRID_IGNORED = {"contact_id", "created_at", "updated_at"}
SENDGRID_MARKERS = {"contact_id", "address_line_1", "state_province_region", "phone_number", "alternate_emails"}

LISTMONK_FIELDS = {"email": "email", "name": "name", "attributes": "attributes", "status": "status"}
LISTMONK_IGNORED = {"uuid", "created_at", "updated_at"}

#: platform status values → ours (anything else in a status column is a row error)
STATUS_VALUES = {"active": "active", "subscribed": "active", "enabled": "active", "confirmed": "active",
                 "unconfirmed": "active", "unsubscribed": "unsubscribed", "blocklisted": "unsubscribed",
                 "blacklisted": "unsubscribed", "disabled": "unsubscribed", "bounced": "bounced",
                 "cleaned": "unsubscribed"}


#: columns shown in a mapping (a contact has at most 50 custom fields: more columns only err)
MAX_SHOWN = 120


@dataclass
class Mapping:
    platform: str
    #: (column as in the file, target) in file order
    columns: list[tuple[str, str]] = field(default_factory=list)
    #: the status of every row of the file (Mailchimp's per-status files), or None
    file_status: str | None = None

    def public(self, max_columns: int = MAX_SHOWN) -> dict:
        """The mapping as shown (and stored on a job): at most ``max_columns`` columns, names cut
        at 100 characters, so a hostile header cannot grow the job item past DynamoDB's 400 KB."""
        cols = [(c[:100], t[:107]) for c, t in self.columns[:max_columns]]
        return {"platform": self.platform, "file_status": self.file_status,
                "columns": [{"column": c, "field": t} for c, t in cols],
                "custom_fields": [t.split(":", 1)[1] for _, t in cols if t.startswith("custom:")],
                "ignored": [c for c, t in cols if t == "ignored"], "truncated": len(self.columns) > max_columns}


def detect(header: list[str]) -> Mapping:
    names = [h.strip() for h in header]
    low = {n.lower() for n in names}
    if "email address" in low and low & MAILCHIMP_MARKERS:
        status = "unsubscribed" if "clean_time" in low or "unsub_time" in low else None
        return _map("mailchimp", names, MAILCHIMP_FIELDS, MAILCHIMP_IGNORED, status)
    if "email" in low and "attributes" in low and "name" in low:
        return _map("listmonk", names, LISTMONK_FIELDS, LISTMONK_IGNORED, None)
    if "email" in low and low & SENDGRID_MARKERS:
        return _map("sendgrid", names, SENDGRID_FIELDS, SENDGRID_IGNORED, None)
    return _map("generic", names, {n: n for n in OWN}, set(), None)


def _map(platform: str, names: list[str], fields: dict[str, str], ignored: set[str], status: str | None) -> Mapping:
    cols: list[tuple[str, str]] = []
    taken: set[str] = set()
    for n in names:
        k = n.lower()
        if not n:
            cols.append((n, "ignored"))
        elif k in fields and fields[k] not in taken:
            cols.append((n, fields[k]))
            taken.add(fields[k])
        elif k in ignored:
            cols.append((n, "ignored"))
        else:
            # SendGrid's reserved fields are upper case in its export (ADDRESS_LINE_1): kept lower case
            cols.append((n, "custom:" + (k if platform == "sendgrid" else n)))
    return Mapping(platform, cols, status)


def split_tags(platform: str, cell: str) -> list[str]:
    """Mailchimp writes ``"Customer","VIP"`` in its TAGS cell; ours are ``;``-separated."""
    if platform == "mailchimp":
        return [t.strip().strip('"').strip() for t in cell.split('","')]
    return cell.split(";")


def apply(m: Mapping, cells: list[str]) -> dict[str, str]:
    """One CSV row as our canonical row: ``email``, ``first_name``, ``last_name``, ``phone``,
    ``tags`` (``;``-joined), ``status`` and the custom fields under their own keys. A malformed
    value (listmonk attributes that are not a JSON object) gives ``__error__``."""
    row: dict[str, str] = {}
    custom: dict[str, str] = {}
    for (_col, target), cell in zip(m.columns, cells, strict=False):  # a short row: the rest are empty
        if target == "ignored":
            continue
        if target.startswith("custom:"):
            custom[target[7:]] = cell
        elif target == "name":
            first, _, last = cell.strip().partition(" ")
            row["first_name"], row["last_name"] = first, last.strip()
        elif target == "attributes":
            err = _attributes(cell, custom)
            if err:
                row["__error__"] = err
        elif target == "tags":
            row["tags"] = ";".join(t for t in split_tags(m.platform, cell) if t.strip())
        else:
            row[target] = cell
    if m.file_status:
        row["status"] = m.file_status
    for k, v in custom.items():
        row.setdefault(k if k not in OWN else f"custom.{k}", v)
    return row


def _attributes(cell: str, out: dict[str, str]) -> str | None:
    if not cell.strip():
        return None
    try:
        obj = json.loads(cell)
    except ValueError:
        return "attributes is not valid JSON"
    if not isinstance(obj, dict):
        return "attributes must be a JSON object"
    for k, v in obj.items():
        if v is None:
            continue
        out[str(k)] = v if isinstance(v, str) else json.dumps(v, separators=(",", ":"), ensure_ascii=False)
    return None


def status_of(value: str) -> str:
    """Our status for a status cell (empty: active). Raises ValueError for an unknown value."""
    v = value.strip().lower()
    if not v:
        return "active"
    if v not in STATUS_VALUES:
        raise ValueError(f"Unknown status {value.strip()!r}")
    return STATUS_VALUES[v]
