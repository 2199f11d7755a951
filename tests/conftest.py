"""Shared fixtures: a fresh moto account per test, provisioned from the templates.

``app`` yields ``local_runtime.testing.AppUnderTest``; ``app.campaigns``, ``app.exams``
and ``app.internships`` call routes through the real handlers. ``campaigns_app``,
``exams_app`` and ``internships_app`` provision only that service (faster).

One moto mock lives for the whole test process; each fixture resets it to a fresh
account and re-creates the templates' resources (see ``local_runtime.testing.Harness``).
"""
from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "layers" / "shared", ROOT / "functions" / "campaigns", ROOT / "functions" / "exams",
          ROOT / "functions" / "internships"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_REGION", "us-east-1")
os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "Tests")
os.environ.setdefault("POWERTOOLS_DEV", "false")
os.environ.pop("AWS_ENDPOINT_URL", None)
# issue 35: a 2xx JSON answer that bypassed its route's response model is a 500 in the suite (lambdakit.responses)
os.environ.setdefault("LAMBDAKIT_RESPONSES_STRICT", "1")
# The harness exports each template's Stage=local when it provisions a service; code imported
# before that (module-level imports of the service packages) sees the same explicit stage.
# Settings have no stage default (issue 17: a missing stage stops a function at init).
for _svc in ("CAMPAIGNS", "EXAMS", "INTERNSHIPS"):
    os.environ.setdefault(f"{_svc}_STAGE", "local")


@pytest.fixture(scope="session")
def _moto_harness():
    from local_runtime.testing import HARNESS

    yield HARNESS
    HARNESS.stop()


@pytest.fixture
def aws_mock(_moto_harness):
    """An empty moto account (nothing provisioned)."""
    _moto_harness.fresh_account()
    yield


@pytest.fixture
def app(_moto_harness):
    return _moto_harness.app()


@pytest.fixture
def campaigns_app(_moto_harness):
    """Only the campaign service provisioned (faster than ``app``)."""
    return _moto_harness.app(only=["campaigns"])


@pytest.fixture
def exams_app(_moto_harness):
    """Only the examination service provisioned (faster than ``app``)."""
    return _moto_harness.app(only=["exams"])


@pytest.fixture
def internships_app(_moto_harness):
    """Only the internship service provisioned (faster than ``app``)."""
    return _moto_harness.app(only=["internships"])


@pytest.fixture
def fresh_rate_window():
    """The clock 1 s into a fresh 15-minute window (hence also a fresh minute): the fixed-window
    rate limits a test counts up to cannot roll over between its requests on a slow machine.
    Back to the real clock afterwards."""
    from lambdakit import clock

    clock.set_offset(900 - clock.now_ts() % 900 + 1)
    yield
    clock.set_offset(0)


@pytest.fixture
def atomic_moto(monkeypatch):
    """Make each moto DynamoDB request atomic, as each DynamoDB request is in AWS.

    moto's in-memory backend is not thread-safe (a transaction deep-copies a table another thread
    is writing). Concurrency tests run product code in many threads; their calls still interleave
    freely between requests — only a single request's evaluation is serialized, which is the
    guarantee real DynamoDB gives and the code relies on.
    """
    import threading

    from moto.dynamodb.responses import DynamoHandler

    lock = threading.RLock()
    original = DynamoHandler.call_action

    def call_action(self):
        with lock:
            return original(self)

    monkeypatch.setattr(DynamoHandler, "call_action", call_action)
    return lock


class MissingGlyphs(AssertionError):
    """fpdf2 drew text with a font that lacks some of its glyphs (issue 19 item 4)."""


class _RaiseOnMissingGlyphs(logging.Handler):
    def handle(self, record):  # type: ignore[override]
        if "missing the following glyphs" in record.getMessage():
            raise MissingGlyphs(record.getMessage())
        return True


@pytest.fixture(autouse=True)
def strict_pdf_glyphs(request):
    """In every test, fpdf2's missing-glyph warning (the text comes out blank in the PDF) is an
    error that fails the test: a name that cannot be rendered fails loudly in tests. Production
    still issues the document with a logged warning and a metric; a test of that behaviour opts
    out with ``@pytest.mark.allow_missing_glyphs``."""
    if request.node.get_closest_marker("allow_missing_glyphs"):
        yield MissingGlyphs
        return
    log = logging.getLogger("fpdf.output")
    handler = _RaiseOnMissingGlyphs()
    log.addHandler(handler)
    try:
        yield MissingGlyphs
    finally:
        log.removeHandler(handler)
