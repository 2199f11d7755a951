"""Campaign fixtures shared by every campaign test directory.

All keys are real records written through the domain code into the moto account of
``campaigns_app`` (one fresh account per test).

- ``admin_key``: secret of an Admin key on the pro plan (account ``ACCOUNT``).
- ``auth_headers``: ``{"Authorization": "Bearer <admin_key>"}``.
- ``make_key(role=None, scopes=None, plan="pro", restrictions=None, account_id=ACCOUNT, name=...)``
  → secret of a new key (``role`` defaults to admin when neither role nor scopes is given).
  ``ACCOUNT`` owns the verified sender domain ``SENDER_DOMAIN`` (example.com) once it is set up.
- ``camp``: the campaigns client with ``auth_headers`` sent by default.
- ``pipe`` (queue draining through the real workers, dispatcher tick), ``later``, ``receiver``
  (a webhook receiver on 127.0.0.1) and ``new_campaign``: the sending fixtures, shared.
"""
from __future__ import annotations

import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

ACCOUNT = "acct-test"
SENDER_DOMAIN = "example.com"
OTHER_ACCOUNT = "acct-other"


@pytest.fixture
def make_key(campaigns_app):
    from campaigns.auth import create_key
    from campaigns.senders import service as senders

    # ``example.com`` is a verified sender identity of ``ACCOUNT`` (moto verifies at once): the From
    # addresses the tests use (issue #17: only an account's own verified senders may be used).
    senders.ensure(ACCOUNT, SENDER_DOMAIN)

    def _make(role: str | None = None, scopes=None, plan: str = "pro", restrictions: dict | None = None,
              account_id: str = ACCOUNT, name: str = "test key") -> str:
        if role is None and scopes is None:
            role = "admin"
        secret, _ = create_key(account_id, name, role=role, scopes=scopes, plan=plan, restrictions=restrictions)
        return secret

    return _make


@pytest.fixture
def admin_key(make_key) -> str:
    return make_key(role="admin", plan="pro", name="admin")


@pytest.fixture
def auth_headers(admin_key) -> dict[str, str]:
    return {"Authorization": f"Bearer {admin_key}"}


@pytest.fixture
def camp(campaigns_app, auth_headers):
    client = campaigns_app.campaigns
    client.default_headers = dict(auth_headers)
    yield client
    client.default_headers = {}

def _queue_url(name: str) -> str:
    return os.environ[name]


class Pipeline:
    def __init__(self, app) -> None:
        self.app = app
        import boto3

        self.sqs = boto3.client("sqs", region_name="us-east-1")

    def receive(self, url: str, n: int = 10) -> list[dict]:
        return self.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=n, AttributeNames=["All"],
                                        VisibilityTimeout=60).get("Messages", [])

    @staticmethod
    def event(msgs: list[dict]) -> dict:
        return {"Records": [{"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
                             "attributes": m.get("Attributes", {}), "messageAttributes": {}, "md5OfBody": "",
                             "eventSource": "aws:sqs", "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:q",
                             "awsRegion": "us-east-1"} for m in msgs]}

    def run_batch(self, url: str, fn: str, msgs: list[dict]) -> list[str]:
        """Invoke ``fn`` with ``msgs``; delete the successes (as the event source mapping does)."""
        resp = self.app.campaigns.invoke_function(fn, self.event(msgs))
        failed = {f["itemIdentifier"] for f in (resp or {}).get("batchItemFailures", [])}
        for m in msgs:
            if m["MessageId"] not in failed:
                self.sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        return sorted(failed)

    def drain(self, url_env: str, fn: str, *, rounds: int = 200, batch: int = 10) -> int:
        url = _queue_url(url_env)
        handled = 0
        for _ in range(rounds):
            msgs = self.receive(url, batch)
            if not msgs:
                return handled
            self.run_batch(url, fn, msgs)
            handled += len(msgs)
        return handled

    def send_all(self) -> int:
        return self.drain("CAMPAIGNS_SEND_QUEUE_URL", "SendWorkerFunction")

    def webhooks_all(self) -> int:
        return self.drain("CAMPAIGNS_WEBHOOK_QUEUE_URL", "WebhookWorkerFunction", batch=2)

    def tick(self) -> dict:
        return self.app.campaigns.invoke_function("DispatcherFunction", {"source": "aws.events",
                                                                         "detail-type": "Scheduled Event"})

    def queue_depth(self, url_env: str) -> int:
        a = self.sqs.get_queue_attributes(QueueUrl=_queue_url(url_env), AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
        return int(a["ApproximateNumberOfMessages"]) + int(a["ApproximateNumberOfMessagesNotVisible"])


@pytest.fixture
def pipe(campaigns_app) -> Pipeline:
    return Pipeline(campaigns_app)


@pytest.fixture
def later():
    """Move the service clock forward (opens within seconds of the send count as machine opens)."""
    from lambdakit import clock

    yield lambda seconds=30: clock.set_offset(seconds)
    clock.set_offset(0)


class Receiver:
    """A webhook receiver on 127.0.0.1 that records requests and answers from a script."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.script: list[int] = []
        self.default = 200
        outer = self

        class H(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                outer.requests.append({"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body,
                                       "path": self.path})
                code = outer.script.pop(0) if outer.script else outer.default
                self.send_response(code)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def events(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self.requests]

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def wait_until(pred, timeout: float = 5.0):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


SANDBOX = {"from_email": "news@example.com", "from_name": "News", "provider": {"provider": "sandbox"}}


def _make_campaign(camp, **over) -> str:
    body = {"name": "Spring", "subject": "Hello {{first_name}}{{email}}", "content":
            "<html><body><p>Hi {{email}}</p><a href=\"https://shop.example.com/sale\">Sale</a>"
            "<a href=\"{{unsubscribe_url}}\">unsubscribe</a></body></html>",
            "audience": {"type": "test", "test_emails": [f"r{i}@example.com" for i in range(5)]},
            "schedule": {"type": "immediate"},
            "tracking": {"track_opens": True, "track_clicks": True,
                         "utm_params": {"source": "newsletter", "medium": "email", "campaign": "spring"}},
            "settings": SANDBOX, **over}
    r = camp.post("/campaigns", json=body)
    assert r.status == 201, r.text
    d = r.json()["data"]
    assert d["status"] == "draft" and set(d) == {"id", "name", "status", "created_at"}
    return d["id"]


@pytest.fixture
def new_campaign(camp):
    """``new_campaign(**overrides) -> id``: a sandbox draft campaign with a 5-address test audience."""
    return lambda **over: _make_campaign(camp, **over)
