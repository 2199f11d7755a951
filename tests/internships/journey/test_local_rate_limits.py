"""``make dev RATE_LIMITS=off`` (issue 31 item 6): ``<PREFIX>LOCAL_RATE_LIMITS=off`` lifts the
per-address registration and login limits under Stage=local, and nowhere else."""
from __future__ import annotations

import pytest

from lambdakit.settings import reset_settings

REG = {"name": "Asha Rao", "password": "Secur3pass", "phone": "+91 98450 12345", "college": "RVCE"}


def _register_many(c, n: int, ip: str) -> list[int]:
    return [c.post("/api/auth/register", json={**REG, "email": f"s{i}.{ip}@example.com"}, source_ip=ip).status
            for i in range(n)]


def test_registration_limit_holds_by_default(internships_app):
    statuses = _register_many(internships_app.internships, 4, "10.31.0.1")
    assert statuses[:3] == [200, 200, 200] and statuses[3] == 429


def test_local_stage_lifts_registration_and_login_limits(internships_app, monkeypatch):
    monkeypatch.setenv("INTERNSHIPS_LOCAL_RATE_LIMITS", "off")
    reset_settings()
    c = internships_app.internships
    assert _register_many(c, 7, "10.31.0.2") == [200] * 7  # 3/minute otherwise
    logins = [c.post("/api/auth/login", json={"email": "s0.10.31.0.2@example.com", "password": "Secur3pass"},
                     source_ip="10.31.0.2").status for _ in range(7)]
    assert logins == [200] * 7  # 5/minute otherwise


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_a_deployed_stage_never_honours_the_variable(internships_app, monkeypatch, stage):
    monkeypatch.setenv("INTERNSHIPS_LOCAL_RATE_LIMITS", "off")
    monkeypatch.setenv("INTERNSHIPS_STAGE", stage)
    reset_settings()
    from internships.settings import settings

    assert settings().local_rate_limits == "off" and settings().rate_limits_lifted is False
    statuses = _register_many(internships_app.internships, 4, "10.31.0.3")
    assert statuses[3] == 429, statuses
