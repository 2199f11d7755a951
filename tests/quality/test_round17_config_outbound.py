"""Issue 17, items 9 and 11.

Item 9: no fail-open stage. ``<PREFIX>STAGE`` has no default; a missing or unknown stage is a
settings validation error, and importing any function's handler module stops at init with one
clear log line. Only an explicit ``local`` relaxes anything.

Item 11: outbound fetchers refuse every IPv6 form that embeds an IPv4 address (6to4, Teredo,
NAT64, IPv4-mapped/compatible/translated, ISATAP), and every fetcher (webhook deliveries, job
feeds, the avatar proxy) connects to exactly the address its SSRF check approved: one DNS
resolution, no rebinding.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.quality.conftest import assert_error

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- item 9: stage
@pytest.mark.parametrize("svc,module", [("campaigns", "campaigns.contacts.handler"),
                                        ("campaigns", "campaigns.webhooks.worker"),
                                        ("exams", "exams.attempts.handler"),
                                        ("internships", "internships.engagement.handler"),
                                        ("internships", "internships.mail.worker")])
@pytest.mark.parametrize("stage", [None, "", "production", "LOCAL"])
def test_missing_or_unknown_stage_stops_the_function_at_init(svc, module, stage):
    env = {k: v for k, v in os.environ.items() if not k.upper().endswith("_STAGE")}
    if stage is not None:
        env[f"{svc.upper()}_STAGE"] = stage
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "layers" / "shared"), str(ROOT / "functions" / svc)])
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0, f"{module} imported with stage {stage!r}"
    assert f"{svc.upper()}_STAGE" in proc.stderr and "refusing to start" in proc.stderr


def test_explicit_local_stage_imports(monkeypatch):
    env = {**os.environ, "CAMPAIGNS_STAGE": "local",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "shared"), str(ROOT / "functions" / "campaigns")])}
    proc = subprocess.run([sys.executable, "-c", "import campaigns.contacts.handler"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_settings_have_no_stage_default(monkeypatch):
    from pydantic import ValidationError

    from campaigns.settings import CampaignsSettings
    from exams.settings import ExamsSettings
    from internships.settings import InternshipsSettings
    from lambdakit.settings import DEPLOYED_STAGES, StageNotConfigured, require_stage

    for model, var in ((CampaignsSettings, "CAMPAIGNS_STAGE"), (ExamsSettings, "EXAMS_STAGE"),
                       (InternshipsSettings, "INTERNSHIPS_STAGE")):
        monkeypatch.delenv(var, raising=False)
        with pytest.raises(ValidationError):
            model()
        with pytest.raises(StageNotConfigured, match=var):
            require_stage(model)
        monkeypatch.setenv(var, "staging-2")
        with pytest.raises(ValidationError):
            model()
        for stage in DEPLOYED_STAGES:
            monkeypatch.setenv(var, stage)
            s = model()
            assert not s.is_local
            require_stage(model)
        monkeypatch.setenv(var, "local")
        assert model().is_local


# ---------------------------------------------------------------- item 11: IPv4-embedding IPv6
EMBEDDING = ["2002:a00:1::1", "2002:5db8:d822::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::1",
             "64:ff9b::a00:1", "64:ff9b::5db8:d822", "64:ff9b:1::a00:1", "::ffff:8.8.8.8", "::ffff:10.0.0.1",
             "::8.8.8.8", "::ffff:0:8.8.8.8", "fe80::200:5efe:a00:1", "2606:4700::200:5efe:a00:1"]


@pytest.mark.parametrize("addr", EMBEDDING)
def test_ipv4_embedding_ipv6_literals_are_refused(addr):
    from lambdakit.ssrf import UnsafeUrl, check_url

    with pytest.raises(UnsafeUrl):
        check_url(f"https://[{addr}]/hook")


@pytest.mark.parametrize("addr", ["64:ff9b::a00:1", "2002:a9fe:a9fe::1", "::ffff:169.254.169.254"])
def test_ipv4_embedding_ipv6_dns_answers_are_refused(addr, monkeypatch):
    from lambdakit.ssrf import UnsafeUrl, check_url

    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: [(socket.AF_INET6, socket.SOCK_STREAM, 6, "",
                                                                (addr, 443, 0, 0))])
    with pytest.raises(UnsafeUrl, match="embeds"):
        check_url("https://rebind.example/hook")


def test_public_addresses_still_pass():
    from lambdakit.ssrf import check_url

    assert check_url("https://[2606:4700::1111]/x") == ["2606:4700::1111"]
    assert check_url("https://93.184.216.34/x") == ["93.184.216.34"]


class _Rebinder:
    """DNS that answers a public address first and loopback afterwards; connections recorded
    and refused (nothing leaves the machine)."""

    def __init__(self, monkeypatch) -> None:
        self.lookups: list[str] = []
        self.connects: list[tuple] = []
        monkeypatch.setattr(socket, "getaddrinfo", self.getaddrinfo)
        monkeypatch.setattr(socket, "create_connection", self.create_connection)

    def getaddrinfo(self, host, port, *a, **k):
        self.lookups.append(host)
        ip = "93.184.216.34" if len(self.lookups) == 1 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port or 443))]

    def create_connection(self, address, *a, **k):
        self.connects.append(tuple(address[:2]))
        raise ConnectionRefusedError("test: no network")

    def assert_pinned(self, port: int = 443) -> None:
        assert self.connects == [("93.184.216.34", port)], self.connects
        assert len(self.lookups) == 1, self.lookups


def test_webhook_delivery_connects_to_the_checked_address(monkeypatch):
    from campaigns.webhooks import client

    dns = _Rebinder(monkeypatch)
    res = client.post("https://hooks.example.com/x", b"{}", {}, timeout=2, allow_private=False)
    assert res.status is None and res.error
    dns.assert_pinned()


def test_job_feed_fetch_connects_to_the_checked_address(internships_app, monkeypatch):
    from internships.jobs.fetch import FetchError, fetch
    from lambdakit.settings import reset_settings

    monkeypatch.setenv("INTERNSHIPS_STAGE", "prod")
    reset_settings()
    dns = _Rebinder(monkeypatch)
    with pytest.raises(FetchError):
        fetch("https://feeds.example.com/rss")
    dns.assert_pinned()


def test_image_proxy_connects_to_the_checked_address(internships_app, intern_users, monkeypatch):
    api = internships_app.internships
    st = intern_users.student()
    dns = _Rebinder(monkeypatch)
    r = api.get("/api/proxy-image", query={"url": "https://lh3.googleusercontent.com/a/photo.png"}, headers=st.headers)
    assert r.status == 502 and r.json()["error"] == "Upstream image unavailable"
    dns.assert_pinned()


def test_image_proxy_refuses_embedding_dns_answers(internships_app, intern_users, monkeypatch):
    api = internships_app.internships
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: [(socket.AF_INET6, socket.SOCK_STREAM, 6, "",
                                                                ("64:ff9b::a9fe:a9fe", 443, 0, 0))])
    r = api.get("/api/proxy-image", query={"url": "https://lh3.googleusercontent.com/a/photo.png"})
    assert_error("internships", r, 400)
