"""The unsubscribe link as mail scanners and people use it (issue 30): a GET (Safe Links, Proofpoint,
Barracuda fetch every link, with no cookies and no form) changes nothing; the page's form POST and
RFC 8058's one-click POST unsubscribe; the done page offers subscribe-again for 7 days, by POST only."""
from __future__ import annotations

import re

from lambdakit import clock
from tests.mailwire import unsubscribe_url

SCANNER = {"user-agent": "Mozilla/5.0 (compatible; SafeLinks; Microsoft Defender)"}
FORM = {"content-type": "application/x-www-form-urlencoded"}


def _mail(camp, pipe, email: str, from_name: str = "Example News") -> tuple[str, str]:
    """(contact id, unsubscribe path) of a campaign mail to a new contact."""
    cid = camp.post("/contacts", json={"email": email}).json()["data"]["id"]
    r = camp.post("/campaigns", json={
        "name": "n", "subject": "Hello", "content": "<html><body><p>Hello</p></body></html>",
        "audience": {"type": "test", "test_emails": [email]}, "schedule": {"type": "immediate"},
        "settings": {"from_email": "news@example.com", "from_name": from_name, "provider": {"provider": "sandbox"}}})
    camp.post(f"/campaigns/{r.json()['data']['id']}/send", json={"confirm": True})
    pipe.send_all()
    m = camp.get("/email/outbox", query={"to": email}).json()["data"]["messages"][0]
    raw = camp.get(f"/email/outbox/{m['id']}/raw").body
    return cid, re.sub(r"^https?://[^/]+", "", unsubscribe_url(raw))


def _status(camp, cid: str) -> str:
    return camp.get(f"/contacts/{cid}").json()["data"]["status"]


def _page_checks(r) -> str:
    assert r.headers["content-type"].startswith("text/html")
    page = r.text
    assert "<script" not in page.lower() and "content-security-policy" in r.headers
    assert "script-src" not in r.headers["content-security-policy"]  # default-src 'none': no script at all
    return page


def test_get_is_a_confirmation_page_and_changes_nothing(camp, pipe):
    cid, link = _mail(camp, pipe, "scan@example.com")
    for _ in range(3):  # a scanner, then another, then the person's preview
        r = camp.request("GET", link, headers=SCANNER)
        assert r.status == 200 and "set-cookie" not in r.headers
        page = _page_checks(r)
        assert "scan@example.com" in page and "Example News" in page
        assert re.search(r'<form method="post" action="[^"]*' + re.escape(link) + '"', page), page
        assert page.count("<button") == 1
    assert _status(camp, cid) == "active"


def test_form_post_unsubscribes_and_offers_resubscribe(camp, pipe):
    cid, link = _mail(camp, pipe, "form@example.com")
    r = camp.request("POST", link, body="confirm=yes", headers=FORM)
    assert r.status == 200 and _status(camp, cid) == "unsubscribed"
    page = _page_checks(r)
    assert "You are unsubscribed" in page and 'action="' in page and link + "/resubscribe" in page
    # the resubscribe link, fetched by a scanner: nothing changes
    r = camp.request("GET", link + "/resubscribe", headers=SCANNER)
    assert r.status == 200 and "Subscribe again" in _page_checks(r)
    assert _status(camp, cid) == "unsubscribed"
    # the unsubscribe link fetched again shows the done page, still unsubscribed
    assert "You are unsubscribed" in camp.get(link).text and _status(camp, cid) == "unsubscribed"
    # the person's button
    r = camp.request("POST", link + "/resubscribe", body="confirm=yes", headers=FORM)
    assert r.status == 200 and "subscribed again" in _page_checks(r)
    assert _status(camp, cid) == "active"
    # the offer was used: a second POST finds nothing to undo
    assert camp.request("POST", link + "/resubscribe", body="confirm=yes", headers=FORM).status == 404
    assert _status(camp, cid) == "active"


def test_one_click_post_unsubscribes(camp, pipe):
    cid, link = _mail(camp, pipe, "oneclick@example.com")
    r = camp.request("POST", link, body="List-Unsubscribe=One-Click", headers=FORM)  # RFC 8058, no cookies
    assert r.status == 200 and _status(camp, cid) == "unsubscribed"
    assert camp.get(f"/contacts/{cid}").json()["data"]["status"] == "unsubscribed"


def test_resubscribe_window_closes_after_7_days(camp, pipe):
    cid, link = _mail(camp, pipe, "late@example.com")
    camp.request("POST", link, body="List-Unsubscribe=One-Click", headers=FORM)
    try:
        clock.set_offset(8 * 86400)
        assert camp.get(link + "/resubscribe").status == 404
        assert camp.request("POST", link + "/resubscribe", body="confirm=yes", headers=FORM).status == 404
        assert "/resubscribe" not in camp.get(link).text  # no offer on the page any more
    finally:
        clock.set_offset(0)
    assert _status(camp, cid) == "unsubscribed"


def test_a_bounced_contact_is_never_resubscribed(camp, pipe):
    cid, link = _mail(camp, pipe, "bouncy@example.com")
    camp.request("POST", link, body="confirm=yes", headers=FORM)
    camp.put(f"/contacts/{cid}", json={"status": "bounced"})
    r = camp.request("POST", link + "/resubscribe", body="confirm=yes", headers=FORM)
    assert r.status == 200 and "Nothing to change" in r.text and _status(camp, cid) == "bounced"


def test_pages_escape_values_and_refuse_bad_tokens(camp, pipe):
    _, link = _mail(camp, pipe, "esc@example.com", from_name="Tom & <b>Jerry</b>")
    page = camp.get(link).text
    assert "Tom &amp; &lt;b&gt;Jerry&lt;/b&gt;" in page and "<b>Jerry" not in page
    bad = link[:-3] + ("AAA" if not link.endswith("AAA") else "BBB")
    for method, path in (("GET", bad), ("POST", bad), ("GET", bad + "/resubscribe"), ("POST", bad + "/resubscribe")):
        r = camp.request(method, path, body="confirm=yes", headers=FORM)
        assert r.status == 404 and "not valid" in r.text


def test_single_send_unsubscribe_suppresses_an_address_that_was_no_contact(camp):
    d = camp.post("/email/send", json={"to": "walkin@example.com", "subject": "Hi", "html": "<p>Hello</p>",
                                       "provider": {"provider": "sandbox", "from_email": "news@example.com"}}).json()["data"]
    raw = camp.get(f"/email/outbox/{d['message_id']}/raw").body
    link = re.sub(r"^https?://[^/]+", "", unsubscribe_url(raw))
    assert camp.get(link).status == 200
    assert camp.get("/contacts", query={"search": "walkin@example.com"}).json()["data"]["contacts"] == []
    camp.request("POST", link, body="List-Unsubscribe=One-Click", headers=FORM)
    again = camp.post("/email/send", json={"to": "walkin@example.com", "subject": "Hi", "html": "<p>Hello</p>",
                                           "provider": {"provider": "sandbox", "from_email": "news@example.com"}})
    assert again.json()["data"]["status"] == "suppressed"
