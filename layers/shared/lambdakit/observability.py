"""Logger/Metrics setup and the Lambda entry-point wrapper shared by every function.

Business metrics: domain code calls ``count("EmailsSent", provider="ses")`` (or
``timing("GradingDuration", ms)``); the metric goes to the process's one Powertools
``Metrics`` (EMF: a log line, no API call), in the namespace of
``POWERTOOLS_METRICS_NAMESPACE`` (one per service, set in each service's template). Entry
points flush with ``flush_metrics()`` (``http_handler`` does it for HTTP functions; workers and
schedules wrap their handler with ``entry``).
"""
from __future__ import annotations

import os
from typing import Any, Callable

from aws_lambda_powertools import Logger

_metrics: Any = None


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
    u = MetricUnit(unit) if not isinstance(unit, MetricUnit) else unit
    if dimensions:
        from aws_lambda_powertools.metrics import single_metric

        with single_metric(name=name, unit=u, value=value, namespace=m.namespace) as sm:
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


def http_handler(app: Any, logger: Logger) -> Callable[[dict, Any], dict]:
    """Lambda handler for an HTTP resolver with the logger's context injected."""

    @logger.inject_lambda_context(clear_state=True)
    def lambda_handler(event: dict, context: Any) -> dict:
        try:
            return app.resolve(event, context)
        finally:
            flush_metrics()

    return lambda_handler
