"""Logger/Metrics/Tracer setup and the Lambda entry-point wrappers shared by every function.

Business metrics: domain code calls ``count("EmailsSent", provider="ses")`` (or
``timing("GradingDuration", ms)``); the metric goes to the process's one Powertools
``Metrics`` (EMF: a log line, no API call), in the namespace of
``POWERTOOLS_METRICS_NAMESPACE`` (one per service, set in each service's template). Entry
points flush with ``flush_metrics()`` (``http_handler`` does it for HTTP functions; workers and
schedules wrap their handler with ``worker_entry``).

Correlation: ``http_handler`` logs with ``correlation_id`` = the API Gateway request id
(Powertools ``correlation_paths.API_GATEWAY_HTTP``) and puts it in an ``X-Request-Id`` response
header on every response (a service that already set one, as exams does, keeps its own).
``worker_entry`` logs the SQS message ids (``message_ids``; one message: ``correlation_id``) or
the EventBridge event id (``correlation_id``) on every line of the invocation.

Traces: the templates set ``Tracing: Active``. The Powertools ``Tracer`` (which imports
``aws_xray_sdk``) is only built when tracing is on: in Lambda (``LAMBDA_TASK_ROOT``), not under
SAM local, and ``POWERTOOLS_TRACE_DISABLED`` not true (the local runtime and the tests set it).
botocore is patched when ``lambdakit.aws`` creates the first client (``patch_aws_sdk``), not
at import, so a cold start that never calls AWS never pays for it.
"""
from __future__ import annotations

import functools
import os
import threading
from typing import Any, Callable

from aws_lambda_powertools import Logger
from aws_lambda_powertools.logging import correlation_paths

_metrics: Any = None
_tracer: Any = None
_patched = False
_lock = threading.Lock()


def get_logger(service: str) -> Logger:
    return Logger(service=service, level=os.environ.get("LOG_LEVEL", "INFO"), log_uncaught_exceptions=True)


def metrics() -> Any:
    """The process's Powertools ``Metrics`` (created on first use)."""
    global _metrics
    if _metrics is None:
        from aws_lambda_powertools import Metrics

        _metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or "Local")
    return _metrics


def count(name: str, value: float = 1, unit: str = "Count", **dimensions: str) -> None:
    """Record a business metric. With ``dimensions`` it is emitted as its own EMF document (so
    differently-dimensioned metrics never share a dimension set)."""
    from aws_lambda_powertools.metrics import MetricUnit

    m = metrics()
    # The namespace of the function running now: the local runtime serves the three services in
    # one process (each invocation with its own function environment), Lambda one function.
    ns = os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or "Local"
    if m.namespace != ns:
        flush_metrics()
        m.namespace = ns
    u = MetricUnit(unit) if not isinstance(unit, MetricUnit) else unit
    if dimensions:
        from aws_lambda_powertools.metrics import single_metric

        with single_metric(name=name, unit=u, value=value, namespace=ns) as sm:
            for k, v in dimensions.items():
                sm.add_dimension(name=k, value=str(v) or "none")
        return
    m.add_metric(name=name, unit=u, value=value)


def timing(name: str, milliseconds: float, **dimensions: str) -> None:
    count(name, milliseconds, unit="Milliseconds", **dimensions)


def flush_metrics() -> None:
    """Write the metrics recorded so far (no-op when none were)."""
    if _metrics is None or not getattr(_metrics, "metric_set", None):
        return
    try:
        _metrics.flush_metrics(raise_on_empty_metrics=False)
    except Exception:  # noqa: BLE001 - metrics never fail a request
        pass


def tracing_enabled() -> bool:
    """Powertools' rule: on in Lambda unless disabled by env or running under SAM local."""
    if os.environ.get("POWERTOOLS_TRACE_DISABLED", "false").strip().lower() in ("1", "true", "yes", "on", "y"):
        return False
    return bool(os.environ.get("LAMBDA_TASK_ROOT")) and not os.environ.get("AWS_SAM_LOCAL") \
        and not os.environ.get("AWS_CHALICE_CLI_MODE")


def tracer() -> Any:
    """The process's Powertools ``Tracer`` (``None`` when tracing is off: nothing imported)."""
    global _tracer
    if _tracer is None and tracing_enabled():
        with _lock:
            if _tracer is None:
                from aws_lambda_powertools import Tracer

                _tracer = Tracer(auto_patch=False)
    return _tracer


def patch_aws_sdk() -> None:
    """Patch botocore for X-Ray once, when tracing is on (called before the first client)."""
    global _patched
    if _patched:
        return
    t = tracer()
    if t is not None:
        t.patch(("botocore",))
    _patched = True


_bytecode_checked = False


def check_bytecode(logger: Logger) -> bool:
    """Once per process, in Lambda: was this code deployed with its bytecode? Without it
    (a plain ``sam build``, no ``make precompile``) every cold start compiles every module it
    imports, ≈ 4x slower (docs/platform.md); a WARNING and a ``ColdStartWithoutBytecode`` metric
    say so. ``True`` when the bytecode is there (or not in Lambda)."""
    global _bytecode_checked
    if _bytecode_checked:
        return True
    _bytecode_checked = True
    if not os.environ.get("LAMBDA_TASK_ROOT") or os.environ.get("AWS_SAM_LOCAL"):
        return True
    import importlib.util

    if os.path.exists(importlib.util.cache_from_source(__file__)):
        return True
    logger.warning("deployed without bytecode: every cold start compiles every module it imports; "
                   "build with `make build` (sam build + make precompile)")
    count("ColdStartWithoutBytecode")
    return False


def _traced(fn: Callable[[Any, Any], Any], name: str, logger: Logger) -> Callable[[Any, Any], Any]:
    """Run ``fn`` in a ``## name`` subsegment when tracing is on (decided per call); the first
    call checks the deployment's bytecode (``check_bytecode``)."""

    def call(event: Any, context: Any) -> Any:
        if not _bytecode_checked:
            check_bytecode(logger)
        t = tracer()
        if t is None:
            return fn(event, context)
        with t.provider.in_subsegment(name=f"## {name}") as sub:
            sub.put_annotation(key="Service", value=os.environ.get("POWERTOOLS_SERVICE_NAME") or name)
            return fn(event, context)

    return call


def request_id(event: Any) -> str | None:
    """The API Gateway request id of a payload-2.0 event."""
    ctx = event.get("requestContext") if isinstance(event, dict) else None
    rid = ctx.get("requestId") if isinstance(ctx, dict) else None
    return rid if isinstance(rid, str) and rid else None


def is_http_event(event: Any) -> bool:
    return isinstance(event, dict) and "requestContext" in event and "routeKey" in event


def _with_request_id(resp: Any, rid: str | None) -> Any:
    if rid and isinstance(resp, dict) and "statusCode" in resp:
        headers = resp.get("headers")
        if not isinstance(headers, dict):
            headers = resp["headers"] = {}
        multi = resp.get("multiValueHeaders") or {}
        if not any(k.lower() == "x-request-id" for k in (*headers, *multi)):
            headers["X-Request-Id"] = rid
    return resp


def _server_error(app: Any, rid: str | None) -> dict:
    """A 500 in the service's own error format (an exception escaped the resolver)."""
    from .errors import ApiError
    from .http import JSON, dumps

    render = getattr(app, "lambdakit_render_error", None)
    code = getattr(app, "lambdakit_server_error_code", "SERVER_ERROR")
    err = ApiError("Internal server error", code=code, status=500)
    body = render(err) if render else {"message": "Internal Server Error"}
    return _with_request_id({"statusCode": 500, "headers": {"Content-Type": JSON}, "body": dumps(body),
                             "isBase64Encoded": False}, rid)


def http_handler(app: Any, logger: Logger) -> Callable[[dict, Any], dict]:
    """Lambda handler for an HTTP resolver: Lambda context and the request id (as
    ``correlation_id``) in every log line, ``X-Request-Id`` on every response, a trace
    subsegment when tracing is on, metrics flushed."""

    def resolve(event: dict, context: Any) -> dict:
        rid = request_id(event)
        try:
            resp = app.resolve(event, context)
        except Exception:  # noqa: BLE001 - never a stack trace to the client
            logger.exception("unhandled error outside the resolver")
            resp = _server_error(app, rid)
        finally:
            flush_metrics()
        return _with_request_id(resp, rid)

    traced = _traced(resolve, "lambda_handler", logger)

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP, clear_state=True)
    def lambda_handler(event: dict, context: Any) -> dict:
        return traced(event, context)

    lambda_handler.__lambdakit_entry__ = True  # type: ignore[attr-defined]
    return lambda_handler


def event_ids(event: Any) -> dict[str, Any]:
    """Log keys naming what an invocation works on: SQS message ids, or the EventBridge
    event id (scheduled events); ``correlation_id`` when there is one id."""
    if isinstance(event, dict) and isinstance(event.get("Records"), list):
        ids = [r.get("messageId") for r in event["Records"] if isinstance(r, dict) and r.get("messageId")]
        out: dict[str, Any] = {"message_ids": ids}
        if len(ids) == 1:
            out["correlation_id"] = ids[0]
        return out
    if isinstance(event, dict) and isinstance(event.get("id"), str) and event.get("id"):
        out = {"event_id": event["id"], "correlation_id": event["id"]}
        if event.get("detail-type"):
            out["event_type"] = event["detail-type"]
        return out
    return {}


def worker_entry(logger: Logger) -> Callable[[Callable[[Any, Any], Any]], Callable[[Any, Any], Any]]:
    """Decorator for every non-HTTP entry point (SQS workers, schedules): Lambda context and
    the message/event ids in every log line (one ``invocation`` line lists them), a trace
    subsegment when tracing is on, metrics flushed at the end. Idempotent: wrapping an
    already wrapped handler returns it unchanged. An API Gateway event (a function serving
    both, like the internships cron) is passed straight through: its own ``http_handler``
    does the HTTP part."""

    def decorate(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        if getattr(fn, "__lambdakit_entry__", False):
            return fn

        def run(event: Any, context: Any) -> Any:
            keys = event_ids(event)
            if keys:
                logger.append_keys(**keys)
            logger.info("invocation", extra={"event_kind": _kind(event)})
            try:
                return fn(event, context)
            finally:
                flush_metrics()

        traced = _traced(run, getattr(fn, "__name__", "lambda_handler"), logger)
        injected = logger.inject_lambda_context(clear_state=True)(traced)

        @functools.wraps(fn)
        def handler(event: Any, context: Any) -> Any:
            if is_http_event(event):
                return fn(event, context)
            return injected(event, context)

        handler.__lambdakit_entry__ = True  # type: ignore[attr-defined]
        return handler

    return decorate


def _kind(event: Any) -> str:
    if isinstance(event, dict):
        recs = event.get("Records")
        if isinstance(recs, list) and recs and isinstance(recs[0], dict):
            return str(recs[0].get("eventSource") or "records")
        if event.get("source") or event.get("detail-type"):
            return "eventbridge"
    return "direct"
