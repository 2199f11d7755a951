"""The sample events in events/ are valid and drive the real handlers."""
import json
from pathlib import Path

from local_runtime import invoke as inv
from local_runtime.schedule import schedules_of

EVENTS = Path(__file__).resolve().parents[2] / "events"


def load(name):
    return json.loads((EVENTS / name).read_text())


def test_http_samples_reach_the_health_handlers(app):
    for svc, name, fn in (("campaigns", "http-campaigns-health.json", "HealthFunction"),
                          ("exams", "http-exams-root.json", "HealthFunction"),
                          ("internships", "http-internships-health.json", "HealthFunction")):
        ev = load(name)
        route = app.services[svc].match(ev["requestContext"]["http"]["method"], ev["rawPath"])
        assert route and route[0].route_key == ev["routeKey"] and route[0].function == fn
        r = inv.to_http_result(getattr(app, svc).invoke_function(fn, ev))
        assert r.status == 200, r.text


def test_sqs_samples_have_lambda_shape():
    for name in ("sqs-batch.json", "s3-object-created-sqs.json"):
        for rec in load(name)["Records"]:
            assert rec["eventSource"] == "aws:sqs" and rec["eventSourceARN"].startswith("arn:aws:sqs:")
            assert rec["messageId"] and rec["receiptHandle"] and int(rec["attributes"]["ApproximateReceiveCount"]) >= 1
    body = json.loads(load("s3-object-created-sqs.json")["Records"][0]["body"])
    assert body["Records"][0]["eventName"].startswith("ObjectCreated")


def test_schedule_samples_match_the_templates(app):
    assert load("schedule.json")["detail-type"] == "Scheduled Event"
    cron = app.services["internships"].functions["CronFunction"]
    inputs = [s.input for s in schedules_of(cron)]
    assert load("schedule-internships-process-emails.json") in inputs
