"""A cold function process serves its first request without importing the ``boto3`` package
(issue 21; docs/platform.md, "Clients without the boto3 package"): ``lambdakit.aws`` makes
botocore clients, ``lambdakit.ddbtypes`` speaks DynamoDB's wire format, ``lambdakit.conditions``
builds query filters.

Each function runs as on Lambda (``bench/lambda_sandbox.py``: a fresh ``python -I -S`` process,
only its folder, its layers and the runtime's packages on ``sys.path``) against the emulator,
with ``-X importtime``: every module the process imported, first request included.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import lambda_sandbox as sb  # noqa: E402

from local_runtime.stack import load_all  # noqa: E402

SERVICES = load_all()


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("boto3free")
    with sb.Emulator(tmp, ("campaigns", "exams"), seed=True) as emu:
        yield emu, sb.layers_from_venv(tmp)


def _first_request(sandbox, svc: str, lid: str, query: dict[str, str] | None = None) -> tuple[dict, set[str]]:
    """The function's sample event (``query``: its query string parameters added) as a first request."""
    emu, layers = sandbox
    fn = SERVICES[svc].functions[lid]
    ev = sb.event_for(svc, lid, emu.state["ids"])
    if query:
        ev["queryStringParameters"] = {**(ev.get("queryStringParameters") or {}), **query}
        ev["rawQueryString"] = urlencode(ev["queryStringParameters"])
    if "routeKey" in ev and "authorization" not in ev["headers"]:
        ev["headers"].update(emu.state["auth"].get(svc, {}))
    env = {**sb.base_env(emu.endpoint, tracing=False), **emu.function_env(svc, lid)}
    r = sb.invoke(sb.function_paths(fn, layers), fn.handler, ev, env, name=f"{svc}.{lid}", importtime=True)
    assert r["ok"], f"{svc}.{lid}: {r.get('error')}\n{r.get('traceback') or r.get('stderr')}"
    return r["result"], set(r["importtime"])


@pytest.mark.parametrize("svc,lid", [("campaigns", "ListsFunction"), ("exams", "TestsFunction"),
                                     ("campaigns", "TrackingFunction")])
def test_first_request_does_not_import_boto3(sandbox, svc, lid):
    """TrackingFunction's sample reads the link-signing key from Secrets Manager (``lambdakit.secrets``:
    GetSecretValue on the shared client since Powertools Parameters, which imports boto3, left it)."""
    result, modules = _first_request(sandbox, svc, lid)
    assert 200 <= result["statusCode"] < 400, result
    # the request read items through a botocore DynamoDB client and lambdakit's codec ...
    assert {"botocore.client", "lambdakit.ddbtypes", "lambdakit.aws"} <= modules
    # ... and nothing of boto3 (s3transfer and concurrent.futures come with it), nor Parameters
    assert sorted(m for m in modules if m.split(".")[0] in ("boto3", "s3transfer")) == []
    assert not [m for m in modules if m.startswith("aws_lambda_powertools.utilities.parameters")]
    if lid == "TrackingFunction":
        assert "lambdakit.secrets" in modules


def test_a_filtered_first_request_does_not_import_boto3(sandbox):
    """A list with a filter expression (the profiles of one role): ``lambdakit.conditions`` builds it,
    where boto3's condition builders imported the boto3 package."""
    result, modules = _first_request(sandbox, "exams", "UsersFunction", {"role": "student"})
    assert result["statusCode"] == 200, result
    rows = json.loads(result["body"])["data"]
    assert rows and {r["role"] for r in rows} == {"student"}, rows  # filtered
    assert {"lambdakit.conditions", "lambdakit.ddbtypes", "botocore.client"} <= modules
    assert sorted(m for m in modules if m.split(".")[0] in ("boto3", "s3transfer")) == []


def test_the_import_list_sees_boto3_when_a_request_imports_it(sandbox, tmp_path):
    """The check above can fail: a handler that imports boto3 on its first request shows it."""
    emu, layers = sandbox
    fn = SERVICES["campaigns"].functions["ListsFunction"]
    (tmp_path / "probe_handler.py").write_text("def lambda_handler(event, context):\n"
                                               "    import boto3\n"
                                               "    return {'statusCode': 200, 'body': boto3.__name__}\n")
    env = {**sb.base_env(emu.endpoint, tracing=False), **emu.function_env("campaigns", "ListsFunction")}
    r = sb.invoke([str(tmp_path), *sb.function_paths(fn, layers)], "probe_handler.lambda_handler", {}, env,
                  name="probe", importtime=True)
    assert r["ok"] and r["result"]["body"] == "boto3", r
    assert {"boto3", "s3transfer"} <= set(r["importtime"])


# ---------------------------------------------------------------- in process: the S3 client
def test_s3_clients_are_botocores_and_keep_hooks_and_presigns(campaigns_app):
    """S3 clients are plain botocore clients (no boto3-injected transfer methods); hooks registered
    with ``aws.register_hook`` reach them, created before or after; presigning is botocore's."""
    from lambdakit import aws

    seen: list[str] = []
    aws.reset()  # hooks registered here end with the clients (finally)
    s3 = aws.client("s3")
    assert not hasattr(s3, "upload_fileobj")
    assert type(s3).__module__ == "botocore.client"
    try:
        aws.register_hook("before-call", lambda model, **_: seen.append(model.name), unique_id="b3free")
        bucket = campaigns_app.envs["campaigns"].refs["FilesBucket"]
        s3.put_object(Bucket=bucket, Key="b3free/a", Body=b"x")
        queue = campaigns_app.envs["campaigns"].refs["ImportQueue"]
        aws.client("sqs").get_queue_attributes(QueueUrl=queue)  # a client made after the hook has it too
        url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "b3free/a"}, ExpiresIn=60)
        assert "X-Amz-Expires=60" in url
        assert "fields" in s3.generate_presigned_post(Bucket=bucket, Key="b3free/b", ExpiresIn=60)
        assert seen == ["PutObject", "GetQueueAttributes"]
    finally:
        aws.reset()


def test_export_upload_is_boto3s_managed_transfer_on_the_shared_client(campaigns_app):
    """``upload_export`` streams through boto3's ``upload_fileobj`` with ``lambdakit``'s client:
    multipart above 8 MB, every part through that client's hooks (fault injection reaches it)."""
    import io

    from campaigns.contacts import jobs
    from lambdakit import aws
    from lambdakit.errors import FileStoreUnavailable
    from tests.faults.s3inject import keys, s3_fault

    calls: list[str] = []
    events = aws.client("s3").meta.events
    events.register("before-call.s3", lambda model, **_: calls.append(model.name), unique_id="b3free-upload")
    try:
        jobs.upload_export("exports/a/j1/contacts.csv", io.BytesIO(b"e" * (9 * 1024 * 1024)), "text/csv", "c.csv")
        assert calls == ["CreateMultipartUpload", "UploadPart", "UploadPart", "CompleteMultipartUpload"] or (
            calls[0] == "CreateMultipartUpload" and calls[-1] == "CompleteMultipartUpload"
            and sorted(calls[1:-1]) == ["UploadPart", "UploadPart"])
        bucket = campaigns_app.envs["campaigns"].refs["FilesBucket"]
        head = aws.client("s3").head_object(Bucket=bucket, Key="exports/a/j1/contacts.csv")
        assert head["ContentLength"] == 9 * 1024 * 1024 and head["ContentType"] == "text/csv"
        assert head["ServerSideEncryption"] == "AES256"
        with s3_fault("PutObject", "SlowDown") as f, pytest.raises(FileStoreUnavailable):
            jobs.upload_export("exports/a/j2/contacts.csv", io.BytesIO(b"small"), "text/csv", "c.csv")
        assert f.fired == 1 and keys(bucket, "exports/a/j2/") == []
    finally:
        events.unregister("before-call.s3", unique_id="b3free-upload")
