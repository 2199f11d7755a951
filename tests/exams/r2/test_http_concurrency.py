"""20 parallel submits of one attempt through the HTTP handler path, from 20 separate processes
(forked after the handler is imported: one request per process, as 20 warm Lambda containers), against a moto *server* whose DynamoDB
evaluates the conditional writes: exactly one grading and 19 × 409.

The service-level thread tests (tests/exams/delivery) stay: Powertools keeps per-request state
on the module-level resolver, so in-process HTTP calls cannot run in parallel threads."""
from __future__ import annotations

import multiprocessing
import os

import boto3

PASSWORD = "Passw0rd!x"


def test_twenty_processes_submit_one_attempt_grading_once(moto_server):
    from exams import devseed
    from exams.identity import jwks
    from local_runtime import testing
    from tests.exams.r2.submit_worker import submit_once, warm

    app = testing.start(only=["exams"])
    jwks.reset()
    dev = devseed.seed()
    idp = boto3.client("cognito-idp", region_name="us-east-1", endpoint_url=moto_server)

    def sign_in(email, password=PASSWORD):
        r = idp.initiate_auth(ClientId=dev["identity"]["client_id"], AuthFlow="USER_PASSWORD_AUTH",
                              AuthParameters={"USERNAME": email, "PASSWORD": password})
        return {"authorization": f"Bearer {r['AuthenticationResult']['IdToken']}"}

    api = app.exams
    sa = sign_in(dev["super_admin"]["email"], dev["super_admin"]["password"])
    cid = api.post("/api/clients", json={"name": "Org", "plan_id": "growth"}, headers=sa).json()["data"]["id"]
    for email, role in (("ca@example.com", "client_admin"), ("st@example.com", "student")):
        r = api.post("/api/create-user", headers=sa, json={"email": email, "password": PASSWORD, "name": role,
                                                           "role": role, "client_id": cid})
        assert r.status == 201, r.text
    ca, st = sign_in("ca@example.com"), sign_in("st@example.com")
    qids = []
    for i, key in enumerate("ABC"):
        r = api.post("/api/questions", headers=ca, json={"question_text": f"Q{i}", "question_type": "mcq",
                                                        "option_a": "a", "option_b": "b", "option_c": "c",
                                                        "correct_answer": key, "marks": 2})
        qids.append(r.json()["data"]["id"])
    t = api.post("/api/tests", headers=ca, json={"test_name": "Race", "timer": 30, "question_ids": qids,
                                                 "show_results_after_submission": True}).json()["data"]
    assert api.post(f"/api/tests/{t['id']}/publish", headers=ca).status == 200
    sid = api.get("/api/profiles", headers=st).json()["data"][0]["id"]
    a = api.post("/api/attempts", headers=st, json={"test_id": t["id"], "student_id": sid}).json()["data"]
    r = api.post("/api/attempt-answers", headers=st, json=[
        {"attempt_id": a["id"], "question_id": q, "selected_option": k} for q, k in zip(qids, "ABD", strict=False)])
    assert r.status == 200, r.text

    svc = warm()
    ctx = multiprocessing.get_context("fork")  # children inherit the warm handler (a warm container each)
    n = 20
    barrier, results = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=submit_once, args=(svc, a["id"], st, barrier, results)) for _ in range(n)]
    assert os.environ["AWS_ENDPOINT_URL"] == moto_server  # inherited by the children
    for p in procs:
        p.start()
    got = [results.get(timeout=240) for _ in range(n)]
    for p in procs:
        p.join(timeout=60)
    assert got.count((200, "submitted")) == 1, got
    assert got.count((409, "DUPLICATE_ANSWER_SUBMISSION")) == n - 1, got

    from exams.stats import counters

    assert counters.read(cid)["attempts_submitted"] == 1
    r = api.get(f"/api/attempts/{a['id']}", headers=ca).json()["data"]
    assert (r["status"], r["score"], r["total_marks"]) == ("submitted", 4, 6)
    logs = api.get("/api/superadmin/audit-logs", headers=sa, query={"entity_type": "attempt", "limit": 200})
    assert [x["action"] for x in logs.json()["data"]].count("attempt.submit") == 1
    sqs = boto3.client("sqs", region_name="us-east-1", endpoint_url=moto_server)
    q = os.environ["EXAMS_ANALYTICS_QUEUE_URL"]
    msgs = sqs.receive_message(QueueUrl=q, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
    assert len(msgs) == 1  # one analytics fold enqueued
