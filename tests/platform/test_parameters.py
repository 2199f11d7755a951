"""``lambdakit.parameters`` (issue 33): GetParameter on the shared client behind a per-process TTL
cache; a missing parameter is ``None`` and cached too; ``lambdakit.baseurl`` on top of it."""
from __future__ import annotations

import boto3
import pytest

from lambdakit import aws, baseurl, parameters


@pytest.fixture
def ssm(aws_mock):
    aws.reset()
    parameters.forget()
    yield boto3.client("ssm", region_name="us-east-1")
    parameters.forget()


def _reads(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = aws.client("ssm").get_parameter

    def counted(**kw):
        seen.append(kw["Name"])
        return real(**kw)

    monkeypatch.setattr(aws.client("ssm"), "get_parameter", counted)
    return seen


def test_reads_once_per_max_age_and_caches_missing(ssm, monkeypatch):
    seen = _reads(monkeypatch)
    assert parameters.parameter_value("/s/p", max_age=60) is None
    ssm.put_parameter(Name="/s/p", Value="https://a.example", Type="String")
    assert parameters.parameter_value("/s/p", max_age=60) is None  # the miss is cached
    assert parameters.parameter_value("/s/p", max_age=0) == "https://a.example"
    ssm.put_parameter(Name="/s/p", Value="https://b.example", Type="String", Overwrite=True)
    assert parameters.parameter_value("/s/p", max_age=60) == "https://a.example"
    assert seen == ["/s/p", "/s/p"]


def test_base_url_resolution_order_and_reasons(ssm):
    assert baseurl.resolve(" https://x.example/ ", "/s/p") == "https://x.example"
    with pytest.raises(baseurl.BaseUrlNotSet) as e:
        baseurl.resolve("", "/s/p")
    assert e.value.status == 503 and e.value.code == "BASE_URL_NOT_SET" and "/s/p" in e.value.message
    ssm.put_parameter(Name="/s/p", Value=baseurl.PLACEHOLDER, Type="String")
    parameters.forget()
    assert "make base-url" in (baseurl.problem("", "/s/p") or "")
    ssm.put_parameter(Name="/s/p", Value="https://api.example/", Type="String", Overwrite=True)
    parameters.forget()
    assert baseurl.resolve("", "/s/p") == "https://api.example" and baseurl.problem("", "/s/p") is None
    for bad in ("example.com", "/relative", "ftp://x.example", "https://x.example/?q=1", "https://"):
        assert baseurl.problem(bad, "/s/p"), bad
    assert "no SSM parameter" in (baseurl.problem("", "") or "")
