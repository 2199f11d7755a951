"""Logger/Metrics setup and the Lambda entry-point wrapper shared by every function."""
from __future__ import annotations

import os
from typing import Any, Callable

from aws_lambda_powertools import Logger


def get_logger(service: str) -> Logger:
    return Logger(service=service, level=os.environ.get("LOG_LEVEL", "INFO"), log_uncaught_exceptions=True)


def http_handler(app: Any, logger: Logger) -> Callable[[dict, Any], dict]:
    """Lambda handler for an HTTP resolver with the logger's context injected."""

    @logger.inject_lambda_context(clear_state=True)
    def lambda_handler(event: dict, context: Any) -> dict:
        return app.resolve(event, context)

    return lambda_handler
