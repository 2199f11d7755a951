"""Campaign, bulk and single-send mail as mailbox providers get it (issue 30): the raw MIME the
outbox keeps (the bytes the SES provider sends) read with Python's ``email`` package, the marketing
footer, and SpamAssassin's local score."""
from __future__ import annotations

import re

import pytest

from tests.mailwire import check_wire, parts, spam_score, unsubscribe_url

POSTAL = "Example Mail Ltd\n1 Sample Street\nLondon EC1A 1AA"
#: a campaign as an author writes one: a title, a heading, a call to action; no unsubscribe placeholder
NEWSLETTER = (
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>Spring courses</title></head>"
    "<body style=\"font-family:Arial,sans-serif;color:#222\"><h1>New courses this spring</h1>"
    "<p>Hi {{first_name}},</p><p>Our spring catalogue is out: twelve new courses in data analysis, web "
    "development and design, each taught by practitioners and open for enrolment until the end of the month.</p>"
    "<p><a href=\"https://shop.example.com/courses\">Browse courses</a></p>"
    "<p>See you in class,<br>The Example team</p></body></html>")
SANDBOX = {"from_email": "news@example.com", "from_name": "Example News", "provider": {"provider": "sandbox"}}
#: a newsletter of ordinary length (about 3,500 characters of text): SpamAssassin's HTML_IMAGE_ONLY_*
#: rules (0.6-2.8 points locally) fire on any HTML mail that holds an image (the open-tracking pixel
#: is one) and less than 3,200 bytes of text, whoever sends it; docs/quality.md has the scores of both
FULL_NEWSLETTER = NEWSLETTER.replace("<p>See you in class", "".join(
    f"<h2>{title}</h2><p>{body}</p><p><a href=\"https://shop.example.com/{slug}\">Read more about {title.lower()}</a></p>"
    for title, slug, body in [
        ("Data analysis with Python", "data", "Six weeks of practical work with real public data sets: cleaning, "
         "exploring and charting data with pandas, then presenting what you found to a panel of analysts who do "
         "this every day. Each week ends with a short project reviewed by your tutor, and the final project "
         "becomes part of your portfolio. Evening and weekend groups are available, and every session is "
         "recorded for the weeks you cannot attend live."),
        ("Web development foundations", "web", "Build and publish three small websites, from semantic HTML and "
         "modern CSS layout to accessible forms and a first taste of JavaScript. You will learn how the browser "
         "renders a page, how to test a layout on phones and desktops, and how to publish your work for free. "
         "The course suits complete beginners; all you need is a laptop and a few hours a week."),
        ("Design for the screen", "design", "Typography, colour and layout for interfaces, taught through weekly "
         "critiques of your own work. You will redesign a real charity's donation page, run a small usability "
         "test with five people, and learn to explain your decisions to developers and clients. Past students "
         "say the critiques were the most useful part of the whole programme."),
        ("Scholarships and payment plans", "funding", "Twenty part-scholarships are open to students who are "
         "returning to work after a career break. Every course can also be paid in three monthly instalments "
         "without any fee. Write to our admissions team if you would like to talk about which course suits you; "
         "we answer every message within two working days."),
    ]) + "<p>See you in class")
PROVIDER = {"provider": "sandbox", "from_email": "news@example.com", "from_name": "Example News"}


def _raw(camp, message_id: str) -> bytes:
    r = camp.get(f"/email/outbox/{message_id}/raw")
    assert r.status == 200, r.text
    assert r.headers["content-type"].startswith("message/rfc822")
    return r.body


def _campaign(camp, pipe, *, content: str = NEWSLETTER, to: str = "ann@example.com") -> tuple[str, dict, bytes]:
    camp.post("/contacts", json={"email": to, "first_name": "Ann"})
    r = camp.post("/campaigns", json={
        "name": "Spring", "subject": "New courses this spring, {{first_name}}", "content": content,
        "audience": {"type": "test", "test_emails": [to]}, "schedule": {"type": "immediate"},
        "tracking": {"track_opens": True, "track_clicks": True}, "settings": SANDBOX})
    cid = r.json()["data"]["id"]
    assert camp.post(f"/campaigns/{cid}/send", json={"confirm": True}).status == 200
    pipe.send_all()
    m = camp.get("/email/outbox", query={"campaign_id": cid}).json()["data"]["messages"][0]
    return cid, m, _raw(camp, m["id"])


def test_account_postal_address_route(camp):
    r = camp.get("/account")
    assert r.status == 200 and r.json()["data"]["postal_address"] == ""
    assert r.json()["data"]["compliance_warnings"][0].startswith("postal_address_missing")
    r = camp.put("/account", json={"postal_address": "  Example Mail Ltd \n\n 1 Sample Street\nLondon  "})
    assert r.status == 200, r.text
    assert r.json()["data"]["postal_address"] == "Example Mail Ltd\n1 Sample Street\nLondon"
    assert r.json()["data"]["compliance_warnings"] == []
    assert camp.get("/account").json()["data"]["postal_address"] == "Example Mail Ltd\n1 Sample Street\nLondon"
    for bad in ({"postal_address": "a\x00b"}, {"postal_address": "x" * 501}, {"postal_address": "\n".join("abcdefg")},
                {}, {"postal_address": "ok", "other": 1}):
        r = camp.put("/account", json=bad)
        assert r.status == 422 and r.json()["success"] is False, (bad, r.text)


def test_campaign_mail_on_the_wire(camp, pipe):
    camp.put("/account", json={"postal_address": POSTAL})
    cid, m, raw = _campaign(camp, pipe)
    msg = check_wire(raw, from_domain="example.com", unsubscribe=True)
    text, html = parts(msg)
    unsub = unsubscribe_url(raw)
    assert m["headers"]["List-Unsubscribe"] == f"<{unsub}>"  # the outbox fields and the wire agree
    assert msg["Subject"] == "New courses this spring, Ann" and msg["From"].addresses[0].display_name == "Example News"
    # the footer: a visible unsubscribe link and the postal address, in both parts
    assert html.count(f'href="{unsub}"') == 1 and "1 Sample Street" in html
    assert unsub in text and "1 Sample Street" in text and "London EC1A 1AA" in text
    # the text part a person can use: links kept (the tracked link), no <title> first, no pixel
    assert text.lstrip().startswith("New courses this spring") and "Spring courses" not in text
    assert re.search(r"Browse courses \(https?://[^/\s]+/t/c/[^)\s]+\)", text), text
    assert "/t/o/" not in text
    assert camp.get(f"/campaigns/{cid}").json()["data"]["compliance_warnings"] == []


def test_template_placing_the_unsubscribe_link_gets_no_second_one(camp, pipe):
    camp.put("/account", json={"postal_address": POSTAL})
    content = NEWSLETTER.replace("</body>", "<p><a href=\"{{unsubscribe_url}}\">Leave this list</a></p></body>")
    _, _, raw = _campaign(camp, pipe, content=content)
    text, html = parts(check_wire(raw, from_domain="example.com", unsubscribe=True))
    unsub = unsubscribe_url(raw)
    assert html.count(unsub) == 1 and "Leave this list" in html and ">Unsubscribe</a>" not in html
    assert "1 Sample Street" in html and f"Leave this list ({unsub})" in text


def test_no_postal_address_still_sends_with_a_warning(camp, pipe):
    cid, _, raw = _campaign(camp, pipe)
    _, html = parts(check_wire(raw, from_domain="example.com", unsubscribe=True))
    assert html.count(unsubscribe_url(raw)) == 1  # the footer's link is there without the address
    d = camp.get(f"/campaigns/{cid}").json()["data"]
    assert d["status"] == "sent" and d["compliance_warnings"][0].startswith("postal_address_missing")


def test_bulk_mail_on_the_wire(camp, pipe):
    camp.put("/account", json={"postal_address": POSTAL})
    r = camp.post("/email/bulk", json={"recipients": [{"to": "b1@example.com", "variables": {"first_name": "Bo"}}],
                                       "subject": "Spring courses", "html": NEWSLETTER, "provider": PROVIDER})
    assert r.status == 202, r.text
    pipe.send_all()
    bid = r.json()["data"]["bulk_id"]
    m = camp.get("/email/outbox", query={"bulk_id": bid}).json()["data"]["messages"][0]
    raw = _raw(camp, m["id"])
    text, html = parts(check_wire(raw, from_domain="example.com", unsubscribe=True))
    assert unsubscribe_url(raw) in text and "1 Sample Street" in html and "Hi Bo," in text


def test_single_send_footer_and_transactional_opt_out(camp):
    camp.put("/account", json={"postal_address": POSTAL})
    body = {"to": "c1@example.com", "subject": "Your spring catalogue", "html": NEWSLETTER,
            "variables": {"first_name": "Cy"}, "provider": PROVIDER}
    d = camp.post("/email/send", json=body).json()["data"]
    raw = _raw(camp, d["message_id"])
    text, html = parts(check_wire(raw, from_domain="example.com", unsubscribe=True))
    assert unsubscribe_url(raw) in text and "1 Sample Street" in text
    d = camp.post("/email/send", json={**body, "transactional": True}).json()["data"]
    raw = _raw(camp, d["message_id"])
    text, html = parts(check_wire(raw, from_domain="example.com", unsubscribe=False))
    assert "/unsubscribe/" not in html and "1 Sample Street" not in text
    assert camp.post("/email/send", json={**body, "transactional": "maybe"}).status == 422


def test_raw_route_is_the_accounts_own(camp, make_key):
    d = camp.post("/email/send", json={"to": "d1@example.com", "subject": "s", "html": "<p>x</p>",
                                       "provider": PROVIDER}).json()["data"]
    assert camp.get("/email/outbox/sandbox-nope/raw").status == 404
    other = {"Authorization": f"Bearer {make_key(account_id='acct-other')}"}
    assert camp.get(f"/email/outbox/{d['message_id']}/raw", headers=other).status == 404
    reader = {"Authorization": f"Bearer {make_key(scopes=['campaigns:read'])}"}
    assert camp.get(f"/email/outbox/{d['message_id']}/raw", headers=reader).status == 403


def test_big_message_raw_is_stored_in_pieces(camp):
    """An attachment makes the bytes bigger than one DynamoDB item: they are kept in pieces."""
    import base64
    import os

    blob = base64.b64encode(os.urandom(600_000)).decode()  # incompressible
    d = camp.post("/email/send", json={"to": "e1@example.com", "subject": "s", "html": "<p>file</p>",
                                       "provider": PROVIDER, "transactional": True,
                                       "attachments": [{"filename": "a.bin", "content": blob,
                                                        "type": "application/octet-stream"}]}).json()["data"]
    raw = _raw(camp, d["message_id"])
    msg = check_wire(raw, from_domain="example.com", unsubscribe=False)
    att = next(msg.iter_attachments())
    assert att.get_filename() == "a.bin" and att.get_content() == base64.b64decode(blob)


@pytest.mark.parametrize("kind", ["campaign", "bulk", "single"])
def test_spamassassin_local_score_below_2(camp, pipe, kind):
    camp.put("/account", json={"postal_address": POSTAL})
    if kind == "campaign":
        raw = _campaign(camp, pipe, content=FULL_NEWSLETTER)[2]
    elif kind == "bulk":
        r = camp.post("/email/bulk", json={"recipients": [{"to": "g1@example.com", "variables": {"first_name": "Gil"}}],
                                           "subject": "Spring courses", "html": FULL_NEWSLETTER, "provider": PROVIDER})
        pipe.send_all()
        m = camp.get("/email/outbox", query={"bulk_id": r.json()["data"]["bulk_id"]}).json()["data"]["messages"][0]
        raw = _raw(camp, m["id"])
    else:
        d = camp.post("/email/send", json={"to": "f1@example.com", "subject": "Your spring catalogue",
                                           "html": FULL_NEWSLETTER, "variables": {"first_name": "Fay"},
                                           "provider": PROVIDER}).json()["data"]
        raw = _raw(camp, d["message_id"])
    score, rules = spam_score(raw)
    assert score < 2.0, (score, rules)


def test_ses_is_handed_the_same_message(camp):
    """The SES provider's SendEmail gets Content.Raw from the same builder: the bytes as a receiver
    reads them (captured from the botocore call itself)."""
    from lambdakit import aws

    camp.put("/account", json={"postal_address": POSTAL})
    sent: list[bytes] = []

    def grab(params, **_):
        sent.append(params["Content"]["Raw"]["Data"])

    client = aws.client("sesv2")
    client.meta.events.register("provide-client-params.sesv2.SendEmail", grab)
    try:
        d = camp.post("/email/send", json={"to": "h1@example.com", "subject": "Your spring catalogue", "html": NEWSLETTER,
                                           "variables": {"first_name": "Hal"},
                                           "provider": {**PROVIDER, "provider": "ses"}}).json()["data"]
    finally:
        client.meta.events.unregister("provide-client-params.sesv2.SendEmail", grab)
    assert d["status"] == "sent" and len(sent) == 1
    text, html = parts(check_wire(sent[0], from_domain="example.com", unsubscribe=True))
    assert unsubscribe_url(sent[0]) in text and "1 Sample Street" in html and "Hi Hal," in text


def test_dev_account_gets_a_sample_postal_address_once(campaigns_app):
    from campaigns import devseed
    from campaigns.account import repository

    first = devseed.seed()
    assert repository.get(devseed.DEV_ACCOUNT)["postal_address"] == devseed.DEV_POSTAL_ADDRESS
    repository.set_postal_address(devseed.DEV_ACCOUNT, "Changed Ltd\n2 Other Road")
    devseed.seed(first)  # a restart keeps what the developer set
    assert repository.get(devseed.DEV_ACCOUNT)["postal_address"] == "Changed Ltd\n2 Other Road"
