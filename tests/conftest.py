"""Shared fixtures: a fresh moto account per test, provisioned from the templates.

``app`` yields ``local_runtime.testing.AppUnderTest``; ``app.campaigns``, ``app.exams``
and ``app.internships`` call routes through the real handlers.
"""
from __future__ import annotations

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


@pytest.fixture
def aws_mock():
    from moto import mock_aws

    with mock_aws():
        yield


@pytest.fixture
def app(aws_mock):
    from local_runtime import testing

    return testing.start()


@pytest.fixture
def campaigns_app(aws_mock):
    """Only the campaign service provisioned (faster than ``app``)."""
    from local_runtime import testing

    return testing.start(only=["campaigns"])


@pytest.fixture
def exams_app(aws_mock):
    """Only the examination service provisioned (faster than ``app``)."""
    from local_runtime import testing

    return testing.start(only=["exams"])


@pytest.fixture
def internships_app(aws_mock):
    """Only the internship service provisioned (faster than ``app``)."""
    from local_runtime import testing

    return testing.start(only=["internships"])
