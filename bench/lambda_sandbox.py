"""Run functions as Lambda would, each in a fresh isolated process, against the emulator.

Shared by ``tests/platform/test_artifact.py`` (the built artifact loads and serves) and
``bench/bench_coldrequest.py`` (what the first request of a cold container costs).

* ``Emulator``: a subprocess (``python bench/lambda_sandbox.py serve``) running the AWS
  emulator (moto behind ``local_runtime.emulator``) on a free port with every template's
  resources provisioned; it writes each function's resolved environment and a real DynamoDB
  item (for the floor's GetItem) to a JSON file, and lives until its stdin closes. With
  ``seed=True`` it also seeds each service's dev principal (``state["auth"]``) and the sample
  items the events name (``state["ids"]``; ``_seed_campaigns``/``_seed_exams``/``_seed_internships``).
* ``runtime_dir``: the packages the python3.13 Lambda runtime itself provides (boto3,
  botocore, s3transfer, jmespath, python-dateutil, six, urllib3), linked from this virtualenv
  into a directory of their own; nothing else of the virtualenv is visible to a function.
* ``fill`` / ``event_for(service, logical_id, ids)``: a sample event with its ``{{service.name}}``
  placeholders replaced by the ids of the sample items a seeded emulator made
  (``Emulator(..., seed=True).state["ids"]``; events/README.md). ``python bench/lambda_sandbox.py
  fill EVENT.json IDS.json`` prints one filled event.
* ``layer_from_venv`` / ``layers_from_venv``: the shared layer's packages linked from this
  virtualenv (only its ``requirements.txt``: no cryptography, which no function ships;
  docs/platform.md, "Layers"); ``function_paths(fn, layers)``: a function's folder plus exactly
  the layers its template gives it.
* ``invoke``: ``python -I -S bench/lambda_runner.py`` with ``sys.path`` = function folder,
  its layers' ``python/``, runtime packages (Lambda's order), the function's environment, and
  tracing as on Lambda (``LAMBDA_TASK_ROOT`` set; X-Ray sends to a closed local UDP port).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RUNNER = Path(__file__).resolve().parent / "lambda_runner.py"
EVENTS = ROOT / "events" / "functions"
#: What the AWS Lambda python3.13 runtime ships outside the function and its layers.
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six.py", "urllib3")
REGION = "us-east-1"
FLOOR_KEY = {"pk": "BENCH#floor", "sk": "BENCH#floor"}


def event_for(service: str, logical_id: str, values: dict[str, dict[str, str]] | None = None) -> dict:
    """The function's sample event, its ``{{service.name}}`` placeholders filled from ``values``
    (``Emulator.state["ids"]`` of a seeded emulator; see events/README.md)."""
    event = json.loads((EVENTS / f"{service}.{logical_id}.json").read_text())
    return fill(event, values) if values else event


def runtime_dir(base: Path) -> Path:
    """A directory holding (symlinks to) only the runtime-provided packages."""
    import boto3

    site = Path(boto3.__file__).resolve().parent.parent
    out = base / "lambda-runtime"
    out.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME_PROVIDED:
        link = out / name
        if not link.exists():
            link.symlink_to(site / name)
    return out


def _requirement_names(layer: str) -> list[str]:
    import re

    return [re.split(r"[=<>\[ ]", ln, maxsplit=1)[0] for ln in
            (ROOT / "layers" / layer / "requirements.txt").read_text().splitlines()
            if ln.strip() and not ln.startswith("#")]


def _link_distributions(names: list[str], dest: Path) -> Path:
    """``dest`` holding links to the top-level entries (packages, modules, dist-info) of the
    installed distributions ``names``."""
    from importlib import metadata

    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        dist = metadata.distribution(name)
        base = Path(str(dist.locate_file("")))
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in tops:
            link, target = dest / top, base / top
            if target.exists() and not link.exists():
                link.symlink_to(target)
    return dest


def layer_from_venv(dest: Path) -> Path:
    """What the built shared layer plus the Lambda runtime hold, taken from this virtualenv:
    links to the packages of ``layers/shared/requirements.txt`` and the runtime-provided ones
    only (so a dev-only package that changes behaviour, such as awscrt which botocore uses when
    present, stays out, and so does cryptography, a dev dependency only: RS256 tokens are verified
    by ``lambdakit.rs256``). For benchmarks on the sources, where no build is wanted."""
    names = _requirement_names("shared")
    names += ["boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six", "urllib3"]
    return _link_distributions(names, dest)


def layers_from_venv(base: Path) -> dict[str, list[str]]:
    """Every layer of the templates as ``sys.path`` entries on the sources: ``{logical id:
    [paths]}``; ``SharedLayer`` (the only one) is ``layers/shared`` (lambdakit) plus
    ``layer_from_venv``'s site. Give a function ``function_paths(fn, ...)``."""
    return {"SharedLayer": [str(ROOT / "layers" / "shared"), str(layer_from_venv(base / "site"))],
            # fonts only (no Python): typefaces finds them in layers/fonts/fonts outside Lambda
            "FontsLayer": []}


def function_paths(fn: Any, layers: dict[str, list[str]]) -> list[str]:
    """``sys.path`` of ``fn`` (a ``local_runtime.stack.Function``): its code folder, then the
    paths of exactly the layers its template gives it (``fn.layers``, in order; on Lambda they
    are all unpacked into ``/opt/python``). A layer missing from ``layers`` is an error."""
    missing = [lid for lid in fn.layers if lid not in layers]
    if missing:
        raise KeyError(f"{fn.service}.{fn.logical_id}: no paths for its layer(s) {missing}")
    return [str(fn.code_dir), *(p for lid in fn.layers for p in layers[lid])]


class Emulator:
    """The emulator subprocess with every service provisioned."""

    def __init__(self, tmp: Path, services: tuple[str, ...] = (), *, seed: bool = False) -> None:
        self.state_file = tmp / "sandbox-state.json"
        self.log = tmp / "sandbox.log"
        self.state_file.unlink(missing_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PYTHON"))}
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "serve", str(self.state_file), *services,
             *(["--seed"] if seed else [])],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=open(self.log, "wb"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while not self.state_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("emulator did not start:\n" + self.log.read_text()[-3000:])
            time.sleep(0.05)
        self.state: dict[str, Any] = json.loads(self.state_file.read_text())
        self.endpoint: str = self.state["endpoint"]

    def function_env(self, service: str, logical_id: str) -> dict[str, str]:
        return dict(self.state["envs"][service][logical_id])

    def stop(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def base_env(endpoint: str, *, tracing: bool = True) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "TZ": "UTC",
           "AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
           "AWS_REGION": REGION, "AWS_DEFAULT_REGION": REGION, "AWS_EXECUTION_ENV": "AWS_Lambda_python3.13",
           "POWERTOOLS_METRICS_NAMESPACE": "Artifact"}
    if tracing:  # as on Lambda with Tracing: Active; the segments go to a closed UDP port
        env.update({"_X_AMZN_TRACE_ID": "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
                    "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:9", "AWS_XRAY_CONTEXT_MISSING": "IGNORE_ERROR"})
    else:
        env["POWERTOOLS_TRACE_DISABLED"] = "true"
    return env


def invoke(paths: list[str], handler: str, event: Any, env: dict[str, str], *, name: str = "fn",
           warm: int = 0, timeout: float = 120, python: str = sys.executable, importtime: bool = False,
           profile_clients: bool = False, cprofile: str | None = None,
           pyflags: tuple[str, ...] = ()) -> dict[str, Any]:
    """Import ``handler`` from ``paths`` only, in a fresh isolated interpreter, and call it once."""
    paths = [os.path.abspath(p) for p in paths]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"paths": paths, "handler": handler, "event": event, "name": name, "warm": warm,
                   "profile_clients": profile_clients, "cprofile": cprofile}, f)
    try:
        env = {**env, "LAMBDA_TASK_ROOT": paths[0], "AWS_LAMBDA_FUNCTION_NAME": name}
        t0 = time.perf_counter()
        r = subprocess.run([python, "-I", "-S", *pyflags, *(["-X", "importtime"] if importtime else []),
                            str(RUNNER), f.name], capture_output=True, text=True, env=env,
                           cwd=paths[0], timeout=timeout)
        wall = (time.perf_counter() - t0) * 1000
    finally:
        os.unlink(f.name)
    head, sep, tail = r.stdout.rpartition("@@RESULT@@")
    if not sep:
        return {"ok": False, "error": f"exit {r.returncode}", "stderr": r.stderr[-4000:], "stdout": r.stdout[-2000:]}
    out: dict[str, Any] = json.loads(tail)
    out["wall_ms"] = wall
    out["logs"] = head[-4000:]
    if importtime:
        out["importtime"] = parse_importtime(r.stderr)
    out["stderr"] = "\n".join(ln for ln in r.stderr.splitlines() if not ln.startswith("import time:"))[-4000:]
    return out


def parse_importtime(stderr: str) -> dict[str, tuple[float, float]]:
    """``-X importtime`` lines → {module: (self ms, cumulative ms)}."""
    mods: dict[str, tuple[float, float]] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cum_us, name = (p.strip() for p in line[len("import time:"):].split("|"))
        mods[name] = (int(self_us) / 1000, int(cum_us) / 1000)
    return mods


# ------------------------------------------------------------------ emulator subprocess
def _seed_principals(envs: dict[str, dict[str, dict[str, str]]]) -> tuple[dict[str, dict[str, str]],
                                                                          dict[str, dict[str, str]]]:
    """Each service's dev principal (its ``devseed``), as request headers: campaigns' dev API
    key, the exams super admin's Cognito ID token, the internships super admin's token; and the
    sample items the events' ``{{service.name}}`` placeholders name (``fill``)."""
    from local_runtime import invoke as inv
    from local_runtime.stack import load_all

    services = load_all()
    for name, fns in envs.items():
        for env in fns.values():
            os.environ.update(env)
        inv.ensure_paths(code_dirs=[services[name].dir])
    # the internships tokens minted here (super admin, sample student) outlive a long benchmark
    # run (15 minutes by default); the functions under test verify them with their own settings
    os.environ["INTERNSHIPS_ACCESS_TOKEN_MINUTES"] = "240"
    out: dict[str, dict[str, str]] = {}
    ids: dict[str, dict[str, str]] = {}
    if "campaigns" in envs:
        from campaigns import devseed as cseed

        out["campaigns"] = {"authorization": f"Bearer {cseed.seed()['api_key']}"}
        ids["campaigns"] = _seed_campaigns(services["campaigns"], out["campaigns"])
    if "exams" in envs:
        import boto3

        from exams import devseed as eseed

        e = eseed.seed()
        tok = boto3.client("cognito-idp", region_name=REGION).initiate_auth(
            ClientId=e["identity"]["client_id"], AuthFlow="USER_PASSWORD_AUTH",
            AuthParameters={"USERNAME": e["super_admin"]["email"], "PASSWORD": e["super_admin"]["password"]})
        out["exams"] = {"authorization": f"Bearer {tok['AuthenticationResult']['IdToken']}"}
        ids["exams"] = _seed_exams()
        # a deployed service's steady state: an earlier cold start stored the Cognito key set
        # (JWKS#, read with the profile) and the super admin's sign-in is recorded (AUTHSEEN#)
        _call(services["exams"], "GET", "/api/stats/dashboard", out["exams"])
    if "internships" in envs:
        from internships import devseed as iseed

        seeded = iseed.seed()
        r = inv.dispatch(services["internships"], "POST", "/api/auth/login", "",
                         {"content-type": "application/json"}, json.dumps(seeded["super_admin"]).encode())
        out["internships"] = {"authorization": f"Bearer {r.json()['token']}"}
        ids["internships"] = {"cron_secret": seeded["cron_secret"],
                              **_seed_internships(services["internships"], out["internships"], seeded["payments"])}
    return out, ids


# ------------------------------------------------------------------ sample items (placeholders)
def _call(svc: Any, method: str, path: str, headers: dict[str, str], body: Any = None, query: str = "") -> Any:
    """One request through the service's real handler; the sample data must be made, so a
    non-2xx answer stops the seeding."""
    from local_runtime import invoke as inv

    hdrs = {**headers, **({"content-type": "application/json"} if body is not None else {})}
    r = inv.dispatch(svc, method, path, query, hdrs, json.dumps(body).encode() if body is not None else None)
    if not 200 <= r.status < 300:
        raise RuntimeError(f"seeding {svc.name} {method} {path}: {r.status} {r.text[:500]}")
    return r.json() if r.body else None


def _messages(queue_prefix: str) -> list[dict]:
    """The bodies of the messages waiting on the queue named ``<queue_prefix>...`` (left there)."""
    import boto3

    sqs = boto3.client("sqs", region_name=REGION)
    url = sqs.list_queues(QueueNamePrefix=queue_prefix)["QueueUrls"][0]
    out: list[dict] = []
    for _ in range(5):
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=0).get("Messages", [])
        out += [json.loads(m["Body"]) for m in got]
        if not got:
            break
    return out


def _webhook_receiver() -> str:
    """A local HTTP receiver answering 204 to every POST (webhook deliveries reach a real endpoint)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/hooks/sample"


def _seed_campaigns(svc: Any, auth: dict[str, str]) -> dict[str, str]:
    """Through the API of the dev account: a list with one contact; a campaign confirmed and
    dispatched (the dispatcher run in-process, so its fan-out message waits on the send queue),
    a second one confirmed and due (for the Dispatcher sample); a webhook on a local receiver
    (made first, so the contact's ``contact.subscribed`` delivery waits on the webhook queue); one single send (a recipient for the SES feedback sample);
    an import job whose CSV was uploaded to its presigned form (S3 notified the import queue)."""
    from local_runtime import invoke as inv
    from local_runtime.schedule import schedules_of

    hook = _call(svc, "POST", "/webhooks", auth, {"name": "Sample receiver", "url": _webhook_receiver(),
                                                   "events": ["contact.subscribed", "email.delivered"]})["data"]
    lst = _call(svc, "POST", "/lists", auth, {"name": "Sample list"})["data"]
    contact = _call(svc, "POST", "/contacts", auth, {"email": "sample.contact@example.com", "first_name": "Sample",
                                                     "lists": [lst["id"]]})["data"]

    def campaign(name: str) -> str:
        cid = _call(svc, "POST", "/campaigns", auth, {
            "name": name, "subject": "Hello {{first_name}}", "content": "<p>Hello {{first_name}}</p>",
            "audience": {"type": "list", "list_id": lst["id"]}})["data"]["id"]
        _call(svc, "POST", f"/campaigns/{cid}/send", auth, {"confirm": True})
        return cid

    sending = campaign("Sample campaign")
    dispatcher = svc.functions["DispatcherFunction"]
    inv.invoke(dispatcher, schedules_of(dispatcher)[0].event())
    fanout = next(m for m in _messages("campaigns-SendQueue") if m.get("campaign_id") == sending)
    due = campaign("Sample campaign (due)")

    delivery = next(m for m in _messages("campaigns-WebhookQueue") if m.get("webhook_id") == hook["id"])

    single = _call(svc, "POST", "/email/send", auth, {"to": contact["email"], "subject": "Sample", "text": "Hello"})
    from campaigns.privacy.repository import erasure_pk
    from campaigns.sending import repository as sends

    rcpt = next(i for i in sends.table().query_all(erasure_pk(delivery["account_id"], contact["email"]), index="gsi1")
                if str(i.get("send_id", "")).startswith("m-"))
    return {"list_id": lst["id"], "contact_id": contact["id"], "campaign_id": sending, "due_campaign_id": due,
            "fanout_seq": str(fanout.get("seq", 0)), "webhook_id": hook["id"], "delivery_id": delivery["delivery_id"],
            "account_id": delivery["account_id"], "send_id": rcpt["send_id"], "rkey": rcpt["rkey"],
            "message_id": single["data"]["message_id"], "contact_email": contact["email"], **_seed_import(svc, auth, lst)}


def _seed_import(svc: Any, auth: dict[str, str], lst: dict) -> dict[str, str]:
    from urllib.parse import quote

    import requests

    job = _call(svc, "POST", "/contacts/imports", auth, {"list_id": lst["id"]})["data"]
    csv = b"email,first_name\nsample.import@example.com,Imported\n"
    r = requests.post(job["upload"]["url"], data=job["upload"]["fields"], files={"file": ("contacts.csv", csv)},
                      timeout=30)
    if r.status_code >= 300:
        raise RuntimeError(f"seeding campaigns: import upload {r.status_code} {r.text[:300]}")
    s3 = next(rec["s3"] for m in _messages("campaigns-ImportQueue") for rec in m.get("Records", [])
              if job["job_id"] in rec["s3"]["object"]["key"])
    return {"import_job_id": job["job_id"], "import_bucket": s3["bucket"]["name"],
            "import_key": quote(s3["object"]["key"].replace("%2F", "/"), safe="")}


def _seed_exams() -> dict[str, str]:
    """A client, a student of it, a question, a published test, one submitted attempt with a
    proctoring event, through the service layer (the rules the routes apply); its
    ``attempt_graded`` message waits on the analytics queue."""
    from exams.attempts import answers, submission
    from exams.attempts.start import start
    from exams.clients.models import CreateClient
    from exams.clients.service import create_client
    from exams.identity import Principal
    from exams.papers import service as papers
    from exams.proctoring import service as proctoring
    from exams.questions import service as questions
    from exams.users.models import CreateUser
    from exams.users.service import create_user

    sa = Principal("sample-super-admin", "super_admin", None, "superadmin@example.com", "Super Admin")
    cid = create_client(sa, CreateClient(name="Sample client", plan_id="enterprise"))["id"]
    ca = Principal("sample-client-admin", "client_admin", cid, "sample.admin@example.com", "Sample Admin")
    st = create_user(sa, CreateUser(email="sample.student@example.com", password="Sample-Passw0rd1",
                                    name="Sample Student", role="student", client_id=cid))
    student = Principal(st["id"], "student", cid, st["email"], st.get("name") or "Sample Student")
    q = questions.create(ca, {"question_text": "2 + 2 = ?", "question_type": "mcq", "option_a": "3", "option_b": "4",
                              "option_c": "5", "option_d": "22", "correct_answer": "B", "marks": 1})
    t = papers.create(ca, {"test_name": "Sample test", "timer": 30, "question_ids": [q["id"]]})
    papers.publish(ca, t["id"])
    a = start(student, {"test_id": t["id"], "student_id": student.user_id})
    answers.save_answers(student, a["id"], None, [{"question_id": q["id"], "answer": "B"}])
    proctoring.record_event(student, None, {"attempt_id": a["id"], "test_id": t["id"], "event_type": "TAB_SWITCH"})
    submission.submit(student, a["id"], None)
    graded = next(m for m in _messages("exams-AnalyticsQueue") if m.get("attempt_id") == a["id"])
    return {"client_id": cid, "student_id": student.user_id, "question_id": q["id"], "test_id": graded["test_id"],
            "attempt_id": graded["attempt_id"]}


def _seed_internships(svc: Any, admin: dict[str, str], payments: dict[str, str]) -> dict[str, str]:
    """A domain (admin API), a student (accounts service) enrolled and paid (enrollment API),
    and the student's first milestone submitted (learning API); the first e-mail they queued
    (``{"emailId"}`` on the e-mail queue) is the e-mail worker's sample."""
    import hashlib
    import hmac

    from internships.accounts import service as accounts

    dom = _call(svc, "POST", "/api/admin/domains", admin, {
        "name": "Sample Domain", "slug": "sample-domain", "description": "A sample internship domain",
        "prices": {"1": 1000, "2": 1800, "3": 2500}, "is_active": True,
        "milestones": [{"title": "Setup", "description": "Tooling"}, {"title": "Build", "description": "Core"}]})["domain"]
    user = accounts.create_user(email="sample.student@example.com", password="Sample-Passw0rd1",
                                name="Sample Student", role="student", phone="+91 98765 43210")
    token = accounts.issue_tokens(user).access_token
    student = {"authorization": f"Bearer {token}"}
    e = _call(svc, "POST", "/api/enrollments/create", student, {"domainId": dom["id"], "duration": 1})["enrollment"]
    pay = "pay_sample0000001"
    sig = hmac.new(payments["key_secret"].encode(), f"{e['order']['orderId']}|{pay}".encode(), hashlib.sha256)
    _call(svc, "POST", "/api/enrollments/verify-payment", student, {
        "enrollmentId": e["id"], "orderId": e["order"]["orderId"], "paymentId": pay, "signature": sig.hexdigest()})
    ms = _call(svc, "GET", "/api/milestones", student, query=f"enrollmentId={e['id']}")["milestones"]
    _call(svc, "POST", f"/api/milestones/{ms[0]['id']}/submit", student,
          {"submissionNotes": "Tooling installed and the project skeleton pushed."})
    email = next(m for m in _messages("internships-EmailQueue") if m.get("emailId"))
    return {"domain_id": dom["id"], "student_id": user["id"], "student_token": token, "enrollment_id": e["id"],
            "milestone_id": ms[0]["id"], "email_id": email["emailId"]}


def fill(event: Any, values: dict[str, dict[str, str]]) -> Any:
    """``event`` with every ``{{service.name}}`` placeholder replaced by ``values[service][name]``
    (the sample items the seeded emulator made); unknown placeholders stay as they are."""
    import re

    def sub(m: re.Match) -> str:
        return str(values.get(m.group(1), {}).get(m.group(2), m.group(0)))

    return json.loads(re.sub(r"\{\{(\w+)\.(\w+)\}\}", sub, json.dumps(event)))


def _serve(state_file: Path, only: list[str], seed: bool = False) -> None:
    import socket

    sys.path[:0] = [str(ROOT)]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    from local_runtime.emulator import EmulatorServer

    server = EmulatorServer(port=port)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    os.environ.update({"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
                       "AWS_DEFAULT_REGION": REGION, "AWS_REGION": REGION})
    from local_runtime.provision import Clients, provision
    from local_runtime.stack import load_all
    from local_runtime.testing import LOCAL_PARAMS

    clients = Clients()
    envs: dict[str, dict[str, dict[str, str]]] = {}
    floor: dict[str, Any] = {}
    for name, svc in load_all().items():
        if only and name not in only:
            continue
        se = provision(svc, LOCAL_PARAMS.get(name, {"Stage": "local"}), clients=clients)
        envs[name] = {lid: se.function_env(lid) for lid in svc.functions}
        if not floor:
            for lid, res in svc.resources_of("AWS::DynamoDB::Table").items():
                table = se.resolve({"Ref": lid})
                keys = [k["AttributeName"] for k in res["Properties"]["KeySchema"]]
                item = {k: {"S": v} for k, v in zip(keys, FLOOR_KEY.values(), strict=False)}
                clients("dynamodb").put_item(TableName=table, Item={**item, "payload": {"S": "x" * 200}})
                floor = {"table": table, "key": {k: v["S"] for k, v in item.items()}}
                break
    auth, ids = _seed_principals(envs) if seed else ({}, {})
    tmp = state_file.with_suffix(".tmp")
    tmp.write_text(json.dumps({"endpoint": endpoint, "envs": envs, "floor": floor, "auth": auth, "ids": ids}))
    tmp.replace(state_file)
    sys.stdin.read()  # until the parent closes our stdin
    server.stop()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "fill":  # fill EVENT.json IDS.json: print the filled event
        print(json.dumps(fill(json.loads(Path(sys.argv[2]).read_text()), json.loads(Path(sys.argv[3]).read_text())),
                         indent=2))
    elif len(sys.argv) >= 3 and sys.argv[1] == "serve":
        args = [a for a in sys.argv[3:] if a != "--seed"]
        _serve(Path(sys.argv[2]), args, seed="--seed" in sys.argv[3:])
