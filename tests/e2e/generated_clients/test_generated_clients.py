"""A Python client generated from each served OpenAPI document works against the local runtime (issue 31).

The real ``python -m local_runtime`` (what ``make dev`` runs; free ports) serves each service's
``/openapi.json``; ``openapi-python-client`` (the generator a Python consumer would use) generates
a client from it once per service into a temporary directory, and the generated code is imported
and called: a public route with a plain ``Client`` and an authenticated one with an
``AuthenticatedClient`` carrying the credential ``.local/dev.json`` gives (campaigns: the dev API
key; exams: the super admin's Cognito ID token; internships: the token the generated login call
answers). The generator must report nothing but response bodies it does not model (binary files:
images, PDFs, XLSX), and the served documents must pass ``openapi-spec-validator`` first.
"""
from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from openapi_spec_validator.validation import OpenAPIV31SpecValidator

from tests.platform.runtime_proc import RuntimeProcess

SERVICES = ("campaigns", "exams", "internships")
GENERATOR = Path(sys.executable).with_name("openapi-python-client")
# what the generator may say: a success body of a binary type is not modelled (callers read .content)
TOLERATED = re.compile(r"Unsupported content_type (image/|application/pdf|application/vnd\.openxml|message/rfc822|application/vc\+jwt)")


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    rt = RuntimeProcess(tmp_path_factory.mktemp("generated-clients-rt"), services=SERVICES)
    try:
        yield rt.wait_ready(timeout=120)
    finally:
        assert rt.stop() == 0


def _generate(service: str, doc: dict, out: Path) -> str:
    spec = out / f"{service}.json"
    spec.write_text(json.dumps(doc))
    config = out / f"{service}.yaml"
    config.write_text(f"package_name_override: {service}_client\nproject_name_override: {service}-client\n")
    env = {**os.environ, "PATH": f"{GENERATOR.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run([str(GENERATOR), "generate", "--path", str(spec), "--config", str(config),
                           "--meta", "none", "--output-path", str(out / f"{service}_client")],
                          cwd=out, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def clients(runtime, tmp_path_factory):
    out = tmp_path_factory.mktemp("generated-clients")
    logs = {}
    for service in SERVICES:
        doc = requests.get(runtime[service]["base_url"] + "/openapi.json", timeout=60).json()
        assert [str(e).splitlines()[0] for e in OpenAPIV31SpecValidator(doc).iter_errors()] == [], service
        logs[service] = _generate(service, doc, out)
    sys.path.insert(0, str(out))
    try:
        yield {s: importlib.import_module(f"{s}_client") for s in SERVICES}, logs
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m.split(".")[0] in {f"{s}_client" for s in SERVICES}]:
            del sys.modules[name]


@pytest.mark.parametrize("service", SERVICES)
def test_generation_reports_no_problem_with_the_document(clients, service):
    log = clients[1][service]
    problems = [ln for ln in log.splitlines() if ("Unable to" in ln or "Cannot parse" in ln or "duplicate" in ln)
                and not TOLERATED.search(ln)]
    assert problems == [], log


def _api(service: str, tag: str, operation: str):
    return importlib.import_module(f"{service}_client.api.{tag}.{operation}")


def test_campaigns_client(clients, runtime):
    pkg = clients[0]["campaigns"]
    base, key = runtime["campaigns"]["base_url"], runtime["campaigns"]["api_key"]
    health = _api("campaigns", "health", "health_health_get").sync_detailed(client=pkg.Client(base_url=base))
    assert health.status_code == 200, health.content
    contacts = _api("campaigns", "contacts", "list_contacts_contacts_get")
    listed = contacts.sync_detailed(client=pkg.AuthenticatedClient(base_url=base, token=key), limit=5)
    assert listed.status_code == 200 and listed.parsed.success is True, listed.content
    refused = contacts.sync_detailed(client=pkg.AuthenticatedClient(base_url=base, token="ck_not_a_key"))
    assert refused.status_code == 401 and refused.parsed.success is False


def test_exams_client(clients, runtime):
    import boto3

    pkg = clients[0]["exams"]
    ex = runtime["exams"]
    health = _api("exams", "health", "health_health_get").sync_detailed(client=pkg.Client(base_url=ex["base_url"]))
    assert health.status_code == 200, health.content
    idp = boto3.client("cognito-idp", region_name=runtime["aws"]["region"], endpoint_url=runtime["aws"]["endpoint_url"],
                       aws_access_key_id="local", aws_secret_access_key="local")
    token = idp.initiate_auth(ClientId=ex["identity"]["client_id"], AuthFlow="USER_PASSWORD_AUTH",
                              AuthParameters={"USERNAME": ex["super_admin"]["email"],
                                              "PASSWORD": ex["super_admin"]["password"]})["AuthenticationResult"]["IdToken"]
    clients_ = _api("exams", "clients", "list_clients_api_clients_get")
    listed = clients_.sync_detailed(client=pkg.AuthenticatedClient(base_url=ex["base_url"], token=token))
    assert listed.status_code == 200 and isinstance(listed.parsed.data, list), listed.content
    anonymous = clients_.sync_detailed(client=pkg.Client(base_url=ex["base_url"]))
    assert anonymous.status_code == 401 and anonymous.parsed.error == "MISSING_AUTH_TOKEN"


def test_internships_client(clients, runtime):
    pkg = clients[0]["internships"]
    it = runtime["internships"]
    base = it["base_url"]
    health = _api("internships", "health", "health_api_health_get").sync_detailed(client=pkg.Client(base_url=base))
    assert health.status_code == 200, health.content
    login_mod = _api("internships", "accounts", "login_api_auth_login_post")
    login = login_mod.sync_detailed(client=pkg.Client(base_url=base),
                                    body=login_mod.LoginRequest(email=it["super_admin"]["email"], password=it["super_admin"]["password"]))
    assert login.status_code == 200, login.content
    me = _api("internships", "accounts", "me_api_auth_me_get").sync_detailed(
        client=pkg.AuthenticatedClient(base_url=base, token=login.parsed.token))
    assert me.status_code == 200, me.content
    assert json.loads(me.content)["user"]["email"] == it["super_admin"]["email"]
