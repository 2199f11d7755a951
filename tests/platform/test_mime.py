"""lambdakit.mime, the one MIME builder (issue 30), checked on the bytes it writes."""
from __future__ import annotations

import email
import email.policy

import pytest

from lambdakit import mime
from tests.mailwire import check_wire, parts, raw_header


def _build(url: str, **kw) -> bytes:
    return mime.build(from_email="news@example.com", from_name="Ünïcode News", to="a@example.org",
                      subject="Grüße aus Köln", html="<p>Hi <a href='https://x.example/c'>Courses</a></p>",
                      text=None, list_unsubscribe=url, one_click=True, **kw)


def test_a_long_unsubscribe_url_is_written_verbatim_never_encoded():
    # Python's own email policy encodes this header as =?utf-8?q?...?= over several lines (issue 30)
    url = "https://mail.example.com/unsubscribe/" + "A" * 850 + "." + "b" * 43
    stock = email.message.EmailMessage(policy=email.policy.SMTP)
    stock["List-Unsubscribe"] = f"<{url}>"
    assert "=?" in stock.as_string()  # the behaviour the builder must not have
    raw = _build(url)
    line = next(x for x in raw.split(b"\r\n") if x.startswith(b"List-Unsubscribe:"))
    assert line == f"List-Unsubscribe: <{url}>".encode() and len(line) <= 998
    msg = check_wire(raw, from_domain="example.com", unsubscribe=True)
    assert str(msg["List-Unsubscribe"]) == f"<{url}>"
    assert msg["Subject"] == "Grüße aus Köln" and msg["From"].addresses[0].display_name == "Ünïcode News"
    text, _ = parts(msg)
    assert text.strip() == "Hi Courses (https://x.example/c)"


def test_several_targets_fold_only_at_whitespace():
    value = ", ".join(f"<https://mail.example.com/u/{i}/{'x' * 40}>" for i in range(4)) + ", <mailto:u@example.com>"
    raw = mime.build(from_email="n@example.com", to="a@example.org", subject="s", text="t",
                     headers={"List-Unsubscribe": value})
    block = raw.split(b"\r\n\r\n", 1)[0].decode()
    start = block.index("List-Unsubscribe:")
    lines = block[start:].split("\r\n")
    folded = [lines[0]] + [x for x in lines[1:] if x.startswith(" ")][: value.count(" ")]
    # one fold per target here (each is too long to share a 78-octet line), each at the space after a comma
    assert len(folded) == 5 and all(x.endswith(">,") for x in folded[:-1])
    assert all(x.startswith(" <") for x in folded[1:]) and all(len(x) <= 998 for x in folded)
    assert raw_header(raw, "List-Unsubscribe") == value  # unfolding gives the value back


@pytest.mark.parametrize("bad", ["https://x.example/" + "a" * 1000, "https://x.example/ä", "https://x.example/\x01"])
def test_a_value_that_cannot_be_written_plainly_is_refused(bad):
    with pytest.raises(ValueError):
        mime.build(from_email="n@example.com", to="a@example.org", subject="s", text="t", list_unsubscribe=bad)


def test_text_part_keeps_links_and_drops_the_title():
    html = ("<html><head><title>Newsletter</title><style>p{color:red}</style></head><body><h1>Hello</h1>"
            "<ul><li><a href='https://a.example/1'>One</a></li><li>Two</li></ul>"
            "<p><a href='https://a.example/2'>https://a.example/2</a></p><img src='https://t.example/p.gif'></body></html>")
    text = mime.html_to_text(html)
    assert text.startswith("Hello") and "Newsletter" not in text and "color" not in text
    assert "One (https://a.example/1)" in text and "Two" in text
    assert "https://a.example/2 (" not in text and "https://a.example/2" in text  # no "url (url)"
    assert "p.gif" not in text


def test_attachments_make_a_mixed_message_with_the_alternative_first():
    raw = mime.build(from_email="n@example.com", to="a@example.org", subject="s", text="t", html="<p>t</p>",
                     attachments=[mime.Attachment("r.pdf", b"%PDF-1.4 x", "application/pdf")])
    msg = check_wire(raw, from_domain="example.com", unsubscribe=False)
    assert msg.get_content_type() == "multipart/mixed"
    assert [p.get_content_type() for p in msg.iter_parts()] == ["multipart/alternative", "application/pdf"]
    assert next(msg.iter_attachments()).get_content() == b"%PDF-1.4 x"


def test_pack_keeps_pieces_under_the_item_limit():
    import os

    raw = os.urandom(700_000)
    pieces = mime.pack(raw)
    assert len(pieces) == 3 and all(len(p) <= mime.STORE_PIECE for p in pieces)
    assert mime.unpack(pieces) == raw
