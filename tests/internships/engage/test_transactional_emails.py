"""Issue 23 rule 4: the emails that report a milestone review, a final project submission and a
certificate are written in the SAME DynamoDB transaction as the state change (the transactional
outbox), and delivered by the worker or the ``process-emails`` sweep exactly once.

For each flow:

* a DynamoDB fault on the transaction that carries the email (injected with the fault suite's
  botocore hooks, ``tests/faults/inject.py``) answers in the service's error format and leaves
  NEITHER the state change NOR the email; the client's retry then writes both, once;
* an SQS failure while announcing the email, or an SES failure while sending it (botocore
  ``before-call`` hooks on the real clients raising ``ClientError``), leaves the email pending; a
  later pass of the worker or the sweep sends it, exactly once.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable

import boto3
import pytest
from botocore.exceptions import ClientError

from tests.faults.inject import inject

from .conftest import drain_queue, sandbox_messages, seed_enrollment, seed_milestone


# ---------------------------------------------------------------- the three flows, as data
@dataclass
class Flow:
    template: str
    setup: Callable[[Any, Any], dict]       # (client, intern_users) -> v
    call: Callable[[Any, dict], Any]        # (client, v) -> HttpResult
    state: Callable[[dict], dict]           # v -> the business state the call changes, read back
    before: dict                            # state before the call (and after a failed one)
    after: dict                             # state after a successful call


def _table():
    from internships.settings import settings
    from lambdakit.ddb import Table

    return Table(settings().table_name)


def _enrollment(st) -> dict:
    """An active enrollment in the shape the enrollments package writes (price, amount, discount)."""
    e = seed_enrollment(st)
    extra = {"price": 1000, "amount": 1000, "discount": 0}
    _table().update(e["pk"], "ENROLL", set=extra)
    return {**e, **extra}


def _review_setup(c, users) -> dict:
    st, admin = users.student(), users.staff("admin")
    e = _enrollment(st)
    m = seed_milestone(e, 1, status="submitted", remarks=None)
    return {"to": st.email, "e": e, "m": m, "admin": admin}


def _review_state(v: dict) -> dict:
    m = _table().get(v["m"]["pk"], v["m"]["sk"], consistent=True)
    return {"status": m["status"], "remarks": m.get("remarks")}


def _submit_setup(c, users) -> dict:
    st = users.student()
    return {"to": st.email, "e": _enrollment(st), "st": st}


def _submit_state(v: dict) -> dict:
    e = _table().get(v["e"]["pk"], "ENROLL", consistent=True)
    return {"project": e.get("project_status"), "to": e.get("submission_email")}


def _cert_setup(c, users) -> dict:
    st, admin = users.student(), users.staff("admin")
    return {"to": st.email, "e": _enrollment(st), "st": st, "admin": admin}


def _cert_state(v: dict) -> dict:
    e = _table().get(v["e"]["pk"], "ENROLL", consistent=True)
    certs = _table().query_all(f"USER#{v['st'].id}#CERTS", index="gsi1", max_items=10)
    return {"status": e["status"], "certificates": len(certs),
            "certificate_matches": bool(certs) and certs[0]["certificate_id"] == e.get("certificate_id")}


FLOWS = {
    "milestone review": Flow(
        "milestone_approved", _review_setup,
        lambda c, v: c.post(f"/api/admin/milestones/{v['m']['id']}/review", headers=v["admin"].headers,
                            json={"action": "approve", "remarks": "Well done"}),
        _review_state, {"status": "submitted", "remarks": None}, {"status": "reviewed", "remarks": "Well done"}),
    "project submission": Flow(
        "submission", _submit_setup,
        lambda c, v: c.post(f"/api/enrollments/{v['e']['id']}/submit", headers=v["st"].headers,
                            json={"submissionEmail": "repo@example.org"}),
        _submit_state, {"project": None, "to": None}, {"project": "submitted", "to": "repo@example.org"}),
    "certificate": Flow(
        "certificate", _cert_setup,
        lambda c, v: c.post(f"/api/admin/enrollments/{v['e']['id']}/approve", headers=v["admin"].headers, json={}),
        _cert_state, {"status": "active", "certificates": 0, "certificate_matches": False},
        {"status": "completed", "certificates": 1, "certificate_matches": True}),
}


def _emails(flow: Flow, v: dict) -> list[dict]:
    """The outbox items of ``flow``'s template addressed to this run's student."""
    items = _table().query_all(f"EMAILTPL#{flow.template}", index="gsi3", max_items=1000)
    return [i for i in items if i["to"] == v["to"]]


def _delivered(v: dict) -> int:
    return sum(1 for m in sandbox_messages() if m["to"] == v["to"])


def _run_sweeps(app, times: int = 2) -> None:
    for _ in range(times):
        app.invoke_function("CronFunction", {"job": "process-emails"})


def _queue_depth() -> int:
    sqs = boto3.client("sqs", region_name="us-east-1")
    attrs = sqs.get_queue_attributes(QueueUrl=os.environ["INTERNSHIPS_EMAIL_QUEUE_URL"],
                                     AttributeNames=["ApproximateNumberOfMessages"])["Attributes"]
    return int(attrs["ApproximateNumberOfMessages"])


def _email_in(name: str, req: dict) -> bool:
    """Does this transaction write an outbox email item?"""
    from tests.faults.inject import write_items

    return any(pk.startswith("EMAILQ#") for _, pk, _, _ in write_items(name, req))


# ---------------------------------------------------------------- (a) one transaction
@pytest.mark.parametrize("name", FLOWS)
@pytest.mark.parametrize("fault,status", [("InternalServerError", 500),
                                          ("ProvisionedThroughputExceededException", 503),
                                          ("cancel:ValidationError", None)])
def test_state_change_and_email_are_written_together(eng, intern_users, name, fault, status):
    flow = FLOWS[name]
    c = eng.internships
    v = flow.setup(c, intern_users)
    assert flow.state(v) == flow.before
    # the fault hits the transaction that writes the email: it must be the one of the state change
    with inject("TransactWriteItems", fault, item=lambda t, pk, sk: pk.startswith("EMAILQ#")) as f:
        r = flow.call(c, v)
    assert f.fired == 1, f"{name}: no transaction carried the email"
    if status is None:
        assert r.status in (413, 422), (r.status, r.text)
    else:
        assert r.status == status, (r.status, r.text)
    assert set(r.json()) == {"error"} and "Traceback" not in r.text  # the service's error format
    # read back: neither the state change nor the email
    assert flow.state(v) == flow.before, name
    assert _emails(flow, v) == []
    # the client's retry writes both, once; the worker sends it once
    r = flow.call(c, v)
    assert r.status in (200, 201), r.text
    assert flow.state(v) == flow.after
    assert [e["status"] for e in _emails(flow, v)] == ["pending"]
    drain_queue(c)
    _run_sweeps(c)
    assert [e["status"] for e in _emails(flow, v)] == ["sent"] and _delivered(v) == 1


@pytest.mark.parametrize("name", FLOWS)
def test_a_condition_failure_is_read_back_before_it_is_believed(eng, intern_users, name):
    """A cancelled transaction naming the state change's condition, while the item read back still
    allows the change (rule 2): retried, one state change and one email."""
    flow = FLOWS[name]
    c = eng.internships
    v = flow.setup(c, intern_users)
    with inject("TransactWriteItems", "cancel:ConditionalCheckFailed",
                item=lambda t, pk, sk: pk.startswith("ENROLL#")) as f:
        r = flow.call(c, v)
    assert f.fired == 1 and r.status in (200, 201), r.text
    assert flow.state(v) == flow.after and [e["status"] for e in _emails(flow, v)] == ["pending"]


@pytest.mark.parametrize("name", FLOWS)
def test_an_email_id_collision_is_503_and_nothing_is_written(eng, intern_users, name):
    """The email item's key is minted for the write: a condition failure on it alone is a collision
    (503 with Retry-After), never a conflict, and the state change is not written without it."""
    flow = FLOWS[name]
    c = eng.internships
    v = flow.setup(c, intern_users)
    with inject("TransactWriteItems", "cancel:ConditionalCheckFailed",
                item=lambda t, pk, sk: pk.startswith("EMAILQ#")) as f:
        r = flow.call(c, v)
    assert f.fired == 1 and r.status == 503 and {k.lower(): x for k, x in r.headers.items()}.get("retry-after"), (r.status, r.text)
    assert flow.state(v) == flow.before and _emails(flow, v) == []


# ---------------------------------------------------------------- (b) delivery faults
def _raise(code: str, status: int, counter: list | None = None):
    def hook(**kw):
        if counter is not None:
            counter.append(1)
        raise ClientError({"Error": {"Code": code, "Message": "injected"},
                           "ResponseMetadata": {"HTTPStatusCode": status}}, kw["model"].name)
    return hook


@pytest.mark.parametrize("name", FLOWS)
def test_sqs_failure_while_announcing_leaves_the_email_pending_for_the_sweep(eng, intern_users, name):
    from lambdakit import aws

    flow = FLOWS[name]
    c = eng.internships
    v = flow.setup(c, intern_users)
    sqs = aws.client("sqs")
    failed: list = []
    sqs.meta.events.register("before-call.sqs.SendMessage", _raise("ServiceUnavailable", 503, failed),
                             unique_id="notify-sqs")
    try:
        r = flow.call(c, v)
    finally:
        sqs.meta.events.unregister("before-call.sqs.SendMessage", unique_id="notify-sqs")
    # the email was committed with the change: the API answers the change; nothing is half-queued
    assert failed and r.status in (200, 201), r.text
    assert flow.state(v) == flow.after
    assert [e["status"] for e in _emails(flow, v)] == ["pending"] and _queue_depth() == 0
    _run_sweeps(c)
    drain_queue(c)
    assert [e["status"] for e in _emails(flow, v)] == ["sent"] and _delivered(v) == 1


@pytest.mark.parametrize("name", FLOWS)
@pytest.mark.parametrize("code,status", [("ServiceUnavailable", 503), ("MessageRejected", 400)])
def test_ses_failure_while_sending_leaves_the_email_pending_then_sent_once(eng, intern_users, monkeypatch,
                                                                           name, code, status):
    from internships.mail import service
    from lambdakit import aws, clock
    from lambdakit import settings as ks

    monkeypatch.setenv("INTERNSHIPS_EMAIL_PROVIDER", "ses")
    ks.reset_settings()
    flow = FLOWS[name]
    c = eng.internships
    v = flow.setup(c, intern_users)
    r = flow.call(c, v)
    assert r.status in (200, 201), r.text
    ses = aws.client("sesv2")
    failed: list = []
    sent: list = []
    ses.meta.events.register("before-call.sesv2.SendEmail", _raise(code, status, failed), unique_id="notify-ses")
    try:
        drain_queue(c)  # the worker's attempt fails
    finally:
        ses.meta.events.unregister("before-call.sesv2.SendEmail", unique_id="notify-ses")
    assert failed, "the worker never called SES"
    [e] = _emails(flow, v)
    assert e["status"] == "pending" and code in e["last_error"]
    # a later pass (the sweep, once the backoff has passed) sends it, exactly once
    ses.meta.events.register("before-call.sesv2.SendEmail", lambda **kw: sent.append(1), unique_id="notify-count")
    try:
        assert service.sweep()["sent"] == 0  # not due yet
        clock.set_offset(3700)
        _run_sweeps(c, 3)
        drain_queue(c)
    finally:
        ses.meta.events.unregister("before-call.sesv2.SendEmail", unique_id="notify-count")
    [e] = _emails(flow, v)
    assert e["status"] == "sent" and e.get("message_id") and len(sent) == 1


def test_certificate_email_carries_the_stored_pdf(eng, intern_users):
    """The certificate's PDF is stored before the transaction; the email and the certificate name it."""
    flow = FLOWS["certificate"]
    c = eng.internships
    v = flow.setup(c, intern_users)
    assert flow.call(c, v).status in (200, 201)
    [e] = _emails(flow, v)
    cert = _table().query_all(f"USER#{v['st'].id}#CERTS", index="gsi1", max_items=10)[0]
    assert cert["pdf_key"] == f"certificates/{cert['certificate_id']}.pdf"
    assert [a["s3_key"] for a in e["attachments"]] == [cert["pdf_key"]]
    drain_queue(c)
    [m] = [m for m in sandbox_messages() if m["to"] == v["to"]]
    assert m["attachments"] == [f"{cert['certificate_id']}.pdf"]


def test_certificate_pdf_upload_failure_issues_it_without_the_attachment(eng, intern_users):
    """An S3 upload failure: the certificate is issued without ``pdf_key`` (rendered on download) and
    its email goes without an attachment: nothing is recorded as uploaded."""
    from lambdakit import aws

    flow = FLOWS["certificate"]
    c = eng.internships
    v = flow.setup(c, intern_users)
    s3 = aws.client("s3")
    s3.meta.events.register("before-call.s3.PutObject", _raise("ServiceUnavailable", 503), unique_id="notify-s3")
    try:
        r = flow.call(c, v)
    finally:
        s3.meta.events.unregister("before-call.s3.PutObject", unique_id="notify-s3")
    assert r.status in (200, 201), r.text
    assert flow.state(v) == flow.after
    cert = _table().query_all(f"USER#{v['st'].id}#CERTS", index="gsi1", max_items=10)[0]
    [e] = _emails(flow, v)
    assert "pdf_key" not in cert and e["attachments"] == []
    drain_queue(c)
    assert _delivered(v) == 1


def test_attachment_read_fault_is_retried_not_failed(eng, intern_users):
    """An S3 fault while the worker reads an attachment is retried (the email stays pending), not a
    permanent failure; a later pass sends it with the attachment, once."""
    from lambdakit import aws, clock

    flow = FLOWS["certificate"]
    c = eng.internships
    v = flow.setup(c, intern_users)
    assert flow.call(c, v).status in (200, 201)
    s3 = aws.client("s3")
    s3.meta.events.register("before-call.s3.GetObject", _raise("SlowDown", 503), unique_id="notify-s3get")
    try:
        drain_queue(c)
    finally:
        s3.meta.events.unregister("before-call.s3.GetObject", unique_id="notify-s3get")
    [e] = _emails(flow, v)
    assert e["status"] == "pending" and "SlowDown" in e["last_error"] and _delivered(v) == 0
    clock.set_offset(3700)
    _run_sweeps(c)
    [e] = _emails(flow, v)
    assert e["status"] == "sent" and _delivered(v) == 1
