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
    for want in ("PUT /a/{id}: every property = NaN", "PUT /a/{id}: meta.k = NaN", "PUT /a/{id}: name = 10^40", "PUT /a/{id}: name = -10^40",
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


def test_hostile_query_and_number_cases_cover_every_parameter_and_number_field():
    """Issue 32: every query parameter of every GET route gets hostile values by kind, and every
    number property (nested included) of every body gets ±10^40."""
    from fuzz import hostile

    doc = {"paths": {
        "/l": {"get": {"parameters": [{"name": "cursor", "in": "query", "schema": {"type": "string"}},
                                      {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                                      {"name": "date_from", "in": "query", "schema": {"type": "string"}},
                                      {"name": "sort", "in": "query", "schema": {"type": "string"}},
                                      {"name": "q", "in": "query", "schema": {"type": "string"}}]}},
        "/n": {"post": {"requestBody": {"content": {"application/json": {"schema": {
            "type": "object", "properties": {"a": {"type": "integer"}, "s": {"type": "string"},
                                             "o": {"type": "object", "properties": {"b": {"type": "number"}}},
                                             "xs": {"type": "array", "items": {"type": "object", "properties": {
                                                 "c": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}}}}}}}}}}}
    qs = list(hostile.query_cases(doc, cursors=("c1.real.sig",)))
    labels = [c.label for c in qs]
    assert "GET /l: ?cursor='eyJhIjoxfQ'" in labels and "GET /l: ?cursor='c1.real.sig'" in labels
    assert any(x.startswith("GET /l: ?limit='1000") for x in labels) and "GET /l: ?limit='-1'" in labels
    assert "GET /l: ?date_from='2030-13-45'" in labels and "GET /l: ?sort='__proto__'" in labels
    assert "GET /l: ?q='\\x00'" in labels and labels[-1] == "GET /l: every query parameter hostile"
    assert all(c.method == "GET" and c.body == b"" and c.path.startswith("/l?") for c in qs)
    quick = list(hostile.query_cases(doc, cursors=("c1.real.sig",), per_param=2))
    assert sum(1 for c in quick if "?limit=" in c.label) == 2
    assert sum(1 for c in quick if "?cursor=" in c.label) == sum(1 for c in qs if "?cursor=" in c.label)
    nums = {c.label for c in hostile.number_cases(doc)}
    assert nums == {f"POST /n: {f} = {v}" for f in ("a", "o.b", "xs.0.c") for v in ("10^40", "-10^40")}
    big = next(c for c in hostile.number_cases(doc) if c.label == "POST /n: xs.0.c = -10^40")
    assert b'"c": -1' + b"0" * 40 in big.body
    assert hostile.cursors_in({"data": [], "pagination": {"next_cursor": "x"}, "nextCursor": None}) == ["x"]
