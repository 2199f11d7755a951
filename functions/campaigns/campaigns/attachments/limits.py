"""The real size limits of sending (issue #18 item 8), in one place.

- Lambda receives at most a 6 MB (6,291,456-byte) synchronous event; API Gateway refuses more
  with its own 413 before any function runs. A JSON body arrives as text, so inline base64
  attachments are capped well below that: ``INLINE_MAX_TOTAL_BYTES`` decoded (4,000,000 base64
  characters), leaving room for bodies and the rest of the event.
- Bigger files go through ``POST /attachments`` (presigned S3 POST, ``content-length-range``
  1..``UPLOAD_MAX_BYTES``) and are referenced by ``attachment_id``.
- Amazon SES v2: a message may be at most 40 MB *after* MIME encoding (SES quotas page:
  "Using the SES v2 API or SMTP - Maximum message size (including attachments): 40 MB per
  message (after base64 encoding)"). Base64 with 76-character lines grows a part by
  78/57 ≈ 1.37, so ≈ 29 MB of attachments fit in one message.
"""
from __future__ import annotations

INLINE_MAX_TOTAL_BYTES = 3_000_000
UPLOAD_MAX_BYTES = 25 * 1024 * 1024
SES_MAX_MESSAGE_BYTES = 40_000_000  # "40 MB", read as the smaller decimal figure
MAX_ATTACHMENTS = 20
#: Room for the message headers, MIME boundaries and part headers.
HEADER_ALLOWANCE = 16_384
PART_ALLOWANCE = 512


def encoded_size(n: int) -> int:
    """Bytes of ``n`` bytes once base64-encoded in 76-character lines with CRLF (57 → 78)."""
    return -(-n // 57) * 78


def message_estimate(html: str | None, text: str | None, attachment_sizes: list[int]) -> int:
    """Upper estimate of the MIME message size (bodies counted as if base64-encoded too)."""
    body = encoded_size(len((html or "").encode())) + encoded_size(len((text or " ").encode()))
    return HEADER_ALLOWANCE + body + sum(encoded_size(n) + PART_ALLOWANCE for n in attachment_sizes)
