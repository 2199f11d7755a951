"""End-to-end fixtures: the real ``python -m local_runtime`` (what ``make dev`` runs) in a
subprocess, driven only over HTTP (the fronts) and the emulator's endpoint.

Ports: free ports are picked for every front, the emulator and the control endpoint (so the
suite can run next to a developer's ``make dev``); set ``E2E_EXAMS_PORTS=base`` (e.g. 4210) to
use fixed ports base+1..3 for the fronts, base+56 for the emulator and base+89 for control.
The runtime is started once per test session and stopped (SIGINT) at the end.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from tests.e2e.costseed import maybe_seed

PASSWORD = "Passw0rd!x"


@dataclass
class ExamsE2E:
    base: str
    endpoint: str
    region: str
    identity: dict
    super_admin: dict

    def idp(self):
        import boto3

        return boto3.client("cognito-idp", region_name=self.region, endpoint_url=self.endpoint,
                            aws_access_key_id="local", aws_secret_access_key="local")

    def sign_in(self, email: str, password: str = PASSWORD) -> dict[str, str]:
        """InitiateAuth (USER_PASSWORD_AUTH) against the emulator's Cognito → bearer header."""
        r = self.idp().initiate_auth(ClientId=self.identity["client_id"], AuthFlow="USER_PASSWORD_AUTH",
                                     AuthParameters={"USERNAME": email, "PASSWORD": password})
        return {"Authorization": f"Bearer {r['AuthenticationResult']['IdToken']}"}

    def sa(self) -> dict[str, str]:
        return self.sign_in(self.super_admin["email"], self.super_admin["password"])

    def url(self, path: str) -> str:
        return self.base + path


@pytest.fixture(scope="session")
def exams_runtime(tmp_path_factory):
    from tests.platform.runtime_proc import RuntimeProcess

    fixed = os.environ.get("E2E_EXAMS_PORTS")
    extra = {}
    if fixed:
        b = int(fixed)
        extra = {"LOCAL_CAMPAIGNS_PORT": str(b + 1), "LOCAL_EXAMS_PORT": str(b + 2),
                 "LOCAL_INTERNSHIPS_PORT": str(b + 3), "LOCAL_EMULATOR_PORT": str(b + 56),
                 "LOCAL_CONTROL_PORT": str(b + 89)}
    rt = RuntimeProcess(tmp_path_factory.mktemp("exams-e2e"), services=("campaigns", "exams", "internships"),
                        extra_env=extra)
    if fixed:
        rt.emulator_port = int(extra["LOCAL_EMULATOR_PORT"])
    try:
        dev = rt.wait_ready(timeout=120)
        maybe_seed(dev, "exams")
        ex = dev["exams"]
        yield ExamsE2E(ex["base_url"], dev["aws"]["endpoint_url"], dev["aws"]["region"], ex["identity"],
                       ex["super_admin"])
    finally:
        code = rt.stop()
        assert code == 0, rt.log.read_text()[-3000:]


@pytest.fixture(autouse=True)
def _no_inprocess_moto():
    """The suite's in-process moto mock (started by other tests in this worker) would intercept
    boto3 calls meant for the emulator: stop it; the harness restarts it on demand."""
    from local_runtime.testing import HARNESS

    HARNESS.stop()
    yield
