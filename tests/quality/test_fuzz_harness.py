"""The fuzz harness itself: its rate-limit overrides name real settings fields, and its
NDJSON report parser counts cases and failures per operation."""
from __future__ import annotations

import json

from fuzz import run


def test_rate_limit_overrides_are_real_settings_fields():
    from campaigns.settings import CampaignsSettings
    from exams.settings import ExamsSettings
    from internships.settings import InternshipsSettings
    from lambdakit.ratelimit import parse_rate

    models = {"CAMPAIGNS_": CampaignsSettings, "EXAMS_": ExamsSettings, "INTERNSHIPS_": InternshipsSettings}
    for name, value in run.RATE_LIMIT_ENV.items():
        prefix = next(p for p in models if name.startswith(p))
        field = name[len(prefix):].lower()
        assert field in models[prefix].model_fields, name
        default = models[prefix].model_fields[field].default
        if isinstance(default, str):
            assert parse_rate(value)[0] >= 1_000_000
        else:
            assert int(value) >= 1_000_000


def test_report_parser_counts_cases_and_failures_per_operation(tmp_path):
    rec = {"label": "POST /contacts", "cases": {"a": {}, "b": {}, "c": {}},
           "checks": {"a": [{"name": "not_a_server_error", "status": "SUCCESS"}],
                      "b": [{"name": "status_code_conformance", "status": "FAILURE",
                             "failure_info": {"failure": {"title": "Undocumented status code"}}}]},
           "interactions": {"b": {"response": {"status_code": 422}}}}
    lines = [json.dumps({"ScenarioStarted": {}}), json.dumps({"ScenarioFinished": {"recorder": rec}}), "not json"]
    path = tmp_path / "r.ndjson"
    path.write_text("\n".join(lines))
    cases, failures, ops = run.parse_report(path)
    assert (cases, failures) == (3, 1)
    assert ops == {("POST /contacts", "status_code_conformance", "422", "Undocumented status code"): 1}
    assert run.parse_report(tmp_path / "missing.ndjson") == (0, 0, {})


def test_hostile_cases_cover_every_body_route_and_url_field():
    from fuzz import hostile

    doc = {"paths": {"/a/{id}": {"put": {"requestBody": {"content": {"application/json": {"schema": {
        "type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"}, "logo_url": {"type": "string"},
            "meta": {"type": "object", "additionalProperties": True}}}}}}},
        "get": {}}, "/b": {"delete": {}}}}
    cs = list(hostile.cases(doc))
    labels = {c.label for c in cs}
    assert {c.method for c in cs} == {"PUT", "DELETE"} and all("{" not in c.path for c in cs)
    for want in ("PUT /a/{id}: every property = NaN", "PUT /a/{id}: meta.k = NaN", "PUT /a/{id}: name = 10^30",
                 "PUT /a/{id}: logo_url = javascript: URL", "PUT /a/{id}: key with unpaired surrogate",
                 "DELETE /b: every property = 1e999"):
        assert want in labels, want
    nan = next(c for c in cs if c.label == "PUT /a/{id}: meta.k = NaN")
    assert b'"meta": {"k": NaN}' in nan.body and b'"name": "x"' in nan.body
    assert hostile.stored_bad_url({"a": [{"u": " JavaScript:x"}]}) and not hostile.stored_bad_url({"u": "https://x"})


def test_exams_platform_is_back_in_normal_service_before_every_principal_and_the_hostile_bodies(monkeypatch, tmp_path):
    """A super admin's fuzzed PUT /api/settings may leave maintenance mode on (a documented 503 for
    everyone else): the harness switches it off before each principal's run and the hostile bodies."""
    events: list[str] = []
    cfg = {"exams": {"base_url": "http://x"}}
    principals = {"client_admin": {"Authorization": "ca"}, "super_admin": {"Authorization": "sa"}}
    monkeypatch.setattr(run, "_get", lambda url, timeout=5: (200, b'{"paths": {}}'))
    monkeypatch.setitem(run.PRINCIPALS, "exams", lambda _cfg: principals)

    def put(url, body, headers=None, method="POST"):
        events.append(f"{method} {url} {body} as {headers['Authorization']}")
        return 200, {}

    def schemathesis(cmd, **_kw):
        events.append("schemathesis as " + cmd[cmd.index("-H") + 1])
        return type("P", (), {"returncode": 0, "stdout": "", "stderr": ""})()

    monkeypatch.setattr(run, "_post", put)
    monkeypatch.setattr(run.subprocess, "run", schemathesis)
    monkeypatch.setattr(run, "run_hostile", lambda *a: events.append("hostile") or {"cases": 0, "failures": 0, "operations": {}})
    run.run_service("exams", cfg, {"max_examples": 1, "phases": "examples"}, tmp_path, seed=None)
    reset = "PUT http://x/api/settings {'maintenance_mode': False, 'registration_enabled': True} as sa"
    assert events == [reset, "schemathesis as Authorization: ca", reset, "schemathesis as Authorization: sa",
                      reset, "hostile"]
