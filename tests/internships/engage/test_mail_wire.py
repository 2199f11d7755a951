"""Every internships mail kind as a mailbox gets it (issue 30): the raw MIME the sandbox keeps (the
bytes the SES provider sends), read with Python's ``email`` package and checked on the bytes, served
by ``GET /api/admin/email-queue/{id}/raw``; SpamAssassin's local score of each default template."""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

from tests.mailwire import check_wire, parts, spam_score

from .conftest import drain_queue


def _send_all(eng, to: str) -> dict[str, str]:
    """Queue one mail of every kind (its sample data) and deliver them: {kind: email id}."""
    from internships.mail import outbox
    from internships.mail.templates import ALL_KINDS, SAMPLES

    ids = {kind: outbox.enqueue(kind, to, dict(SAMPLES.get(kind, {}), name="Test Student")) for kind in ALL_KINDS}
    drain_queue(eng.internships, max_rounds=10)
    return ids


def _raw(eng, admin, email_id: str) -> bytes:
    r = eng.internships.get(f"/api/admin/email-queue/{email_id}/raw", headers=admin.headers)
    assert r.status == 200, r.text
    assert r.headers["content-type"].startswith("message/rfc822")
    return r.body


def test_every_kind_on_the_wire(eng, intern_users):
    from internships.mail.templates import ALL_KINDS

    admin = intern_users.staff("admin")
    ids = _send_all(eng, "student@example.org")
    assert set(ids) == set(ALL_KINDS)
    for kind, email_id in ids.items():
        msg = check_wire(_raw(eng, admin, email_id), from_domain="example.com", unsubscribe=False)
        text, html = parts(msg)
        assert msg["To"] == "student@example.org" and msg["Subject"]
        # the text part is the mail's text (not "please use an HTML client"), with its links
        assert "HTML-capable" not in text and text.strip(), kind
        for href in re.findall(r'<a href="(https?://[^"]+)"', html):
            assert href.replace("&amp;", "&") in text, (kind, href, text)
        assert "/api/email/track" not in text  # the open pixel is no link


def test_raw_route_needs_email_rights_and_a_kept_message(eng, intern_users):
    from internships.mail import outbox

    admin = intern_users.staff("admin")
    student = intern_users.student()
    email_id = outbox.enqueue("welcome", "w@example.org", {})
    c = eng.internships
    assert c.get(f"/api/admin/email-queue/{email_id}/raw", headers=admin.headers).status == 404  # not sent yet
    drain_queue(c)
    assert c.get(f"/api/admin/email-queue/{email_id}/raw", headers=admin.headers).status == 200
    assert c.get(f"/api/admin/email-queue/{email_id}/raw", headers=student.headers).status == 403
    assert c.get(f"/api/admin/email-queue/{email_id}/raw").status == 401
    assert c.get("/api/admin/email-queue/not-an-id!/raw", headers=admin.headers).status == 404


def test_spamassassin_local_score_of_every_kind_below_2(eng, intern_users):
    admin = intern_users.staff("admin")
    raws = {}
    for kind, email_id in _send_all(eng, "student@example.org").items():
        raws[kind] = _raw(eng, admin, email_id)
        check_wire(raws[kind], from_domain="example.com", unsubscribe=False)
    with ThreadPoolExecutor(max_workers=3) as pool:  # one spamassassin process per message
        scores = dict(zip(raws, pool.map(spam_score, raws.values()), strict=True))
    assert all(score < 2.0 for score, _ in scores.values()), scores


def test_ses_is_handed_the_same_message(eng, monkeypatch):
    """With the SES provider, SendEmail gets Content.Raw from the same builder (captured from the
    botocore call itself)."""
    from internships.mail import outbox
    from lambdakit import aws
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_EMAIL_PROVIDER", "ses")
    reset_settings()
    sent: list[bytes] = []

    def grab(params, **_):
        sent.append(params["Content"]["Raw"]["Data"])

    client = aws.client("sesv2")
    client.meta.events.register("provide-client-params.sesv2.SendEmail", grab)
    try:
        outbox.enqueue("password_reset", "s@example.org", {"name": "Sam", "expiresMinutes": 30,
                                                           "resetUrl": "https://www.example.com/reset?t=1"})
        drain_queue(eng.internships)
    finally:
        client.meta.events.unregister("provide-client-params.sesv2.SendEmail", grab)
        reset_settings()
    assert len(sent) == 1
    text, _ = parts(check_wire(sent[0], from_domain="example.com", unsubscribe=False))
    assert "Reset password (https://www.example.com/reset?t=1)" in text
