"""Every route answers through its response model (issue 35).

* ``lambdakit.responses``: a key the model does not declare never leaves the service, a declared
  key of the wrong type is a 500 in the service's error shape (no values in it), a 2xx JSON answer
  that bypassed the model is a 500 under ``LAMBDAKIT_RESPONSES_STRICT`` (set for the whole suite
  in tests/conftest.py), list routes dump every item and keep only the envelope's own keys.
* ``tests/contract/responses.json`` (what every route answered with in the suite before the
  models were enforced, ``tools/response_contract.py``): each recorded key path is still declared
  by the route's model in the committed OpenAPI document, so a response that loses a field fails
  here, and the committed document is itself what the code generates (test_openapi_valid).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from lambdakit.errors import ApiError
from lambdakit.http import json_response, make_resolver
from lambdakit.openapi import doc
from lambdakit.responses import through_model

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import response_contract  # noqa: E402


class Inner(BaseModel):
    n: int


class Thing(BaseModel):
    id: str
    inner: Inner | None = None
    tags: list[str] = []


def _render(err: ApiError) -> dict:
    return {"error": err.code, "message": err.message}


def _app(payload, *, shape=True, status=200, answer=None, **docargs):
    from aws_lambda_powertools.event_handler.api_gateway import Router

    app = make_resolver(_render)
    r = Router()

    @r.get("/thing", openapi_extensions=doc(response=f"{__name__}:Thing", status=status, **docargs))
    def thing():
        body = through_model(payload, status, siblings=("total",)) if shape else payload
        return json_response(answer or status, {"data": body})

    app.include_router(r)
    return app


def _call(app) -> tuple[int, dict]:
    status, body = _call_raw(app)
    return status, json.loads(body)


def test_undeclared_keys_are_dropped_and_declared_ones_kept():
    status, body = _call(_app({"id": "a", "inner": {"n": 2, "secret": "x"}, "pk": "T#1", "tags": ["t"]}))
    assert status == 200
    assert body["data"] == {"id": "a", "inner": {"n": 2}, "tags": ["t"]}


def test_absent_optional_keys_stay_absent():
    assert _call(_app({"id": "a"}))[1]["data"] == {"id": "a"}


def test_a_payload_of_the_wrong_type_is_a_500_without_its_values(caplog):
    status, body = _call(_app({"id": "a", "inner": {"n": "not-a-number-4111111111111111"}}))
    assert status == 500 and body["error"] == "SERVER_ERROR"
    assert "4111111111111111" not in json.dumps(body) and "4111111111111111" not in caplog.text


def test_list_routes_dump_every_item_and_keep_only_the_envelope_keys():
    payload = {"things": [{"id": "a", "pk": "x"}, {"id": "b", "inner": {"n": 1}}], "total": 2, "debug": "no"}
    status, body = _call(_app(payload, list_key="things", paginated=True))
    assert status == 200
    assert body["data"] == {"things": [{"id": "a"}, {"id": "b", "inner": {"n": 1}}], "total": 2}


def test_an_answer_that_bypassed_its_model_is_refused_in_strict_mode(monkeypatch):
    monkeypatch.setenv("LAMBDAKIT_RESPONSES_STRICT", "1")
    status, body = _call(_app({"id": "a", "pk": "leak"}, shape=False))
    assert status == 500 and body["error"] == "RESPONSE_NOT_SHAPED"
    monkeypatch.delenv("LAMBDAKIT_RESPONSES_STRICT")
    assert _call(_app({"id": "a"}, shape=False))[0] == 200


def test_a_json_success_with_an_undocumented_status_is_refused_in_strict_mode(monkeypatch):
    monkeypatch.setenv("LAMBDAKIT_RESPONSES_STRICT", "1")
    status, body = _call(_app({"id": "a"}, status=200, answer=202))  # documented: 200 only
    assert status == 500 and body["error"] == "RESPONSE_STATUS_UNDOCUMENTED"


def test_a_file_answer_is_refused_unless_the_route_names_its_media_type(monkeypatch):
    from aws_lambda_powertools.event_handler import Response
    from aws_lambda_powertools.event_handler.api_gateway import Router

    monkeypatch.setenv("LAMBDAKIT_RESPONSES_STRICT", "1")

    def app_for(**docargs):
        app, r = make_resolver(_render), Router()

        @r.get("/thing", openapi_extensions=doc(response=f"{__name__}:Thing", **docargs))
        def thing():
            return Response(status_code=200, content_type="text/csv; charset=utf-8", body="a,b\n1,2\n")

        app.include_router(r)
        return app

    assert _call_raw(app_for())[0] == 500
    assert _call_raw(app_for(also_content=("text/csv",))) == (200, "a,b\n1,2\n")


def _call_raw(app) -> tuple[int, str]:
    ev = {"version": "2.0", "routeKey": "GET /thing", "rawPath": "/thing", "rawQueryString": "",
          "headers": {}, "requestContext": {"http": {"method": "GET", "path": "/thing", "sourceIp": "1.2.3.4"},
                                            "requestId": "r", "routeKey": "GET /thing", "stage": "$default"},
          "isBase64Encoded": False}
    out = app.resolve(ev, None)
    return out["statusCode"], out["body"]


def test_answers_show_stored_values_the_request_rules_would_refuse():
    """A response model built on lambdakit.model.Model checks shape and types only: a value stored
    before a request rule existed (a line break in a single-line field) is shown, not a 500."""
    from lambdakit.model import Model, dump

    class Named(Model):
        name: str

    assert dump(Named, {"name": "Ann\nLee"}) == {"name": "Ann\nLee"}
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        Named.model_validate({"name": "Ann\nLee"})  # the same model refuses it as a request body


def test_every_file_answer_is_named_uncached_and_unsniffed():
    """One builder for every service's file answers: before it, the campaigns contacts export had no
    Cache-Control at all while the other exports said no-store."""
    from lambdakit.http import file_response

    r = file_response(b"%PDF", "application/pdf", "invoice.pdf", headers={"X-Total-Count": "3"})
    assert r.headers == {"Content-Type": "application/pdf", "Content-Disposition": 'attachment; filename="invoice.pdf"',
                         "Cache-Control": "private, no-store", "X-Content-Type-Options": "nosniff",
                         "X-Total-Count": "3"}
    assert file_response("x", "message/rfc822", "m.eml", inline=True).headers["Content-Disposition"] == \
        'inline; filename="m.eml"'
    handlers = [p for p in (ROOT / "functions").rglob("*.py") if "Content-Disposition" in p.read_text()]
    assert handlers == [], f"file answers built by hand: {handlers}"


def test_the_strict_switch_is_on_for_the_suite():
    import os

    assert os.environ.get("LAMBDAKIT_RESPONSES_STRICT") == "1"


def test_every_recorded_response_path_is_still_declared():
    assert response_contract.CONTRACT.exists()
    assert response_contract.undeclared() == {}


def test_the_contract_check_can_fail():
    contract = json.loads(response_contract.CONTRACT.read_text())
    key = next(k for k, v in contract.items() if v)
    probe = {key: contract[key] + ["no_such_field_anywhere"]}
    assert response_contract.undeclared(probe) == {key: ["no_such_field_anywhere"]}


@pytest.mark.parametrize("service", response_contract.SERVICES)
def test_every_service_has_recorded_answers(service):
    contract = json.loads(response_contract.CONTRACT.read_text())
    assert sum(1 for k in contract if k.startswith(service + " ")) >= 20


_BUILT_AT_IMPORT = r"""
import importlib, json, os, pathlib, sys
from pydantic import BaseModel
from pydantic._internal._mock_val_ser import MockValSer
svc = sys.argv[1]
root = pathlib.Path("functions") / svc / svc
built = []
for f in sorted(root.rglob("*.py")):
    if f.name not in ("models.py", "views.py") and f.parent.name != "models":
        continue
    name = ".".join(f.relative_to(root.parent).with_suffix("").parts)
    mod = importlib.import_module(name)
    for obj in vars(mod).values():
        if isinstance(obj, type) and issubclass(obj, BaseModel) and obj.__module__ == name \
                and not isinstance(obj.__pydantic_validator__, MockValSer):
            built.append(f"{name}:{obj.__name__}")
print(json.dumps(built))
"""


@pytest.mark.parametrize("service", response_contract.SERVICES)
def test_no_model_builds_its_validator_at_import(service):
    """Response (and request) models cost nothing until used: importing a service's model modules
    builds no validator (a ``RootModel[...]`` parametrisation did, 20+ ms on a cold path)."""
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(["layers/shared", f"functions/{service}"]),
           f"{service.upper()}_STAGE": "local"}
    out = subprocess.run([sys.executable, "-c", _BUILT_AT_IMPORT, service], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
