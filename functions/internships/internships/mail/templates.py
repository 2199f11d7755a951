"""Email templates: defaults shipped here, overridable by stored items.

A template is ``{subject, html}`` with ``{{name}}`` placeholders. Values are
HTML-escaped in the body; the subject is single-line text. Missing values
render as an empty string. Stored overrides live in item
``pk="EMAILTPL#<kind>"``, ``sk="TEMPLATE"`` (attributes ``subject``, ``html``).
"""
from __future__ import annotations

import html as _html
import re

#: The twelve kinds of the spec's ``test-email`` list.
PUBLIC_KINDS: tuple[str, ...] = (
    "enrollment", "certificate", "submission", "password_reset", "milestone_approved", "milestone_rejected",
    "announcement", "deadline_reminder", "offer_letter", "job_alert", "welcome", "inactive_student",
)
#: Internal kinds (not offered by test-email's documented list, but accepted by it too).
INTERNAL_KINDS: tuple[str, ...] = ("lead_notification", "contact_message", "invoice")
ALL_KINDS: tuple[str, ...] = PUBLIC_KINDS + INTERNAL_KINDS

_P = "<p style=\"margin:0 0 12px\">"

DEFAULTS: dict[str, dict[str, str]] = {
    "enrollment": {
        "subject": "You are enrolled in {{domainName}}",
        "html": _P + "Hi {{name}},</p>" + _P + "Your enrollment in <b>{{domainName}}</b> ({{duration}} month(s)) "
                "is confirmed. Amount paid: {{amount}}.</p>" + _P + "<a href=\"{{dashboardUrl}}\">Open your dashboard</a></p>",
    },
    "certificate": {
        "subject": "Your certificate for {{domainName}}",
        "html": _P + "Hi {{name}},</p>" + _P + "Congratulations! Your certificate <b>{{certificateId}}</b> for "
                "{{domainName}} has been issued.</p>" + _P + "<a href=\"{{verifyUrl}}\">Verify it here</a></p>",
    },
    "submission": {
        "subject": "We received your submission for {{domainName}}",
        "html": _P + "Hi {{name}},</p>" + _P + "Your final project submission for {{domainName}} was received. "
                "Our reviewers will get back to you soon.</p>",
    },
    "password_reset": {
        "subject": "Reset your password",
        "html": _P + "Hi {{name}},</p>" + _P + "Use the link below to reset your password. It expires in "
                "{{expiresMinutes}} minutes.</p>" + _P + "<a href=\"{{resetUrl}}\">Reset password</a></p>",
    },
    "milestone_approved": {
        "subject": "Milestone approved: {{milestoneTitle}}",
        "html": _P + "Hi {{name}},</p>" + _P + "Your milestone <b>{{milestoneTitle}}</b> was approved.</p>"
                + _P + "Reviewer remarks: {{remarks}}</p>",
    },
    "milestone_rejected": {
        "subject": "Milestone needs changes: {{milestoneTitle}}",
        "html": _P + "Hi {{name}},</p>" + _P + "Your milestone <b>{{milestoneTitle}}</b> needs changes. "
                "Please resubmit.</p>" + _P + "Reviewer remarks: {{remarks}}</p>",
    },
    "announcement": {
        "subject": "{{title}}",
        "html": _P + "Hi {{name}},</p>" + _P + "<b>{{title}}</b></p>" + _P + "{{content}}</p>",
    },
    "deadline_reminder": {
        "subject": "Reminder: {{domainName}} deadline on {{deadline}}",
        "html": _P + "Hi {{name}},</p>" + _P + "Your internship in {{domainName}} ends on <b>{{deadline}}</b> "
                "({{daysLeft}} day(s) left). Make sure your milestones and final project are submitted.</p>",
    },
    "offer_letter": {
        "subject": "Your offer letter for {{domainName}}",
        "html": _P + "Hi {{name}},</p>" + _P + "We are pleased to offer you an internship in <b>{{domainName}}</b> "
                "starting {{startDate}} for {{duration}} month(s).</p>",
    },
    "job_alert": {
        "subject": "{{count}} new jobs matching {{domainName}}",
        "html": _P + "Hi {{name}},</p>" + _P + "New openings this week:</p><ul>{{jobsHtml}}</ul>",
    },
    "welcome": {
        "subject": "Welcome to {{siteName}}",
        "html": _P + "Hi{{nameSuffix}},</p>" + _P + "Thanks for subscribing to {{siteName}}. You will hear about "
                "new internships, offers and job openings.</p>",
    },
    "inactive_student": {
        "subject": "We miss you at {{siteName}}",
        "html": _P + "Hi {{name}},</p>" + _P + "You have not signed in for {{days}} days. Your internship is "
                "waiting for you.</p>" + _P + "<a href=\"{{dashboardUrl}}\">Continue where you left off</a></p>",
    },
    "lead_notification": {
        "subject": "New lead: {{leadName}}",
        "html": _P + "A new lead arrived.</p><ul><li>Name: {{leadName}}</li><li>Phone: {{phone}}</li>"
                "<li>Domain: {{domain}}</li><li>Duration: {{duration}}</li></ul>",
    },
    "contact_message": {
        "subject": "Contact form: {{subject}}",
        "html": _P + "From {{senderName}} &lt;{{senderEmail}}&gt;</p>" + _P + "{{message}}</p>",
    },
    "invoice": {
        "subject": "Your invoice {{invoiceNumber}}",
        "html": _P + "Hi {{name}},</p>" + _P + "Your invoice {{invoiceNumber}} for {{amount}} is attached.</p>",
    },
}

#: Sample data used by ``POST /api/admin/test-email``.
SAMPLES: dict[str, dict] = {
    "enrollment": {"name": "Test Student", "domainName": "Web Development", "duration": 1, "amount": "999.00"},
    "certificate": {"name": "Test Student", "domainName": "Web Development", "certificateId": "CERT-25-ABC123"},
    "submission": {"name": "Test Student", "domainName": "Web Development"},
    "password_reset": {"name": "Test Student", "expiresMinutes": 30, "resetUrl": "https://example.com/reset"},
    "milestone_approved": {"name": "Test Student", "milestoneTitle": "Week 1", "remarks": "Great work"},
    "milestone_rejected": {"name": "Test Student", "milestoneTitle": "Week 1", "remarks": "Add tests"},
    "announcement": {"name": "Test Student", "title": "Test announcement", "content": "Hello from the team"},
    "deadline_reminder": {"name": "Test Student", "domainName": "Web Development", "deadline": "2025-01-31",
                          "daysLeft": 3},
    "offer_letter": {"name": "Test Student", "domainName": "Web Development", "startDate": "2025-01-01",
                     "duration": 1},
    "job_alert": {"name": "Test Student", "domainName": "Web Development", "count": 1,
                  "jobs": [{"title": "Intern", "company": "Acme", "url": "https://example.com/job"}]},
    "welcome": {},
    "inactive_student": {"name": "Test Student", "days": 14},
    "lead_notification": {"leadName": "Test Lead", "phone": "+10000000000", "domain": "Web", "duration": "1"},
    "contact_message": {"senderName": "Test", "senderEmail": "test@example.com", "subject": "Hello",
                        "message": "Test message"},
    "invoice": {"name": "Test Student", "invoiceNumber": "INV-TEST", "amount": "999.00"},
}

_VAR = re.compile(r"\{\{\s*([A-Za-z0-9_]+)\s*\}\}")


def _text(v) -> str:
    if v is None:
        return ""
    return str(v)


def _jobs_html(jobs) -> str:
    out = []
    for j in jobs or []:
        if not isinstance(j, dict):
            continue
        title = _html.escape(_text(j.get("title")))
        company = _html.escape(_text(j.get("company")))
        url = _text(j.get("url"))
        link = _html.escape(url, quote=True) if url.startswith(("https://", "http://")) else ""
        label = f"{title} — {company}" if company else title
        out.append(f"<li><a href=\"{link}\">{label}</a></li>" if link else f"<li>{label}</li>")
    return "".join(out)


def render(tpl: dict[str, str], data: dict) -> tuple[str, str]:
    """Render ``tpl`` with ``data``: ``(subject, html)``."""
    values = dict(data or {})
    if "jobsHtml" not in values and "jobs" in values:
        values["jobsHtml"] = None  # computed below, already safe HTML
    name = values.get("name")
    values.setdefault("nameSuffix", f" {name}" if name else "")

    def sub_html(m: re.Match) -> str:
        key = m.group(1)
        if key == "jobsHtml":
            return _jobs_html(values.get("jobs"))
        return _html.escape(_text(values.get(key)), quote=True)

    def sub_text(m: re.Match) -> str:
        return _text(values.get(m.group(1)))

    subject = _VAR.sub(sub_text, tpl.get("subject", ""))
    subject = " ".join(subject.split())[:200]  # single line: no header injection
    body = _VAR.sub(sub_html, tpl.get("html", ""))
    return subject, body


def wrap(body: str, *, site_name: str, pixel_url: str | None) -> str:
    pixel = (f'<img src="{_html.escape(pixel_url, quote=True)}" width="1" height="1" alt="" '
             'style="display:block;border:0" />') if pixel_url else ""
    return ("<!doctype html><html><body style=\"font-family:Arial,sans-serif;color:#222\">"
            f"{body}<p style=\"color:#888;font-size:12px\">{_html.escape(site_name)}</p>{pixel}</body></html>")
