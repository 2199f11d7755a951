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
