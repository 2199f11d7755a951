"""Header-bound text: values that end up in a mail header (From display name, Subject, custom
headers). A line break there is header injection (``Bcc:`` smuggled into ``From``) and makes
Python's ``email`` package raise when the message is built, so such values are refused at the
API (422) for every provider, and checked again when a message is rendered (``unsafe_header``)."""
from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, Field

#: C0 controls except TAB, DEL, and the Unicode line/paragraph separators (and NEL) that
#: ``str.splitlines`` - and so header folding - treats as line breaks.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029]")
MESSAGE = "must not contain line breaks or control characters (it is sent as a mail header)"


def unsafe_header(value: str | None) -> bool:
    return bool(value) and _UNSAFE.search(value or "") is not None


def _check(value: str | None) -> str | None:
    if unsafe_header(value):
        raise ValueError(MESSAGE)
    return value


HeaderText = Annotated[str, AfterValidator(_check), Field(
    description="Sent as a mail header: line breaks and control characters are refused (422)")]
