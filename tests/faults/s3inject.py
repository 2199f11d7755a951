"""S3 fault injection on the real S3 client (issue 23 rule 4): botocore event hooks on
``lambdakit.aws.client("s3")`` talking to moto, no fakes.

``s3_fault(op, fault)`` makes the calls of the S3 operation ``op`` (``"PutObject"``,
``"GetObject"``, ``"HeadObject"``, ``"CreateMultipartUpload"``...) or the presigns (``op="presign"``:
``generate_presigned_url`` and ``generate_presigned_post``) fail with ``fault``:

* an S3 error code (``SlowDown``, ``ServiceUnavailable``, ``InternalError``, ``AccessDenied``): a
  ``before-call`` hook answers the call as S3 would (HTTP 503/500/403 with that code), so botocore
  raises its own ``ClientError`` and the request never reaches moto (the answer left after
  botocore's retries);
* ``EndpointConnectionError`` / ``ReadTimeoutError``: the hook raises botocore's exception, as a
  call whose connection fails or times out on every retry does;
* ``StreamCut`` (``GetObject`` only): the call succeeds and reading its body fails with
  ``ResponseStreamingError`` (a connection dropped mid-download);
* presigns: ``NoCredentialsError`` (no credentials at all) or ``CredentialRetrievalError`` (a
  refresh that failed), raised from a ``before-sign`` hook of a presign request.

``S3Fault.fired`` counts the calls the fault was injected into.
"""
from __future__ import annotations

import contextlib
import itertools
from typing import Any, Iterator

_ids = itertools.count()

#: HTTP status S3 answers each error code with
STATUS = {"SlowDown": 503, "ServiceUnavailable": 503, "InternalError": 500, "AccessDenied": 403,
          "RequestTimeout": 400}
#: the status and code each fault must come out as, in every service's format
TRANSIENT = ("SlowDown", "ServiceUnavailable", "InternalError", "EndpointConnectionError", "ReadTimeoutError")
PERMANENT = ("AccessDenied",)
PRESIGN_TRANSIENT = ("CredentialRetrievalError",)
PRESIGN_PERMANENT = ("NoCredentialsError",)


def expected(fault: str) -> tuple[int, str]:
    if fault in TRANSIENT or fault in PRESIGN_TRANSIENT or fault == "StreamCut":
        return 503, "FILE_STORE_UNAVAILABLE"
    return 500, "FILE_STORE_ERROR"


class S3Fault:
    def __init__(self, op: str, fault: str) -> None:
        self.op, self.fault = op, fault
        self.fired = 0

    def _raise_connection(self) -> None:
        from botocore import exceptions as bx

        self.fired += 1
        if self.fault == "EndpointConnectionError":
            raise bx.EndpointConnectionError(endpoint_url="https://s3.fault.example")
        raise bx.ReadTimeoutError(endpoint_url="https://s3.fault.example", error="read timed out")

    def before_call(self, model: Any, **_: Any) -> Any:
        if model.name != self.op or self.fault == "StreamCut":
            return None
        if self.fault in ("EndpointConnectionError", "ReadTimeoutError"):
            self._raise_connection()
        from botocore.awsrequest import AWSResponse

        self.fired += 1
        status = STATUS.get(self.fault, 500)
        parsed = {"Error": {"Code": self.fault, "Message": f"injected {self.fault}"},
                  "ResponseMetadata": {"HTTPStatusCode": status, "HTTPHeaders": {}, "RetryAttempts": 3}}
        return AWSResponse("https://s3.fault.example", status, {}, None), parsed

    def after_call(self, model: Any = None, parsed: Any = None, **_: Any) -> None:
        if self.fault != "StreamCut" or model is None or model.name != self.op or not isinstance(parsed, dict):
            return
        if "Body" in parsed:
            self.fired += 1
            parsed["Body"] = _CutStream()

    def before_sign(self, request: Any = None, **_: Any) -> None:
        ctx = getattr(request, "context", None) or {}
        if not (ctx.get("is_presign_request") or "s3-presign-post-policy" in ctx):
            return
        from botocore import exceptions as bx

        self.fired += 1
        if self.fault == "CredentialRetrievalError":
            raise bx.CredentialRetrievalError(provider="container-role", error_msg="injected")
        raise bx.NoCredentialsError()


class _CutStream:
    def read(self, *_: Any) -> bytes:
        from botocore.exceptions import ResponseStreamingError

        raise ResponseStreamingError(error="Connection broken: injected")

    def close(self) -> None:
        pass


@contextlib.contextmanager
def s3_fault(op: str, fault: str) -> Iterator[S3Fault]:
    from lambdakit import aws

    f = S3Fault(op, fault)
    ev = aws.client("s3").meta.events
    uid = f"s3fault-{next(_ids)}"
    regs = [("before-sign.s3", f.before_sign)] if op == "presign" else [
        ("before-call.s3", f.before_call), ("after-call.s3", f.after_call)]
    for name, fn in regs:
        ev.register(name, fn, unique_id=f"{uid}-{name}")
    try:
        yield f
    finally:
        for name, _fn in regs:
            ev.unregister(name, unique_id=f"{uid}-{name}")


def keys(bucket: str, prefix: str) -> list[str]:
    """The objects under ``prefix`` (read with the same client, outside any fault)."""
    from lambdakit import aws

    out: list[str] = []
    for page in aws.client("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        out += [o["Key"] for o in page.get("Contents") or []]
    return out
